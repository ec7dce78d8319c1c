; Not duplicated: exp(x) feeds two reductions (two kernels). It is computed once, in
; the kernel of the later reduction, and written out as a second result for the other.
func @f(%x: f32[4,8]) -> (f32[4], f32[4]) {
  %e: f32[4,8] = exp(%x)
  %s: f32[4] = reduce_sum[axes=[1]](%e)
  %t: f32[4,8] = mul(%e, %x)
  %m: f32[4] = reduce_prod[axes=[1]](%t)
  return %s, %m
}
; fuse:
; func @f(%0: f32[4,8]) -> (f32[4], f32[4]) {
;   %1: f32[4,8], %2: f32[4] = call[func=@f_k0](%0)
;   %3: f32[4] = call[func=@f_k1](%1)
;   return %3, %2
; }
;
; func @f_k0[kind="fusion"](%0: f32[4,8]) -> (f32[4,8], f32[4]) {
;   %1: f32[4,8] = exp(%0)
;   %2: f32[4,8] = mul(%1, %0)
;   %3: f32[4] = reduce_prod[axes=[1]](%2)
;   return %1, %3
; }
;
; func @f_k1[kind="fusion"](%0: f32[4,8]) -> (f32[4]) {
;   %1: f32[4] = reduce_sum[axes=[1]](%0)
;   return %1
; }
; launches: 2
