; while without max_iters: forward mode works through it (reverse mode would need
; max_iters). Newton's iteration for sqrt(a), a fixed number of steps counted by an
; integer carry, which has no tangent; the tangent of x follows the iteration.
func @f(%a: f64[]) -> (f64[]) {
  %zero: i32[] = constant[value=0]()
  %i: i32[], %x: f64[], %b: f64[] = while[cond=@more, body=@newton](%zero, %a, %a)
  return %x
}
; in: f64[] = [2.0]
; jvp:
; func @f_jvp(%0: f64[], %1: f64[]) -> (f64[], f64[]) {
;   %2: i32[] = constant[value=0]()
;   %3: i32[], %4: f64[], %5: f64[], %6: f64[], %7: f64[] = while[cond=@more_jvp, body=@newton_jvp, max_iters=none](%2, %0, %0, %1, %1)
;   return %4, %6
; }
;
; func @more_jvp(%0: i32[], %1: f64[], %2: f64[], %3: f64[], %4: f64[]) -> (bool[]) {
;   %5: i32[] = constant[value=6]()
;   %6: bool[] = lt(%0, %5)
;   return %6
; }
;
; func @newton_jvp(%0: i32[], %1: f64[], %2: f64[], %3: f64[], %4: f64[]) -> (i32[], f64[], f64[], f64[], f64[]) {
;   %5: i32[] = constant[value=1]()
;   %6: i32[] = add(%0, %5)
;   %7: f64[] = div(%2, %1)
;   %8: f64[] = mul(%3, %7)
;   %9: f64[] = sub(%4, %8)
;   %10: f64[] = div(%9, %1)
;   %11: f64[] = add(%1, %7)
;   %12: f64[] = add(%3, %10)
;   %13: f64[] = constant[value=0.5]()
;   %14: f64[] = mul(%11, %13)
;   %15: f64[] = mul(%12, %13)
;   return %6, %14, %2, %15, %4
; }

func @more(%i: i32[], %x: f64[], %a: f64[]) -> (bool[]) {
  %n: i32[] = constant[value=6]()
  %c: bool[] = lt(%i, %n)
  return %c
}

func @newton(%i: i32[], %x: f64[], %a: f64[]) -> (i32[], f64[], f64[]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %q: f64[] = div(%a, %x)
  %s: f64[] = add(%x, %q)
  %half: f64[] = constant[value=0.5]()
  %y: f64[] = mul(%s, %half)
  return %j, %y, %a
}
