; while with max_iters=4 in reverse mode: a scan of 4 steps carrying an active flag,
; each a cond that runs the body while the predicate has held; x <- x * sin(x) + x
; while x < 3.
func @f(%x: f64[]) -> (f64[]) {
  %y: f64[] = while[cond=@small, body=@grow, max_iters=4](%x)
  return %y
}
; in: f64[] = [1.2]
; vjp:
; func @f_vjp(%0: f64[], %1: f64[]) -> (f64[], f64[]) {
;   %2: bool[] = constant[value=true]()
;   %3: bool[], %4: f64[], %5: bool[4], %6: f64[4], %7: f64[4], %8: f64[4] = scan[body=@grow_jvp_bounded_known, length=4, num_consts=0, num_carry=2, reverse=false, checkpoint=none](%2, %0)
;   %9: f64[] = scan[body=@grow_jvp_bounded_linear_transpose, length=4, num_consts=0, num_carry=1, reverse=true, checkpoint=none](%1, %5, %6, %7, %8)
;   return %4, %9
; }
;
; func @grow_jvp_bounded_known(%0: bool[], %1: f64[]) -> (bool[], f64[], bool[], f64[], f64[], f64[]) {
;   %2: f64[] = constant[value=3.0]()
;   %3: bool[] = lt(%1, %2)
;   %4: bool[] = and(%0, %3)
;   %5: f64[], %6: f64[], %7: f64[], %8: f64[] = cond[branches=[@grow_jvp_done_known,@grow_jvp_known]](%4, %1)
;   return %4, %5, %4, %6, %7, %8
; }
;
; func @grow_jvp_bounded_linear_transpose(%0: f64[], %1: bool[], %2: f64[], %3: f64[], %4: f64[]) -> (f64[]) {
;   %5: f64[] = cond[branches=[@grow_jvp_done_linear_transpose,@grow_jvp_linear_transpose]](%1, %2, %3, %4, %0)
;   return %5
; }
;
; func @grow_jvp_done_known(%0: f64[]) -> (f64[], f64[], f64[], f64[]) {
;   %1: f64[] = constant[value=0.0]()
;   return %0, %1, %1, %1
; }
;
; func @grow_jvp_known(%0: f64[]) -> (f64[], f64[], f64[], f64[]) {
;   %1: f64[] = sin(%0)
;   %2: f64[] = cos(%0)
;   %3: f64[] = mul(%0, %1)
;   %4: f64[] = add(%3, %0)
;   return %4, %2, %1, %0
; }
;
; func @grow_jvp_done_linear_transpose(%0: f64[], %1: f64[], %2: f64[], %3: f64[]) -> (f64[]) {
;   return %3
; }
;
; func @grow_jvp_linear_transpose(%0: f64[], %1: f64[], %2: f64[], %3: f64[]) -> (f64[]) {
;   %4: f64[] = mul(%3, %2)
;   %5: f64[] = mul(%3, %1)
;   %6: f64[] = add(%3, %5)
;   %7: f64[] = mul(%4, %0)
;   %8: f64[] = add(%6, %7)
;   return %8
; }

func @small(%x: f64[]) -> (bool[]) {
  %t: f64[] = constant[value=3.0]()
  %b: bool[] = lt(%x, %t)
  return %b
}

func @grow(%x: f64[]) -> (f64[]) {
  %s: f64[] = sin(%x)
  %m: f64[] = mul(%x, %s)
  %y: f64[] = add(%m, %x)
  return %y
}
