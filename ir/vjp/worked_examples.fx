; The textbook example (x + y) * sin(y): the cotangent of y gathers the contribution
; of the sum and of the sine.
func @f(%x: f64[], %y: f64[]) -> (f64[]) {
  %s: f64[] = add(%x, %y)
  %t: f64[] = sin(%y)
  %z: f64[] = mul(%s, %t)
  return %z
}
; in: f64[] = [1.0]
; in: f64[] = [1.5707963267948966]
; vjp:
; func @f_vjp(%0: f64[], %1: f64[], %2: f64[]) -> (f64[], f64[], f64[]) {
;   %3: f64[] = add(%0, %1)
;   %4: f64[] = sin(%1)
;   %5: f64[] = cos(%1)
;   %6: f64[] = mul(%3, %4)
;   %7: f64[] = mul(%2, %3)
;   %8: f64[] = mul(%2, %4)
;   %9: f64[] = mul(%7, %5)
;   %10: f64[] = add(%9, %8)
;   return %6, %8, %10
; }
