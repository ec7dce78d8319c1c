; neg flips the sign bit of floats (signed zeros, infinities) and wraps on i32.

; neg on f32: signed zeros, infinities, NaN, the smallest subnormal and the largest finite value.
func @neg_f32(%x: f32[9]) -> (f32[9]) {
  %y: f32[9] = neg(%x)
  return %y
}
; run
; in: f32[9] = [1.5, -2.0, 0.0, -0.0, inf, -inf, nan, 1e-45, 3.4028235e38]
; out0: f32[9] = [-1.5, 2.0, -0.0, 0.0, -inf, inf, nan, -1e-45, -3.4028235e38]

; neg on f64, including a rank-2 operand (the shape is kept).
func @neg_f64(%x: f64[2,3]) -> (f64[2,3]) {
  %y: f64[2,3] = neg(%x)
  return %y
}
; run
; in: f64[2,3] = [0.1, -0.0, 0.0, -inf, 5e-324, 1.7976931348623157e308]
; out0: f64[2,3] = [-0.1, 0.0, -0.0, inf, -5e-324, -1.7976931348623157e308]

; neg on i32 wraps: neg(i32::MIN) = i32::MIN.
func @neg_i32(%x: i32[6]) -> (i32[6]) {
  %y: i32[6] = neg(%x)
  return %y
}
; run
; in: i32[6] = [0, 1, -1, 2147483647, -2147483648, -2147483647]
; out0: i32[6] = [0, -1, 1, -2147483647, -2147483648, 2147483647]

; neg of a scalar and of an empty array.
func @neg_scalar_and_empty(%x: i32[], %e: f32[0,2]) -> (i32[], f32[0,2]) {
  %y: i32[] = neg(%x)
  %f: f32[0,2] = neg(%e)
  return %y, %f
}
; run
; in: i32[] = [7]
; in: f32[0,2] = []
; out0: i32[] = [-7]
; out1: f32[0,2] = []
