; where-style code: select routes the cotangent to the chosen operand (zeros to the
; other); max (relu) and clamp weight it by the winner mask computed in the primal
; pass. No ties at the given point.
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
; vjp:
; func @f_vjp(%0: f64[4], %1: f64[4], %2: f64[4], %3: f64[4], %4: f64[4]) -> (f64[4], f64[4], f64[4], f64[4], f64[4]) {
;   %5: f64[4] = constant[value=0.0]()
;   %6: f64[4] = max(%0, %5)
;   %7: bool[4] = eq(%0, %6)
;   %8: bool[4] = eq(%5, %6)
;   %9: f64[4] = constant[value=0.5]()
;   %10: f64[4] = constant[value=1.0]()
;   %11: f64[4] = select(%8, %9, %10)
;   %12: f64[4] = constant[value=0.0]()
;   %13: f64[4] = select(%7, %11, %12)
;   %14: bool[4] = gt(%0, %5)
;   %15: f64[4] = mul(%0, %1)
;   %16: f64[4] = select(%14, %0, %15)
;   %17: f64[4] = constant[value=-0.5]()
;   %18: f64[4] = constant[value=0.5]()
;   %19: f64[4] = clamp(%17, %1, %18)
;   %20: bool[4] = lt(%1, %17)
;   %21: bool[4] = lt(%18, %1)
;   %22: bool[4] = lt(%18, %17)
;   %23: bool[4] = or(%21, %22)
;   %24: f64[4] = constant[value=0.0]()
;   %25: f64[4] = select(%23, %24, %4)
;   %26: f64[4] = select(%20, %24, %25)
;   %27: f64[4] = select(%14, %3, %24)
;   %28: f64[4] = select(%14, %24, %3)
;   %29: f64[4] = mul(%28, %0)
;   %30: f64[4] = add(%26, %29)
;   %31: f64[4] = mul(%28, %1)
;   %32: f64[4] = add(%27, %31)
;   %33: f64[4] = mul(%2, %13)
;   %34: f64[4] = add(%32, %33)
;   return %6, %16, %19, %34, %30
; }
