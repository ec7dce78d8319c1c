; not (logical on bool, bitwise on i32) and is_finite (float to bool).

; not on bool.
func @not_bool(%x: bool[2]) -> (bool[2]) {
  %y: bool[2] = not(%x)
  return %y
}
; run
; in: bool[2] = [true, false]
; out0: bool[2] = [false, true]

; not on i32 is bitwise: not(x) = -x - 1.
func @not_i32(%x: i32[6]) -> (i32[6]) {
  %y: i32[6] = not(%x)
  return %y
}
; run
; in: i32[6] = [0, -1, 5, -2147483648, 2147483647, 1431655765]
; out0: i32[6] = [-1, 0, -6, 2147483647, -2147483648, -1431655766]

; is_finite on f32: false for +-inf and NaN only.
func @is_finite_f32(%x: f32[8]) -> (bool[8]) {
  %y: bool[8] = is_finite(%x)
  return %y
}
; run
; in: f32[8] = [0.0, -0.0, 1.0, inf, -inf, nan, 3.4028235e38, 1e-45]
; out0: bool[8] = [true, true, true, false, false, false, true, true]

; is_finite on f64, over a rank-2 operand.
func @is_finite_f64(%x: f64[2,3]) -> (bool[2,3]) {
  %y: bool[2,3] = is_finite(%x)
  return %y
}
; run
; in: f64[2,3] = [1.7976931348623157e308, -inf, nan, 5e-324, -0.0, inf]
; out0: bool[2,3] = [true, false, false, true, true, false]
