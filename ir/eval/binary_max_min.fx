; max and min propagate NaN (from either side) and order signed zeros
; (max(-0, +0) = +0, min(-0, +0) = -0); on i32 they cover the whole range.

; max and min of the same f32 pairs.
func @max_min_f32(%x: f32[10], %y: f32[10]) -> (f32[10], f32[10]) {
  %a: f32[10] = max(%x, %y)
  %b: f32[10] = min(%x, %y)
  return %a, %b
}
; run
; in: f32[10] = [1.0, nan, 2.0, nan, -0.0, 0.0, inf, -inf, -0.0, 1e-45]
; in: f32[10] = [2.0, 1.0, nan, nan, 0.0, -0.0, nan, 3.0, -0.0, -1e-45]
; out0: f32[10] = [2.0, nan, nan, nan, 0.0, 0.0, nan, 3.0, -0.0, 1e-45]
; out1: f32[10] = [1.0, nan, nan, nan, -0.0, -0.0, nan, -inf, -0.0, -1e-45]
; run
; in: f32[10] = [-inf, inf, nan, -1.0, 0.0, -3.5, 3.4028235e38, -inf, 5.0, 0.0]
; in: f32[10] = [nan, -inf, -inf, -1.0, 1e-45, -3.0, inf, inf, 5.0, 0.0]
; out0: f32[10] = [nan, inf, nan, -1.0, 1e-45, -3.0, inf, inf, 5.0, 0.0]
; out1: f32[10] = [nan, -inf, nan, -1.0, 0.0, -3.5, 3.4028235e38, -inf, 5.0, 0.0]

; max and min of the same f64 pairs.
func @max_min_f64(%x: f64[6], %y: f64[6]) -> (f64[6], f64[6]) {
  %a: f64[6] = max(%x, %y)
  %b: f64[6] = min(%x, %y)
  return %a, %b
}
; run
; in: f64[6] = [1.0, nan, -0.0, 0.0, 5e-324, -inf]
; in: f64[6] = [nan, 2.0, 0.0, -0.0, 0.0, -1.7976931348623157e308]
; out0: f64[6] = [nan, nan, 0.0, 0.0, 5e-324, -1.7976931348623157e308]
; out1: f64[6] = [nan, nan, -0.0, -0.0, 0.0, -inf]

; max and min of the same i32 pairs.
func @max_min_i32(%x: i32[5], %y: i32[5]) -> (i32[5], i32[5]) {
  %a: i32[5] = max(%x, %y)
  %b: i32[5] = min(%x, %y)
  return %a, %b
}
; run
; in: i32[5] = [-2147483648, 2147483647, -1, 3, 0]
; in: i32[5] = [2147483647, 0, -2, 3, -2147483648]
; out0: i32[5] = [2147483647, 2147483647, -1, 3, 0]
; out1: i32[5] = [-2147483648, 0, -2, 3, -2147483648]
