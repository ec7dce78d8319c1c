; The transpose of broadcast_in_dim is reduce_sum over the broadcast axes: the
; cotangent of the bias row sums over the batch, that of the scalar over both axes.
func @f(%x: f64[2,3], %b: f64[3], %s: f64[]) -> (f64[2,3]) {
  %bb: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%b)
  %ss: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%s)
  %z: f64[2,3] = add(%x, %bb)
  %y: f64[2,3] = mul(%z, %ss)
  return %y
}
; vjp:
; func @f_vjp(%0: f64[2,3], %1: f64[3], %2: f64[], %3: f64[2,3]) -> (f64[2,3], f64[2,3], f64[3], f64[]) {
;   %4: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%1)
;   %5: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%2)
;   %6: f64[2,3] = add(%0, %4)
;   %7: f64[2,3] = mul(%6, %5)
;   %8: f64[2,3] = mul(%3, %6)
;   %9: f64[2,3] = mul(%3, %5)
;   %10: f64[] = reduce_sum[axes=[0,1]](%8)
;   %11: f64[3] = reduce_sum[axes=[0]](%9)
;   return %7, %9, %11, %10
; }
