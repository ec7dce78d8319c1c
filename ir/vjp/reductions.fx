; Reductions: reduce_sum transposes to broadcast_in_dim; reduce_max and reduce_prod
; are linear in the tangent once their weights are residuals; cumsum transposes to a
; reverse cumsum.
func @f(%x: f64[2,3]) -> (f64[2], f64[3], f64[], f64[2,3]) {
  %s: f64[2] = reduce_sum[axes=[1]](%x)
  %m: f64[3] = reduce_max[axes=[0]](%x)
  %p: f64[] = reduce_prod[axes=[0,1]](%x)
  %c: f64[2,3] = cumsum[axis=1](%x)
  return %s, %m, %p, %c
}
; vjp:
; func @f_vjp(%0: f64[2,3], %1: f64[2], %2: f64[3], %3: f64[], %4: f64[2,3]) -> (f64[2], f64[3], f64[], f64[2,3], f64[2,3]) {
;   %5: f64[2] = reduce_sum[axes=[1]](%0)
;   %6: f64[3] = reduce_max[axes=[0]](%0)
;   %7: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%6)
;   %8: bool[2,3] = eq(%0, %7)
;   %9: f64[2,3] = convert[dtype=f64](%8)
;   %10: f64[3] = reduce_sum[axes=[0]](%9)
;   %11: f64[] = reduce_prod[axes=[0,1]](%0)
;   %12: f64[2,3] = constant[value=0.0]()
;   %13: f64[2,3] = constant[value=1.0]()
;   %14: bool[2,3] = eq(%0, %12)
;   %15: f64[2,3] = select(%14, %13, %0)
;   %16: f64[] = reduce_prod[axes=[0,1]](%15)
;   %17: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%16)
;   %18: f64[2,3] = div(%17, %15)
;   %19: f64[2,3] = convert[dtype=f64](%14)
;   %20: f64[] = reduce_sum[axes=[0,1]](%19)
;   %21: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%20)
;   %22: f64[2,3] = sub(%21, %19)
;   %23: f64[2,3] = select(%14, %0, %12)
;   %24: f64[] = reduce_sum[axes=[0,1]](%23)
;   %25: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%24)
;   %26: f64[2,3] = sub(%25, %23)
;   %27: bool[2,3] = eq(%22, %12)
;   %28: f64[2,3] = convert[dtype=f64](%27)
;   %29: f64[2,3] = add(%28, %26)
;   %30: f64[2,3] = mul(%18, %29)
;   %31: bool[2,3] = lt(%13, %22)
;   %32: f64[2,3] = select(%31, %12, %30)
;   %33: f64[2,3] = cumsum[axis=1, reverse=false](%0)
;   %34: f64[2,3] = cumsum[axis=1, reverse=true](%4)
;   %35: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%3)
;   %36: f64[2,3] = mul(%35, %32)
;   %37: f64[2,3] = add(%34, %36)
;   %38: f64[3] = div(%2, %10)
;   %39: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%38)
;   %40: f64[2,3] = mul(%39, %9)
;   %41: f64[2,3] = add(%37, %40)
;   %42: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[0]](%1)
;   %43: f64[2,3] = add(%41, %42)
;   return %5, %6, %11, %33, %43
; }
