; wrt in another order than the parameters': the cotangents come out in wrt order
; (y's, then x's); z is outside wrt.
func @f(%x: f64[2], %y: f64[2], %z: f64[2]) -> (f64[2]) {
  %a: f64[2] = mul(%x, %y)
  %b: f64[2] = mul(%a, %z)
  %c: f64[2] = sin(%b)
  return %c
}
; wrt: 1,0
; vjp:
; func @f_vjp(%0: f64[2], %1: f64[2], %2: f64[2], %3: f64[2]) -> (f64[2], f64[2], f64[2]) {
;   %4: f64[2] = mul(%0, %1)
;   %5: f64[2] = mul(%4, %2)
;   %6: f64[2] = sin(%5)
;   %7: f64[2] = cos(%5)
;   %8: f64[2] = mul(%3, %7)
;   %9: f64[2] = mul(%8, %2)
;   %10: f64[2] = mul(%9, %0)
;   %11: f64[2] = mul(%9, %1)
;   return %6, %10, %11
; }
