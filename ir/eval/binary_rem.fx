; rem: the remainder of truncating division, with the sign of the dividend (C fmod on
; floats); on i32 it never traps: rem(x, 0) = x and rem(i32::MIN, -1) = 0.

; rem on f32: every sign combination, zero divisor, infinite operands, signed zero results.
func @rem_f32(%x: f32[12], %y: f32[12]) -> (f32[12]) {
  %r: f32[12] = rem(%x, %y)
  return %r
}
; run
; in: f32[12] = [7.5, -7.5, 7.5, -7.5, 5.0, inf, 3.0, -0.0, 4.0, -4.0, nan, 1.0]
; in: f32[12] = [2.0, 2.0, -2.0, -2.0, 0.0, 2.0, inf, 1.0, 2.0, 2.0, 1.0, nan]
; out0: f32[12] = [1.5, -1.5, 1.5, -1.5, nan, nan, 3.0, -0.0, 0.0, -0.0, nan, nan]
; run
; in: f32[12] = [0.1, 1e30, 3.4028235e38, 1e-45, -3.0, 5.5, 0.0, -inf, 10.0, 2.0, -1.0, 1.0]
; in: f32[12] = [0.03, 3.0, 1.5, 1e-45, -inf, 0.25, 5.0, 1.0, 3.0, 0.75, 0.3, -0.0]
; out0: f32[12] = [0.0100000035, 0.0, 0.0, 0.0, -3.0, 0.0, 0.0, nan, 1.0, 0.5, -0.099999964, nan]

; rem on f64.
func @rem_f64(%x: f64[6], %y: f64[6]) -> (f64[6]) {
  %r: f64[6] = rem(%x, %y)
  return %r
}
; run
; in: f64[6] = [7.5, -7.5, 1e300, 5.0, -0.0, 0.1]
; in: f64[6] = [-2.0, 2.0, 3.0, 0.0, 2.0, 0.03]
; out0: f64[6] = [1.5, -1.5, 0.0, nan, -0.0, 0.010000000000000009]

; rem on i32: truncating remainder for every sign combination, zero divisor, i32::MIN / -1.
func @rem_i32(%x: i32[12], %y: i32[12]) -> (i32[12]) {
  %r: i32[12] = rem(%x, %y)
  return %r
}
; run
; in: i32[12] = [7, -7, 7, -7, 5, -5, 0, -2147483648, -2147483648, 2147483647, -2147483648, 6]
; in: i32[12] = [3, 3, -3, -3, 0, 0, 0, -1, 0, -2147483648, 2147483647, 3]
; out0: i32[12] = [1, -1, 1, -1, 5, -5, 0, 0, -2147483648, 2147483647, -1, 0]
