; Shape-changing views (transpose, reshape, slice, pad, rev) become index arithmetic
; inside one kernel, never copies.
func @f(%x: f32[4,6], %y: f32[24]) -> (f32[24]) {
  %t: f32[6,4] = transpose[perm=[1, 0]](%x)
  %r: f32[24] = reshape[shape=[24]](%t)
  %s: f32[22] = slice[start=[1], limit=[23], strides=[1]](%r)
  %z: f32[] = constant[value=0.0]()
  %p: f32[24] = pad[low=[1], high=[1], interior=[0]](%s, %z)
  %v: f32[24] = rev[axes=[0]](%p)
  %o: f32[24] = mul(%v, %y)
  return %o
}
; fuse:
; func @f(%0: f32[4,6], %1: f32[24]) -> (f32[24]) {
;   %2: f32[24] = call[func=@f_k0](%0, %1)
;   return %2
; }
;
; func @f_k0[kind="fusion"](%0: f32[4,6], %1: f32[24]) -> (f32[24]) {
;   %2: f32[6,4] = transpose[perm=[1,0]](%0)
;   %3: f32[24] = reshape[shape=[24]](%2)
;   %4: f32[22] = slice[start=[1], limit=[23], strides=[1]](%3)
;   %5: f32[] = constant[value=0.0]()
;   %6: f32[24] = pad[low=[1], high=[1], interior=[0]](%4, %5)
;   %7: f32[24] = rev[axes=[0]](%6)
;   %8: f32[24] = mul(%7, %1)
;   return %8
; }
; launches: 1
