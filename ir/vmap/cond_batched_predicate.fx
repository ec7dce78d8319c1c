; A cond whose predicate varies per example: both branches run, then a select.
func @f(%x: f64[2], %w: f64[]) -> (f64[2]) {
  %s: f64[] = reduce_sum[axes=[0]](%x)
  %z: f64[] = constant[value=0]()
  %p: bool[] = gt(%s, %z)
  %y: f64[2] = cond[branches=[@neg, @pos]](%p, %x, %w)
  return %y
}
; in_axes: 0,none
; axis_size: 3
; in: f64[3,2] = [1.0, 0.5, -1.0, -0.5, 0.25, -2.0]
; in: f64[] = [3.0]
; vmap:
; func @f_vmap(%0: f64[3,2], %1: f64[]) -> (f64[3,2]) {
;   %2: f64[3] = reduce_sum[axes=[1]](%0)
;   %3: f64[] = constant[value=0.0]()
;   %4: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%3)
;   %5: bool[3] = gt(%2, %4)
;   %6: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%1)
;   %7: i32[3] = convert[dtype=i32](%5)
;   %8: i32[3] = constant[value=0]()
;   %9: bool[3] = eq(%7, %8)
;   %10: bool[3,2] = broadcast_in_dim[shape=[3,2], dims=[0]](%9)
;   %11: f64[3,2] = stop_gradient(%0)
;   %12: f64[3,2] = select(%10, %0, %11)
;   %13: f64[3,2] = call[func=@neg_vmap](%12)
;   %14: i32[3] = constant[value=1]()
;   %15: bool[3] = eq(%7, %14)
;   %16: bool[3,2] = broadcast_in_dim[shape=[3,2], dims=[0]](%15)
;   %17: f64[3,2] = stop_gradient(%0)
;   %18: f64[3,2] = select(%16, %0, %17)
;   %19: f64[3] = stop_gradient(%6)
;   %20: f64[3] = select(%15, %6, %19)
;   %21: f64[3,2] = call[func=@pos_vmap](%18, %20)
;   %22: bool[3,2] = broadcast_in_dim[shape=[3,2], dims=[0]](%15)
;   %23: f64[3,2] = select(%22, %21, %13)
;   return %23
; }
;
; func @neg_vmap(%0: f64[3,2]) -> (f64[3,2]) {
;   %1: f64[3,2] = exp(%0)
;   return %1
; }
;
; func @pos_vmap(%0: f64[3,2], %1: f64[3]) -> (f64[3,2]) {
;   %2: f64[3,2] = broadcast_in_dim[shape=[3,2], dims=[0]](%1)
;   %3: f64[3,2] = mul(%0, %2)
;   return %3
; }
func @neg(%x: f64[2], %w: f64[]) -> (f64[2]) {
  %e: f64[2] = exp(%x)
  return %e
}
func @pos(%x: f64[2], %w: f64[]) -> (f64[2]) {
  %b: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%w)
  %l: f64[2] = mul(%x, %b)
  return %l
}
