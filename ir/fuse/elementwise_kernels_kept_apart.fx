; Not merged: the second kernel reads exp(x) through `rev`, at another index than its loop
; index, so the two kernels of one shape stay apart (merged, exp would be computed twice
; per element, or its buffer written anyway).
func @f(%x: f32[9]) -> (f32[9], f32[9]) {
  %e: f32[9] = exp(%x)
  %r: f32[9] = rev[axes=[0]](%e)
  %d: f32[9] = add(%r, %x)
  return %d, %e
}
; fuse:
; func @f(%0: f32[9]) -> (f32[9], f32[9]) {
;   %1: f32[9] = call[func=@f_k0](%0)
;   %2: f32[9] = call[func=@f_k1](%1, %0)
;   return %2, %1
; }
;
; func @f_k0[kind="fusion"](%0: f32[9]) -> (f32[9]) {
;   %1: f32[9] = exp(%0)
;   return %1
; }
;
; func @f_k1[kind="fusion"](%0: f32[9], %1: f32[9]) -> (f32[9]) {
;   %2: f32[9] = rev[axes=[0]](%0)
;   %3: f32[9] = add(%2, %1)
;   return %3
; }
