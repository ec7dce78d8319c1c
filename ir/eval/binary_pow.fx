; pow on floats: the special cases of C pow (x^0 = 1, 1^y = 1 even for NaN, signed zero
; bases, infinite exponents, negative bases with non-integer exponents give NaN).

; pow on f32.
func @pow_f32(%x: f32[12], %y: f32[12]) -> (f32[12]) {
  %p: f32[12] = pow(%x, %y)
  return %p
}
; run
; in: f32[12] = [2.0, 2.0, 2.0, 0.0, nan, 1.0, -8.0, -2.0, 0.0, -0.0, -0.0, -0.0]
; in: f32[12] = [10.0, -1.0, 0.5, 0.0, 0.0, nan, 0.33333334, 3.0, -1.0, -1.0, 3.0, 2.0]
; out0: f32[12] = [1024.0, 0.5, 1.4142135, 1.0, 1.0, 1.0, nan, -8.0, inf, -inf, -0.0, 0.0]
; run
; in: f32[12] = [inf, -inf, -1.0, 0.5, 2.0, 2.0, 4.0, nan, -2.0, 10.0, 3.0, 0.0]
; in: f32[12] = [-1.0, 3.0, inf, inf, inf, -inf, 0.5, 1.0, -3.0, 38.0, 0.1, 0.5]
; out0: f32[12] = [0.0, -inf, 1.0, 0.0, inf, 0.0, 2.0, nan, -0.125, 1e38, 1.1161232, 0.0]

; pow on f64.
func @pow_f64(%x: f64[8], %y: f64[8]) -> (f64[8]) {
  %p: f64[8] = pow(%x, %y)
  return %p
}
; run
; in: f64[8] = [2.0, 2.0, 10.0, -0.0, -inf, -1.0, 1.5, 0.0]
; in: f64[8] = [0.5, 1024.0, -300.0, -3.0, -3.0, -inf, 2.5, -0.5]
; out0: f64[8] = [1.4142135623730951, inf, 1e-300, -inf, -0.0, 1.0, 2.7556759606310752, inf]
