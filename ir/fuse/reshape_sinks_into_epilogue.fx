; log(reshape(sum)) as log-softmax writes it: the reshape (adding a unit axis) moves
; below the log, which then is an elementwise epilogue on the reduced shape and fuses
; into the reduction's kernel; the reshape is index arithmetic in the reader.
func @f(%x: f32[4,6]) -> (f32[4,6]) {
  %e: f32[4,6] = exp(%x)
  %s: f32[4] = reduce_sum[axes=[1]](%e)
  %r: f32[4,1] = reshape[shape=[4,1]](%s)
  %l: f32[4,1] = log(%r)
  %lb: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[0,1]](%l)
  %y: f32[4,6] = sub(%x, %lb)
  return %y
}
; fuse:
; func @f(%0: f32[4,6]) -> (f32[4,6]) {
;   %1: f32[4] = call[func=@f_k0](%0)
;   %2: f32[4,6] = call[func=@f_k1](%1, %0)
;   return %2
; }
;
; func @f_k0[kind="fusion"](%0: f32[4,6]) -> (f32[4]) {
;   %1: f32[4,6] = exp(%0)
;   %2: f32[4] = reduce_sum[axes=[1]](%1)
;   %3: f32[4] = log(%2)
;   return %3
; }
;
; func @f_k1[kind="fusion"](%0: f32[4], %1: f32[4,6]) -> (f32[4,6]) {
;   %2: f32[4,1] = reshape[shape=[4,1]](%0)
;   %3: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[0,1]](%2)
;   %4: f32[4,6] = sub(%1, %3)
;   return %4
; }
; launches: 2
