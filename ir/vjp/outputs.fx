; Outputs of every kind: a parameter returned as is (its cotangent passes straight
; through), one value returned twice (the two cotangents add), a constant (its
; cotangent is unused), and a parameter no output depends on (zeros).
func @f(%x: f64[2], %y: f64[2], %unused: f64[3]) -> (f64[2], f64[2], f64[2], f64[], f64[2]) {
  %c: f64[] = constant[value=3.0]()
  %s: f64[2] = sin(%x)
  return %x, %s, %s, %c, %y
}
; vjp:
; func @f_vjp(%0: f64[2], %1: f64[2], %2: f64[3], %3: f64[2], %4: f64[2], %5: f64[2], %6: f64[], %7: f64[2]) -> (f64[2], f64[2], f64[2], f64[], f64[2], f64[2], f64[2], f64[3]) {
;   %8: f64[2] = add(%4, %5)
;   %9: f64[] = constant[value=3.0]()
;   %10: f64[2] = sin(%0)
;   %11: f64[2] = cos(%0)
;   %12: f64[2] = mul(%8, %11)
;   %13: f64[2] = add(%3, %12)
;   %14: f64[3] = constant[value=0.0]()
;   return %0, %10, %10, %9, %1, %13, %7, %14
; }
