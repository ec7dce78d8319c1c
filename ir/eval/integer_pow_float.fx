; integer_pow on floats: repeated squaring, y = 0 gives 1 everywhere, negative y is 1 / x^|y|.

; Several exponents of the same f32 points.
func @integer_pow_f32(%x: f32[9]) -> (f32[9], f32[9], f32[9], f32[9], f32[9]) {
  %p0: f32[9] = integer_pow[y=0](%x)
  %p1: f32[9] = integer_pow[y=1](%x)
  %p2: f32[9] = integer_pow[y=2](%x)
  %p3: f32[9] = integer_pow[y=3](%x)
  %m1: f32[9] = integer_pow[y=-1](%x)
  return %p0, %p1, %p2, %p3, %m1
}
; run
; in: f32[9] = [3.0, -3.0, 0.5, 0.0, -0.0, inf, -inf, nan, 1e20]
; out0: f32[9] = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
; out1: f32[9] = [3.0, -3.0, 0.5, 0.0, -0.0, inf, -inf, nan, 1e20]
; out2: f32[9] = [9.0, 9.0, 0.25, 0.0, 0.0, inf, inf, nan, inf]
; out3: f32[9] = [27.0, -27.0, 0.125, 0.0, -0.0, inf, -inf, nan, inf]
; out4: f32[9] = [0.33333334, -0.33333334, 2.0, inf, -inf, 0.0, -0.0, nan, 1e-20]
; run
; in: f32[9] = [1.0, -1.0, 2.0, -2.0, 10.0, 1e-20, 1.1, -0.5, 4.0]
; out0: f32[9] = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
; out1: f32[9] = [1.0, -1.0, 2.0, -2.0, 10.0, 1e-20, 1.1, -0.5, 4.0]
; out2: f32[9] = [1.0, 1.0, 4.0, 4.0, 100.0, 1e-40, 1.21, 0.25, 16.0]
; out3: f32[9] = [1.0, -1.0, 8.0, -8.0, 1000.0, 0.0, 1.3310001, -0.125, 64.0]
; out4: f32[9] = [1.0, -1.0, 0.5, -0.5, 0.1, 1e20, 0.9090909, -2.0, 0.25]

; Larger and negative even exponents on f32: overflow, underflow and exact powers of two.
func @integer_pow_f32_big(%x: f32[6]) -> (f32[6], f32[6], f32[6]) {
  %p: f32[6] = integer_pow[y=10](%x)
  %q: f32[6] = integer_pow[y=-2](%x)
  %r: f32[6] = integer_pow[y=127](%x)
  return %p, %q, %r
}
; run
; in: f32[6] = [2.0, -2.0, 0.5, -0.0, 1e10, 1.0000001]
; out0: f32[6] = [1024.0, 1024.0, 0.0009765625, 0.0, inf, 1.0000012]
; out1: f32[6] = [0.25, 0.25, 4.0, inf, 1e-20, 0.99999976]
; out2: f32[6] = [1.7014118e38, -1.7014118e38, 5.877472e-39, -0.0, inf, 1.0000151]

; integer_pow on f64, odd and negative odd exponents.
func @integer_pow_f64(%x: f64[6]) -> (f64[6], f64[6]) {
  %p: f64[6] = integer_pow[y=5](%x)
  %q: f64[6] = integer_pow[y=-3](%x)
  return %p, %q
}
; run
; in: f64[6] = [2.0, -1.5, 0.0, -0.0, 1e100, 1.1]
; out0: f64[6] = [32.0, -7.59375, 0.0, -0.0, inf, 1.6105100000000006]
; out1: f64[6] = [0.125, -0.2962962962962963, inf, -inf, 1e-300, 0.7513148009015775]
