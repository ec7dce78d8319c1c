; The structural transposes: slice writes its cotangent into a zero operand-sized
; buffer (a pad), pad slices it back out (and its pad value gets the sum of the
; padding's cotangents), concatenate splits it, rev, reshape and transpose invert.
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
; vjp:
; func @f_vjp(%0: f64[4], %1: f64[], %2: f64[3,2]) -> (f64[3,2], f64[4], f64[]) {
;   %3: f64[2] = slice[start=[1], limit=[4], strides=[2]](%0)
;   %4: f64[5] = pad[low=[1], high=[1], interior=[1]](%3, %1)
;   %5: f64[4] = rev[axes=[0]](%0)
;   %6: f64[1] = slice[start=[0], limit=[1], strides=[1]](%5)
;   %7: f64[6] = concatenate[axis=0](%4, %6)
;   %8: f64[2,3] = reshape[shape=[2,3]](%7)
;   %9: f64[3,2] = transpose[perm=[1,0]](%8)
;   %10: f64[2,3] = transpose[perm=[1,0]](%2)
;   %11: f64[6] = reshape[shape=[6]](%10)
;   %12: f64[5] = slice[start=[0], limit=[5], strides=[1]](%11)
;   %13: f64[1] = slice[start=[5], limit=[6], strides=[1]](%11)
;   %14: f64[] = constant[value=0.0]()
;   %15: f64[4] = pad[low=[0], high=[3], interior=[0]](%13, %14)
;   %16: f64[4] = rev[axes=[0]](%15)
;   %17: f64[2] = slice[start=[1], limit=[4], strides=[2]](%12)
;   %18: f64[] = reduce_sum[axes=[0]](%12)
;   %19: f64[] = reduce_sum[axes=[0]](%17)
;   %20: f64[] = sub(%18, %19)
;   %21: f64[4] = pad[low=[1], high=[0], interior=[1]](%17, %14)
;   %22: f64[4] = add(%16, %21)
;   return %9, %22, %20
; }
