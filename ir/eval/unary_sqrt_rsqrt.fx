; sqrt and rsqrt on f32 and f64: exact squares, sqrt(-0) = -0, negatives give NaN.

; sqrt on f32.
func @sqrt_f32(%x: f32[10]) -> (f32[10]) {
  %y: f32[10] = sqrt(%x)
  return %y
}
; run
; in: f32[10] = [4.0, 2.0, 0.0, -0.0, -1.0, inf, -inf, nan, 1e-45, 6.25]
; out0: f32[10] = [2.0, 1.4142135, 0.0, -0.0, nan, inf, nan, nan, 3.743392e-23, 2.5]

; sqrt on f64.
func @sqrt_f64(%x: f64[7]) -> (f64[7]) {
  %y: f64[7] = sqrt(%x)
  return %y
}
; run
; in: f64[7] = [2.0, 0.0, -0.0, -1e-300, inf, 5e-324, 1e300]
; out0: f64[7] = [1.4142135623730951, 0.0, -0.0, nan, inf, 2.2227587494850775e-162, 1e150]

; rsqrt on f32: rsqrt(+-0) = +-inf, rsqrt(inf) = 0.
func @rsqrt_f32(%x: f32[9]) -> (f32[9]) {
  %y: f32[9] = rsqrt(%x)
  return %y
}
; run
; in: f32[9] = [4.0, 0.0, -0.0, inf, -1.0, 2.0, nan, 0.25, 1e-45]
; out0: f32[9] = [0.5, inf, -inf, 0.0, nan, 0.70710677, nan, 2.0, 2.6713738e22]

; rsqrt on f64.
func @rsqrt_f64(%x: f64[7]) -> (f64[7]) {
  %y: f64[7] = rsqrt(%x)
  return %y
}
; run
; in: f64[7] = [4.0, 0.0, -0.0, inf, -1.0, 2.0, 1e-300]
; out0: f64[7] = [0.5, inf, -inf, 0.0, nan, 0.7071067811865475, 1e150]
