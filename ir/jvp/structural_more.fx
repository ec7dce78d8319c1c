; More structural rules (the same primitive on the tangents): a crop by negative padding with interior padding, a
; three-way concatenate along axis 1, a 3-d transpose, reversal along two axes, a
; broadcast expanding a size-1 axis, reduce_min and a reverse cumsum.
func @f(%x: f64[2,3], %y: f64[2,1], %z: f64[]) -> (f64[2,4], f64[3,2], f64[2], f64[2,3]) {
  %p: f64[2,4] = pad[low=[0,-1], high=[0,0], interior=[0,1]](%x, %z)
  %yb: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[0,1]](%y)
  %c: f64[2,7] = concatenate[axis=1](%x, %y, %yb)
  %s: f64[2,6] = slice[start=[0,1], limit=[2,7]](%c)
  %r: f64[2,3,2] = reshape[shape=[2,3,2]](%s)
  %t: f64[3,2,2] = transpose[perm=[1,2,0]](%r)
  %v: f64[3,2,2] = rev[axes=[0,2]](%t)
  %u: f64[3,2] = reduce_sum[axes=[2]](%v)
  %m: f64[2] = reduce_min[axes=[1]](%x)
  %q: f64[2,3] = cumsum[axis=1, reverse=true](%yb)
  %w: f64[2,3] = mul(%q, %x)
  return %p, %u, %m, %w
}
; jvp:
; func @f_jvp(%0: f64[2,3], %1: f64[2,1], %2: f64[], %3: f64[2,3], %4: f64[2,1], %5: f64[]) -> (f64[2,4], f64[3,2], f64[2], f64[2,3], f64[2,4], f64[3,2], f64[2], f64[2,3]) {
;   %6: f64[2,4] = pad[low=[0,-1], high=[0,0], interior=[0,1]](%0, %2)
;   %7: f64[2,4] = pad[low=[0,-1], high=[0,0], interior=[0,1]](%3, %5)
;   %8: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[0,1]](%1)
;   %9: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[0,1]](%4)
;   %10: f64[2,7] = concatenate[axis=1](%0, %1, %8)
;   %11: f64[2,7] = concatenate[axis=1](%3, %4, %9)
;   %12: f64[2,6] = slice[start=[0,1], limit=[2,7], strides=[1,1]](%10)
;   %13: f64[2,6] = slice[start=[0,1], limit=[2,7], strides=[1,1]](%11)
;   %14: f64[2,3,2] = reshape[shape=[2,3,2]](%12)
;   %15: f64[2,3,2] = reshape[shape=[2,3,2]](%13)
;   %16: f64[3,2,2] = transpose[perm=[1,2,0]](%14)
;   %17: f64[3,2,2] = transpose[perm=[1,2,0]](%15)
;   %18: f64[3,2,2] = rev[axes=[0,2]](%16)
;   %19: f64[3,2,2] = rev[axes=[0,2]](%17)
;   %20: f64[3,2] = reduce_sum[axes=[2]](%18)
;   %21: f64[3,2] = reduce_sum[axes=[2]](%19)
;   %22: f64[2] = reduce_min[axes=[1]](%0)
;   %23: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[0]](%22)
;   %24: bool[2,3] = eq(%0, %23)
;   %25: f64[2,3] = convert[dtype=f64](%24)
;   %26: f64[2] = reduce_sum[axes=[1]](%25)
;   %27: f64[2,3] = mul(%3, %25)
;   %28: f64[2] = reduce_sum[axes=[1]](%27)
;   %29: f64[2] = div(%28, %26)
;   %30: f64[2,3] = cumsum[axis=1, reverse=true](%8)
;   %31: f64[2,3] = cumsum[axis=1, reverse=true](%9)
;   %32: f64[2,3] = mul(%30, %0)
;   %33: f64[2,3] = mul(%31, %0)
;   %34: f64[2,3] = mul(%3, %30)
;   %35: f64[2,3] = add(%33, %34)
;   return %6, %20, %22, %32, %7, %21, %29, %35
; }
