; where-style code: the comparison has no tangent; select picks the tangent of the
; chosen operand; max and clamp pick the tangent of the winner (no ties at the
; drawn point). relu(x) = max(x, 0) and a leaky variant by select.
func @f(%x: f64[4], %y: f64[4]) -> (f64[4], f64[4], f64[4]) {
  %zero: f64[4] = constant[value=0.0]()
  %relu: f64[4] = max(%x, %zero)
  %pos: bool[4] = gt(%x, %zero)
  %small: f64[4] = mul(%x, %y)
  %leaky: f64[4] = select(%pos, %x, %small)
  %lo: f64[4] = constant[value=-0.5]()
  %hi: f64[4] = constant[value=0.5]()
  %c: f64[4] = clamp(%lo, %y, %hi)
  return %relu, %leaky, %c
}
; in: f64[4] = [-1.5, 0.75, 2.0, -0.25]
; in: f64[4] = [0.25, -0.75, 0.125, 1.5]
; jvp:
; func @f_jvp(%0: f64[4], %1: f64[4], %2: f64[4], %3: f64[4]) -> (f64[4], f64[4], f64[4], f64[4], f64[4], f64[4]) {
;   %4: f64[4] = constant[value=0.0]()
;   %5: f64[4] = max(%0, %4)
;   %6: bool[4] = eq(%0, %5)
;   %7: bool[4] = eq(%4, %5)
;   %8: f64[4] = constant[value=0.5]()
;   %9: f64[4] = constant[value=1.0]()
;   %10: f64[4] = select(%7, %8, %9)
;   %11: f64[4] = constant[value=0.0]()
;   %12: f64[4] = select(%6, %10, %11)
;   %13: f64[4] = mul(%2, %12)
;   %14: bool[4] = gt(%0, %4)
;   %15: f64[4] = mul(%0, %1)
;   %16: f64[4] = mul(%2, %1)
;   %17: f64[4] = mul(%3, %0)
;   %18: f64[4] = add(%16, %17)
;   %19: f64[4] = select(%14, %0, %15)
;   %20: f64[4] = select(%14, %2, %18)
;   %21: f64[4] = constant[value=-0.5]()
;   %22: f64[4] = constant[value=0.5]()
;   %23: f64[4] = clamp(%21, %1, %22)
;   %24: bool[4] = lt(%1, %21)
;   %25: f64[4] = select(%24, %11, %3)
;   %26: bool[4] = lt(%22, %1)
;   %27: bool[4] = lt(%22, %21)
;   %28: bool[4] = or(%26, %27)
;   %29: f64[4] = select(%28, %11, %25)
;   return %5, %19, %23, %13, %20, %29
; }
