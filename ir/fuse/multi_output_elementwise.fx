; Multi-output without a reduction: t = tanh(x) is both a result and the input of
; t * y at the same index, so one kernel computes it once and writes both results.
func @f(%x: f32[4,8], %y: f32[4,8]) -> (f32[4,8], f32[4,8]) {
  %t: f32[4,8] = tanh(%x)
  %z: f32[4,8] = mul(%t, %y)
  return %t, %z
}
; fuse:
; func @f(%0: f32[4,8], %1: f32[4,8]) -> (f32[4,8], f32[4,8]) {
;   %2: f32[4,8], %3: f32[4,8] = call[func=@f_k0](%0, %1)
;   return %2, %3
; }
;
; func @f_k0[kind="fusion"](%0: f32[4,8], %1: f32[4,8]) -> (f32[4,8], f32[4,8]) {
;   %2: f32[4,8] = tanh(%0)
;   %3: f32[4,8] = mul(%2, %1)
;   return %2, %3
; }
; launches: 1
