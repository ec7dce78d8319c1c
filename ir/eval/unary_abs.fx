; abs clears the sign bit of floats and wraps on i32 (abs(i32::MIN) = i32::MIN).

; abs on f32: signed zeros, infinities, NaN, subnormals.
func @abs_f32(%x: f32[8]) -> (f32[8]) {
  %y: f32[8] = abs(%x)
  return %y
}
; run
; in: f32[8] = [-1.5, 1.5, -0.0, 0.0, -inf, inf, nan, -1e-45]
; out0: f32[8] = [1.5, 1.5, 0.0, 0.0, inf, inf, nan, 1e-45]

; abs on f64.
func @abs_f64(%x: f64[6]) -> (f64[6]) {
  %y: f64[6] = abs(%x)
  return %y
}
; run
; in: f64[6] = [-2.25, -0.0, -inf, nan, -5e-324, -1.7976931348623157e308]
; out0: f64[6] = [2.25, 0.0, inf, nan, 5e-324, 1.7976931348623157e308]

; abs on i32 wraps at i32::MIN.
func @abs_i32(%x: i32[6]) -> (i32[6]) {
  %y: i32[6] = abs(%x)
  return %y
}
; run
; in: i32[6] = [-5, 5, 0, -2147483648, 2147483647, -2147483647]
; out0: i32[6] = [5, 5, 0, -2147483648, 2147483647, 2147483647]
