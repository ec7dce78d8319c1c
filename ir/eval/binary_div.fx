; div: IEEE division on floats; on i32 it truncates toward zero and never traps
; (x / 0 = -1, i32::MIN / -1 = i32::MIN).

; div on f32: division by signed zeros, 0/0 and inf/inf give NaN, rounding of 1/3.
func @div_f32(%x: f32[10], %y: f32[10]) -> (f32[10]) {
  %q: f32[10] = div(%x, %y)
  return %q
}
; run
; in: f32[10] = [1.0, -1.0, 1.0, 0.0, inf, 1.0, -1.0, 1.0, nan, 7.0]
; in: f32[10] = [0.0, 0.0, -0.0, 0.0, inf, inf, inf, 3.0, 1.0, 2.0]
; out0: f32[10] = [inf, -inf, -inf, nan, nan, 0.0, -0.0, 0.33333334, nan, 3.5]
; run
; in: f32[10] = [1e-45, 3.4028235e38, -0.0, 0.0, -inf, 5.0, 1e30, 2.0, -6.0, 1.0]
; in: f32[10] = [2.0, 0.5, 5.0, -3.0, 2.0, nan, 1e-30, 0.1, -3.0, 1e-45]
; out0: f32[10] = [0.0, inf, -0.0, -0.0, -inf, nan, inf, 20.0, 2.0, inf]

; div on f64.
func @div_f64(%x: f64[6], %y: f64[6]) -> (f64[6]) {
  %q: f64[6] = div(%x, %y)
  return %q
}
; run
; in: f64[6] = [1.0, -1.0, 0.0, 1.0, 5e-324, 1e308]
; in: f64[6] = [3.0, -0.0, 0.0, -inf, 2.0, 1e-10]
; out0: f64[6] = [0.3333333333333333, inf, nan, -0.0, 0.0, inf]

; div on i32: truncation toward zero for every sign combination, division by zero, overflow.
func @div_i32(%x: i32[12], %y: i32[12]) -> (i32[12]) {
  %q: i32[12] = div(%x, %y)
  return %q
}
; run
; in: i32[12] = [7, -7, 7, -7, 5, -5, 0, -2147483648, -2147483648, 2147483647, 1, -1]
; in: i32[12] = [2, 2, -2, -2, 0, 0, 0, -1, 1, -1, 2, 2]
; out0: i32[12] = [3, -3, -3, 3, -1, -1, -1, -2147483648, -2147483648, -2147483647, 0, 0]
; run
; in: i32[12] = [-2147483648, 2147483647, -2147483648, 2147483647, 6, -6, 100, -100, 0, 0, 1, -2147483648]
; in: i32[12] = [0, 0, 2147483647, -2147483648, 3, 3, 7, 7, -5, 5, -2147483648, -2147483648]
; out0: i32[12] = [-1, -1, -1, 0, 2, -2, 14, -14, 0, 0, 0, 1]
