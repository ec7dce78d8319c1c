; Symbolic zero tangents: only %x is differentiated (wrt 0). Nothing is emitted for
; %w, for the integer %n, or behind stop_gradient. The stop_gradient is the usual
; shift of a stable log-sum-exp, whose value does not depend on the shift, so the
; derivative is exact without the shift's tangent.
func @f(%x: f64[3], %w: f64[3], %n: i32[]) -> (f64[], i32[]) {
  %m: f64[] = reduce_max[axes=[0]](%x)
  %ms: f64[] = stop_gradient(%m)
  %mb: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%ms)
  %d: f64[3] = sub(%x, %mb)
  %e: f64[3] = exp(%d)
  %s: f64[] = reduce_sum[axes=[0]](%e)
  %l: f64[] = log(%s)
  %lse: f64[] = add(%l, %ms)
  %nf: f64[] = convert[dtype=f64](%n)
  %nb: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%nf)
  %wn: f64[3] = mul(%w, %nb)
  %ew: f64[3] = exp(%wn)
  %c: f64[] = reduce_sum[axes=[0]](%ew)
  %y: f64[] = mul(%lse, %c)
  %k: i32[] = mul(%n, %n)
  return %y, %k
}
; wrt: 0
; in: f64[3] = [0.5, -1.0, 2.0]
; in: f64[3] = [0.25, 0.5, -0.75]
; in: i32[] = [2]
; jvp:
; func @f_jvp(%0: f64[3], %1: f64[3], %2: i32[], %3: f64[3]) -> (f64[], i32[], f64[]) {
;   %4: f64[] = reduce_max[axes=[0]](%0)
;   %5: f64[] = stop_gradient(%4)
;   %6: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%5)
;   %7: f64[3] = sub(%0, %6)
;   %8: f64[3] = exp(%7)
;   %9: f64[3] = mul(%3, %8)
;   %10: f64[] = reduce_sum[axes=[0]](%8)
;   %11: f64[] = reduce_sum[axes=[0]](%9)
;   %12: f64[] = log(%10)
;   %13: f64[] = div(%11, %10)
;   %14: f64[] = add(%12, %5)
;   %15: f64[] = convert[dtype=f64](%2)
;   %16: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%15)
;   %17: f64[3] = mul(%1, %16)
;   %18: f64[3] = exp(%17)
;   %19: f64[] = reduce_sum[axes=[0]](%18)
;   %20: f64[] = mul(%14, %19)
;   %21: f64[] = mul(%13, %19)
;   %22: i32[] = mul(%2, %2)
;   return %20, %22, %21
; }
