; Unary math: each rule multiplies the tangent by the derivative, computed from the
; primal (sin -> cos, exp -> its own result, log -> 1/x, tanh -> 1 - tanh^2, sqrt ->
; 1/(2 sqrt)). Positive inputs keep log and sqrt in their domain.
func @f(%x: f64[3]) -> (f64[3]) {
  %a: f64[3] = sin(%x)
  %b: f64[3] = exp(%a)
  %c: f64[3] = log(%x)
  %d: f64[3] = tanh(%c)
  %e: f64[3] = sqrt(%x)
  %g: f64[3] = logistic(%e)
  %h: f64[3] = add(%b, %d)
  %y: f64[3] = mul(%h, %g)
  return %y
}
; in: f64[3] = [0.5, 1.25, 3.0]
; jvp:
; func @f_jvp(%0: f64[3], %1: f64[3]) -> (f64[3], f64[3]) {
;   %2: f64[3] = sin(%0)
;   %3: f64[3] = cos(%0)
;   %4: f64[3] = mul(%1, %3)
;   %5: f64[3] = exp(%2)
;   %6: f64[3] = mul(%4, %5)
;   %7: f64[3] = log(%0)
;   %8: f64[3] = div(%1, %0)
;   %9: f64[3] = tanh(%7)
;   %10: f64[3] = constant[value=1.0]()
;   %11: f64[3] = mul(%9, %9)
;   %12: f64[3] = sub(%10, %11)
;   %13: f64[3] = mul(%8, %12)
;   %14: f64[3] = sqrt(%0)
;   %15: f64[3] = constant[value=0.5]()
;   %16: f64[3] = div(%15, %14)
;   %17: f64[3] = mul(%1, %16)
;   %18: f64[3] = logistic(%14)
;   %19: f64[3] = sub(%10, %18)
;   %20: f64[3] = mul(%18, %19)
;   %21: f64[3] = mul(%17, %20)
;   %22: f64[3] = add(%5, %9)
;   %23: f64[3] = add(%6, %13)
;   %24: f64[3] = mul(%22, %18)
;   %25: f64[3] = mul(%23, %18)
;   %26: f64[3] = mul(%21, %22)
;   %27: f64[3] = add(%25, %26)
;   return %24, %27
; }
