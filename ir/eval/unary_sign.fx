; sign gives -1, 0 or 1; on floats a signed zero and a NaN are returned unchanged.

; sign on f32: signed zeros keep their sign, NaN stays NaN, subnormals give +-1.
func @sign_f32(%x: f32[9]) -> (f32[9]) {
  %y: f32[9] = sign(%x)
  return %y
}
; run
; in: f32[9] = [-3.0, -0.0, 0.0, 2.0, -inf, inf, nan, 1e-45, -1e-45]
; out0: f32[9] = [-1.0, -0.0, 0.0, 1.0, -1.0, 1.0, nan, 1.0, -1.0]

; sign on f64.
func @sign_f64(%x: f64[6]) -> (f64[6]) {
  %y: f64[6] = sign(%x)
  return %y
}
; run
; in: f64[6] = [-0.5, -0.0, 0.0, 7.0, nan, 5e-324]
; out0: f64[6] = [-1.0, -0.0, 0.0, 1.0, nan, 1.0]

; sign on i32, including the extremes.
func @sign_i32(%x: i32[5]) -> (i32[5]) {
  %y: i32[5] = sign(%x)
  return %y
}
; run
; in: i32[5] = [-7, 0, 9, -2147483648, 2147483647]
; out0: i32[5] = [-1, 0, 1, -1, 1]
