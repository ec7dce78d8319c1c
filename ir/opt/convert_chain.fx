; f32 -> f64 -> f32 is exact (widening, then narrowing the same value back), and a
; convert to the operand's own dtype is the identity.
func @f(%x: f32[4]) -> (f32[4], f32[4]) {
  %w: f64[4] = convert[dtype=f64](%x)
  %n: f32[4] = convert[dtype=f32](%w)
  %s: f32[4] = convert[dtype=f32](%x)
  return %n, %s
}
; in: f32[4] = [-0.0, nan, 3.4028235e38, 1e-45]
; opt:
; func @f(%0: f32[4]) -> (f32[4], f32[4]) {
;   return %0, %0
; }
