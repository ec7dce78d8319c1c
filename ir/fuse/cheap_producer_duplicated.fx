; A cheap producer read by two kernels (and by no launch) is copied into both,
; recomputed instead of written to a buffer: x*x feeds a column sum and an
; elementwise result.
func @f(%x: f32[4,8]) -> (f32[8], f32[4,8]) {
  %c: f32[4,8] = mul(%x, %x)
  %s0: f32[8] = reduce_sum[axes=[0]](%c)
  %one: f32[4,8] = constant[value=1.0]()
  %y: f32[4,8] = add(%c, %one)
  return %s0, %y
}
; fuse:
; func @f(%0: f32[4,8]) -> (f32[8], f32[4,8]) {
;   %1: f32[8] = call[func=@f_k0](%0)
;   %2: f32[4,8] = call[func=@f_k1](%0)
;   return %1, %2
; }
;
; func @f_k0[kind="fusion"](%0: f32[4,8]) -> (f32[8]) {
;   %1: f32[4,8] = mul(%0, %0)
;   %2: f32[8] = reduce_sum[axes=[0]](%1)
;   return %2
; }
;
; func @f_k1[kind="fusion"](%0: f32[4,8]) -> (f32[4,8]) {
;   %1: f32[4,8] = mul(%0, %0)
;   %2: f32[4,8] = constant[value=1.0]()
;   %3: f32[4,8] = add(%1, %2)
;   return %3
; }
; launches: 2
