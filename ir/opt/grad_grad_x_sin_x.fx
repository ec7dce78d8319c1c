; grad(grad(x sin x)) as `ferrax grad | ferrax grad -` prints it: 15 equations, cos computed
; twice, multiplications by 1.0. opt leaves cos, sin, neg and three arithmetic ops.
func @f_grad_grad(%0: f64[]) -> (f64[]) {
  %1: f64[] = cos(%0)
  %2: f64[] = cos(%0)
  %3: f64[] = sin(%0)
  %4: f64[] = neg(%3)
  %5: f64[] = constant[value=1.0]()
  %6: f64[] = mul(%5, %0)
  %7: f64[] = constant[value=1.0]()
  %8: f64[] = constant[value=1.0]()
  %9: f64[] = mul(%7, %6)
  %10: f64[] = mul(%7, %2)
  %11: f64[] = mul(%7, %8)
  %12: f64[] = mul(%10, %8)
  %13: f64[] = mul(%9, %4)
  %14: f64[] = add(%12, %13)
  %15: f64[] = mul(%11, %1)
  %16: f64[] = add(%14, %15)
  return %16
}
; opt:
; func @f_grad_grad(%0: f64[]) -> (f64[]) {
;   %1: f64[] = cos(%0)
;   %2: f64[] = sin(%0)
;   %3: f64[] = neg(%2)
;   %4: f64[] = mul(%0, %3)
;   %5: f64[] = add(%1, %4)
;   %6: f64[] = add(%5, %1)
;   return %6
; }
