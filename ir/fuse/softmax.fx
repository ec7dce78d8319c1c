; Softmax: the logits feed both max(x) and exp(x - max). They are computed once
; (written out by the max kernel), never copied into the second kernel; exp(x - max) is
; written out by the sum kernel and divided in the third.
func @f(%x: f32[4,6], %b: f32[6]) -> (f32[4,6]) {
  %bb: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[1]](%b)
  %l: f32[4,6] = add(%x, %bb)
  %m: f32[4] = reduce_max[axes=[1]](%l)
  %mb: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[0]](%m)
  %d: f32[4,6] = sub(%l, %mb)
  %e: f32[4,6] = exp(%d)
  %s: f32[4] = reduce_sum[axes=[1]](%e)
  %sb: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[0]](%s)
  %y: f32[4,6] = div(%e, %sb)
  return %y
}
; fuse:
; func @f(%0: f32[4,6], %1: f32[6]) -> (f32[4,6]) {
;   %2: f32[4,6], %3: f32[4] = call[func=@f_k0](%1, %0)
;   %4: f32[4,6], %5: f32[4] = call[func=@f_k1](%3, %2)
;   %6: f32[4,6] = call[func=@f_k2](%5, %4)
;   return %6
; }
;
; func @f_k0[kind="fusion"](%0: f32[6], %1: f32[4,6]) -> (f32[4,6], f32[4]) {
;   %2: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[1]](%0)
;   %3: f32[4,6] = add(%1, %2)
;   %4: f32[4] = reduce_max[axes=[1]](%3)
;   return %3, %4
; }
;
; func @f_k1[kind="fusion"](%0: f32[4], %1: f32[4,6]) -> (f32[4,6], f32[4]) {
;   %2: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[0]](%0)
;   %3: f32[4,6] = sub(%1, %2)
;   %4: f32[4,6] = exp(%3)
;   %5: f32[4] = reduce_sum[axes=[1]](%4)
;   return %4, %5
; }
;
; func @f_k2[kind="fusion"](%0: f32[4], %1: f32[4,6]) -> (f32[4,6]) {
;   %2: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[0]](%0)
;   %3: f32[4,6] = div(%1, %2)
;   return %3
; }
; launches: 3
