; Not fused: an expensive producer read through an expanding broadcast would be
; evaluated 4 times per element, so exp(b) is its own kernel at [8].
func @f(%x: f32[4,8], %b: f32[8]) -> (f32[4,8]) {
  %e: f32[8] = exp(%b)
  %eb: f32[4,8] = broadcast_in_dim[shape=[4,8], dims=[1]](%e)
  %y: f32[4,8] = add(%x, %eb)
  return %y
}
; fuse:
; func @f(%0: f32[4,8], %1: f32[8]) -> (f32[4,8]) {
;   %2: f32[8] = call[func=@f_k0](%1)
;   %3: f32[4,8] = call[func=@f_k1](%2, %0)
;   return %3
; }
;
; func @f_k0[kind="fusion"](%0: f32[8]) -> (f32[8]) {
;   %1: f32[8] = exp(%0)
;   return %1
; }
;
; func @f_k1[kind="fusion"](%0: f32[8], %1: f32[4,8]) -> (f32[4,8]) {
;   %2: f32[4,8] = broadcast_in_dim[shape=[4,8], dims=[1]](%0)
;   %3: f32[4,8] = add(%1, %2)
;   return %3
; }
; launches: 2
