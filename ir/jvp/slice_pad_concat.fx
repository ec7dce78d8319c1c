; Structural primitives are linear: the tangent goes through the same slice, pad
; (with the pad value's tangent), concatenate, rev, reshape and transpose.
func @f(%x: f64[4], %z: f64[]) -> (f64[3,2]) {
  %a: f64[2] = slice[start=[1], limit=[4], strides=[2]](%x)
  %b: f64[5] = pad[low=[1], high=[1], interior=[1]](%a, %z)
  %r: f64[4] = rev[axes=[0]](%x)
  %s: f64[1] = slice[start=[0], limit=[1]](%r)
  %c: f64[6] = concatenate[axis=0](%b, %s)
  %m: f64[2,3] = reshape[shape=[2,3]](%c)
  %t: f64[3,2] = transpose[perm=[1,0]](%m)
  return %t
}
; jvp:
; func @f_jvp(%0: f64[4], %1: f64[], %2: f64[4], %3: f64[]) -> (f64[3,2], f64[3,2]) {
;   %4: f64[2] = slice[start=[1], limit=[4], strides=[2]](%0)
;   %5: f64[2] = slice[start=[1], limit=[4], strides=[2]](%2)
;   %6: f64[5] = pad[low=[1], high=[1], interior=[1]](%4, %1)
;   %7: f64[5] = pad[low=[1], high=[1], interior=[1]](%5, %3)
;   %8: f64[4] = rev[axes=[0]](%0)
;   %9: f64[4] = rev[axes=[0]](%2)
;   %10: f64[1] = slice[start=[0], limit=[1], strides=[1]](%8)
;   %11: f64[1] = slice[start=[0], limit=[1], strides=[1]](%9)
;   %12: f64[6] = concatenate[axis=0](%6, %10)
;   %13: f64[6] = concatenate[axis=0](%7, %11)
;   %14: f64[2,3] = reshape[shape=[2,3]](%12)
;   %15: f64[2,3] = reshape[shape=[2,3]](%13)
;   %16: f64[3,2] = transpose[perm=[1,0]](%14)
;   %17: f64[3,2] = transpose[perm=[1,0]](%15)
;   return %16, %17
; }
