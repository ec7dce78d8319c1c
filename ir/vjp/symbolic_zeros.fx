; Symbolic zero cotangents: only %x is differentiated (wrt 0). No cotangent is
; computed for %w, for the integer %n and its output, or behind stop_gradient (the
; stable log-sum-exp's shift, which does not change the value).
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
; vjp:
; func @f_vjp(%0: f64[3], %1: f64[3], %2: i32[], %3: f64[]) -> (f64[], i32[], f64[3]) {
;   %4: f64[] = reduce_max[axes=[0]](%0)
;   %5: f64[] = stop_gradient(%4)
;   %6: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%5)
;   %7: f64[3] = sub(%0, %6)
;   %8: f64[3] = exp(%7)
;   %9: f64[] = reduce_sum[axes=[0]](%8)
;   %10: f64[] = log(%9)
;   %11: f64[] = add(%10, %5)
;   %12: f64[] = convert[dtype=f64](%2)
;   %13: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%12)
;   %14: f64[3] = mul(%1, %13)
;   %15: f64[3] = exp(%14)
;   %16: f64[] = reduce_sum[axes=[0]](%15)
;   %17: f64[] = mul(%11, %16)
;   %18: i32[] = mul(%2, %2)
;   %19: f64[] = mul(%3, %16)
;   %20: f64[] = div(%19, %9)
;   %21: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%20)
;   %22: f64[3] = mul(%21, %8)
;   return %17, %18, %22
; }
