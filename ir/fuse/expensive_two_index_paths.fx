; Not fused: exp(x) read at two different indices (itself and its reverse) would be
; evaluated twice per element, so it is written to a buffer by its own kernel.
func @f(%x: f32[8]) -> (f32[8]) {
  %e: f32[8] = exp(%x)
  %r: f32[8] = rev[axes=[0]](%e)
  %y: f32[8] = add(%e, %r)
  return %y
}
; fuse:
; func @f(%0: f32[8]) -> (f32[8]) {
;   %1: f32[8] = call[func=@f_k0](%0)
;   %2: f32[8] = call[func=@f_k1](%1)
;   return %2
; }
;
; func @f_k0[kind="fusion"](%0: f32[8]) -> (f32[8]) {
;   %1: f32[8] = exp(%0)
;   return %1
; }
;
; func @f_k1[kind="fusion"](%0: f32[8]) -> (f32[8]) {
;   %1: f32[8] = rev[axes=[0]](%0)
;   %2: f32[8] = add(%0, %1)
;   return %2
; }
; launches: 2
