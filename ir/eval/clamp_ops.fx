; clamp(lo, x, hi) = min(max(x, lo), hi): NaN in any operand propagates, lo > hi gives hi,
; signed zeros follow max/min.

; clamp on f32.
func @clamp_f32(%lo: f32[10], %x: f32[10], %hi: f32[10]) -> (f32[10]) {
  %y: f32[10] = clamp(%lo, %x, %hi)
  return %y
}
; run
; in: f32[10] = [0.0, 0.0, 0.0, 1.0, 5.0, nan, 0.0, 0.0, -0.0, 0.0]
; in: f32[10] = [0.5, -2.0, 3.0, 1.0, 2.0, 1.0, nan, 1.0, 0.0, -0.0]
; in: f32[10] = [1.0, 1.0, 1.0, 1.0, 3.0, 2.0, 1.0, nan, 0.0, -0.0]
; out0: f32[10] = [0.5, 0.0, 1.0, 1.0, 3.0, nan, nan, nan, 0.0, -0.0]
; run
; in: f32[10] = [-inf, -inf, -inf, 1.0, -1.0, 2.0, -0.0, 0.0, -0.0, 1e-45]
; in: f32[10] = [inf, -inf, nan, 5.0, -0.0, 0.0, -0.0, -0.0, -0.0, 0.0]
; in: f32[10] = [inf, inf, inf, 1.0, 1.0, 1.0, -0.0, 0.0, 0.0, 1.0]
; out0: f32[10] = [inf, -inf, nan, 1.0, -0.0, 1.0, -0.0, 0.0, -0.0, 1e-45]

; clamp on f64.
func @clamp_f64(%lo: f64[5], %x: f64[5], %hi: f64[5]) -> (f64[5]) {
  %y: f64[5] = clamp(%lo, %x, %hi)
  return %y
}
; run
; in: f64[5] = [0.0, 0.0, nan, 3.0, -1.0]
; in: f64[5] = [0.25, 7.0, 0.5, 0.0, -5e-324]
; in: f64[5] = [1.0, 1.0, 1.0, 2.0, 1.0]
; out0: f64[5] = [0.25, 1.0, nan, 2.0, -5e-324]

; clamp on i32, including the extremes and lo > hi.
func @clamp_i32(%lo: i32[6], %x: i32[6], %hi: i32[6]) -> (i32[6]) {
  %y: i32[6] = clamp(%lo, %x, %hi)
  return %y
}
; run
; in: i32[6] = [0, 0, 0, -2147483648, 5, -10]
; in: i32[6] = [5, -5, 50, 2147483647, 0, -10]
; in: i32[6] = [10, 10, 10, 2147483647, 3, -10]
; out0: i32[6] = [5, 0, 10, 2147483647, 3, -10]
; run
; in: i32[6] = [-2147483648, -2147483648, 0, 1, 2, -3]
; in: i32[6] = [-2147483648, 2147483647, 7, 1, 2, 3]
; in: i32[6] = [2147483647, 0, 7, 0, 2, -4]
; out0: i32[6] = [-2147483648, 0, 7, 0, 2, -4]

; clamp with scalar operands.
func @clamp_scalar(%lo: f32[], %x: f32[], %hi: f32[]) -> (f32[]) {
  %y: f32[] = clamp(%lo, %x, %hi)
  return %y
}
; run
; in: f32[] = [-1.0]
; in: f32[] = [-3.0]
; in: f32[] = [1.0]
; out0: f32[] = [-1.0]
