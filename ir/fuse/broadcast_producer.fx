; A broadcast (and the cheap elementwise op before it) fuses into its consumer: the
; bias is read through index arithmetic, never materialised at [4,8].
func @f(%x: f32[4,8], %b: f32[8]) -> (f32[4,8]) {
  %b2: f32[8] = mul(%b, %b)
  %bb: f32[4,8] = broadcast_in_dim[shape=[4,8], dims=[1]](%b2)
  %y: f32[4,8] = add(%x, %bb)
  return %y
}
; fuse:
; func @f(%0: f32[4,8], %1: f32[8]) -> (f32[4,8]) {
;   %2: f32[4,8] = call[func=@f_k0](%1, %0)
;   return %2
; }
;
; func @f_k0[kind="fusion"](%0: f32[8], %1: f32[4,8]) -> (f32[4,8]) {
;   %2: f32[8] = mul(%0, %0)
;   %3: f32[4,8] = broadcast_in_dim[shape=[4,8], dims=[1]](%2)
;   %4: f32[4,8] = add(%1, %3)
;   return %4
; }
; launches: 1
