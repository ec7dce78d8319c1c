; A reduction with its elementwise producers and its epilogue on the reduced shape
; (sum / n, then rsqrt(var + eps)) is one kernel.
func @f(%x: f32[4,8]) -> (f32[4]) {
  %sq: f32[4,8] = mul(%x, %x)
  %s: f32[4] = reduce_sum[axes=[1]](%sq)
  %n: f32[4] = constant[value=8.0]()
  %var: f32[4] = div(%s, %n)
  %eps: f32[4] = constant[value=1e-5]()
  %v: f32[4] = add(%var, %eps)
  %r: f32[4] = rsqrt(%v)
  return %r
}
; fuse:
; func @f(%0: f32[4,8]) -> (f32[4]) {
;   %1: f32[4] = call[func=@f_k0](%0)
;   return %1
; }
;
; func @f_k0[kind="fusion"](%0: f32[4,8]) -> (f32[4]) {
;   %1: f32[4,8] = mul(%0, %0)
;   %2: f32[4] = reduce_sum[axes=[1]](%1)
;   %3: f32[4] = constant[value=8.0]()
;   %4: f32[4] = div(%2, %3)
;   %5: f32[4] = constant[value=1e-5]()
;   %6: f32[4] = add(%4, %5)
;   %7: f32[4] = rsqrt(%6)
;   return %7
; }
; launches: 1
