; Elementwise math in reverse mode: each cotangent is multiplied by the derivative
; the primal pass computed (a residual). %x fans out to three uses, so its
; cotangent is the sum of three contributions. Positive inputs keep log and sqrt in
; their domain.
func @f(%x: f64[3], %y: f64[3]) -> (f64[3]) {
  %a: f64[3] = sin(%x)
  %b: f64[3] = log(%x)
  %c: f64[3] = sqrt(%y)
  %d: f64[3] = div(%a, %c)
  %e: f64[3] = mul(%b, %x)
  %g: f64[3] = sub(%d, %e)
  %h: f64[3] = exp(%g)
  return %h
}
; in: f64[3] = [0.5, 1.25, 3.0]
; in: f64[3] = [2.0, 0.25, 1.0]
; vjp:
; func @f_vjp(%0: f64[3], %1: f64[3], %2: f64[3]) -> (f64[3], f64[3], f64[3]) {
;   %3: f64[3] = sin(%0)
;   %4: f64[3] = cos(%0)
;   %5: f64[3] = log(%0)
;   %6: f64[3] = sqrt(%1)
;   %7: f64[3] = constant[value=0.5]()
;   %8: f64[3] = div(%7, %6)
;   %9: f64[3] = div(%3, %6)
;   %10: f64[3] = mul(%5, %0)
;   %11: f64[3] = sub(%9, %10)
;   %12: f64[3] = exp(%11)
;   %13: f64[3] = mul(%2, %12)
;   %14: f64[3] = neg(%13)
;   %15: f64[3] = mul(%14, %5)
;   %16: f64[3] = mul(%14, %0)
;   %17: f64[3] = div(%13, %6)
;   %18: f64[3] = neg(%17)
;   %19: f64[3] = mul(%18, %9)
;   %20: f64[3] = mul(%19, %8)
;   %21: f64[3] = div(%16, %0)
;   %22: f64[3] = add(%15, %21)
;   %23: f64[3] = mul(%17, %4)
;   %24: f64[3] = add(%22, %23)
;   return %12, %24, %20
; }
