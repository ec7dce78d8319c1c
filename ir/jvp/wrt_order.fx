; wrt in another order than the parameters': the tangent parameters come in wrt
; order (z's, then x's); y is outside wrt, so nothing is emitted for it.
func @f(%x: f64[2], %y: f64[2], %z: f64[2]) -> (f64[2]) {
  %a: f64[2] = mul(%x, %y)
  %b: f64[2] = div(%a, %z)
  %c: f64[2] = exp(%b)
  return %c
}
; wrt: 2,0
; in: f64[2] = [0.5, -1.0]
; in: f64[2] = [1.5, 0.25]
; in: f64[2] = [2.0, -0.75]
; jvp:
; func @f_jvp(%0: f64[2], %1: f64[2], %2: f64[2], %3: f64[2], %4: f64[2]) -> (f64[2], f64[2]) {
;   %5: f64[2] = mul(%0, %1)
;   %6: f64[2] = mul(%4, %1)
;   %7: f64[2] = div(%5, %2)
;   %8: f64[2] = mul(%3, %7)
;   %9: f64[2] = sub(%6, %8)
;   %10: f64[2] = div(%9, %2)
;   %11: f64[2] = exp(%7)
;   %12: f64[2] = mul(%10, %11)
;   return %11, %12
; }
