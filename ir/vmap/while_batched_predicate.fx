; A while loop whose bound varies per example: it runs until every lane is done, and
; finished lanes keep their carry.
func @f(%n: i32[], %x: f64[]) -> (i32[], f64[]) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %m: i32[], %y: f64[] = while[cond=@c, body=@b](%zero, %n, %x)
  return %i, %y
}
; in_axes: 0,none
; axis_size: 3
; in: i32[3] = [0, 3, 1]
; in: f64[] = [2.0]
; vmap:
; func @f_vmap(%0: i32[3], %1: f64[]) -> (i32[3], f64[3]) {
;   %2: i32[] = constant[value=0]()
;   %3: i32[3] = broadcast_in_dim[shape=[3], dims=[]](%2)
;   %4: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%1)
;   %5: i32[3], %6: i32[3], %7: f64[3] = while[cond=@c_any, body=@b_masked, max_iters=none](%3, %0, %4)
;   return %5, %7
; }
;
; func @c_any(%0: i32[3], %1: i32[3], %2: f64[3]) -> (bool[]) {
;   %3: bool[3] = call[func=@c_vmap_2](%0, %1)
;   %4: i32[3] = convert[dtype=i32](%3)
;   %5: i32[] = reduce_max[axes=[0]](%4)
;   %6: i32[] = constant[value=0]()
;   %7: bool[] = gt(%5, %6)
;   return %7
; }
;
; func @b_masked(%0: i32[3], %1: i32[3], %2: f64[3]) -> (i32[3], i32[3], f64[3]) {
;   %3: bool[3] = call[func=@c_vmap_2](%0, %1)
;   %4: f64[3] = stop_gradient(%2)
;   %5: f64[3] = select(%3, %2, %4)
;   %6: i32[3], %7: i32[3], %8: f64[3] = call[func=@b_vmap_2](%0, %1, %5)
;   %9: i32[3] = select(%3, %6, %0)
;   %10: i32[3] = select(%3, %7, %1)
;   %11: f64[3] = select(%3, %8, %2)
;   return %9, %10, %11
; }
;
; func @c_vmap_2(%0: i32[3], %1: i32[3]) -> (bool[3]) {
;   %2: bool[3] = lt(%0, %1)
;   return %2
; }
;
; func @b_vmap_2(%0: i32[3], %1: i32[3], %2: f64[3]) -> (i32[3], i32[3], f64[3]) {
;   %3: i32[] = constant[value=1]()
;   %4: i32[3] = broadcast_in_dim[shape=[3], dims=[]](%3)
;   %5: i32[3] = add(%0, %4)
;   %6: f64[] = constant[value=1.5]()
;   %7: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%6)
;   %8: f64[3] = mul(%2, %7)
;   return %5, %1, %8
; }
func @c(%i: i32[], %n: i32[], %y: f64[]) -> (bool[]) {
  %p: bool[] = lt(%i, %n)
  return %p
}
func @b(%i: i32[], %n: i32[], %y: f64[]) -> (i32[], i32[], f64[]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %h: f64[] = constant[value=1.5]()
  %u: f64[] = mul(%y, %h)
  return %j, %n, %u
}
