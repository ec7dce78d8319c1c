; Reductions: a sum is linear; max picks the tangent at the maximum (no ties at the
; drawn point); a product's tangent is a sum of products of the others; cumsum is
; linear along its axis.
func @f(%x: f64[2,3]) -> (f64[2], f64[3], f64[], f64[2,3]) {
  %s: f64[2] = reduce_sum[axes=[1]](%x)
  %m: f64[3] = reduce_max[axes=[0]](%x)
  %p: f64[] = reduce_prod[axes=[0,1]](%x)
  %c: f64[2,3] = cumsum[axis=1](%x)
  return %s, %m, %p, %c
}
; jvp:
; func @f_jvp(%0: f64[2,3], %1: f64[2,3]) -> (f64[2], f64[3], f64[], f64[2,3], f64[2], f64[3], f64[], f64[2,3]) {
;   %2: f64[2] = reduce_sum[axes=[1]](%0)
;   %3: f64[2] = reduce_sum[axes=[1]](%1)
;   %4: f64[3] = reduce_max[axes=[0]](%0)
;   %5: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%4)
;   %6: bool[2,3] = eq(%0, %5)
;   %7: f64[2,3] = convert[dtype=f64](%6)
;   %8: f64[3] = reduce_sum[axes=[0]](%7)
;   %9: f64[2,3] = mul(%1, %7)
;   %10: f64[3] = reduce_sum[axes=[0]](%9)
;   %11: f64[3] = div(%10, %8)
;   %12: f64[] = reduce_prod[axes=[0,1]](%0)
;   %13: f64[2,3] = constant[value=0.0]()
;   %14: f64[2,3] = constant[value=1.0]()
;   %15: bool[2,3] = eq(%0, %13)
;   %16: f64[2,3] = select(%15, %14, %0)
;   %17: f64[] = reduce_prod[axes=[0,1]](%16)
;   %18: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%17)
;   %19: f64[2,3] = div(%18, %16)
;   %20: f64[2,3] = convert[dtype=f64](%15)
;   %21: f64[] = reduce_sum[axes=[0,1]](%20)
;   %22: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%21)
;   %23: f64[2,3] = sub(%22, %20)
;   %24: f64[2,3] = select(%15, %0, %13)
;   %25: f64[] = reduce_sum[axes=[0,1]](%24)
;   %26: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%25)
;   %27: f64[2,3] = sub(%26, %24)
;   %28: bool[2,3] = eq(%23, %13)
;   %29: f64[2,3] = convert[dtype=f64](%28)
;   %30: f64[2,3] = add(%29, %27)
;   %31: f64[2,3] = mul(%19, %30)
;   %32: bool[2,3] = lt(%14, %23)
;   %33: f64[2,3] = select(%32, %13, %31)
;   %34: f64[2,3] = mul(%1, %33)
;   %35: f64[] = reduce_sum[axes=[0,1]](%34)
;   %36: f64[2,3] = cumsum[axis=1, reverse=false](%0)
;   %37: f64[2,3] = cumsum[axis=1, reverse=false](%1)
;   return %2, %4, %12, %36, %3, %11, %35, %37
; }
