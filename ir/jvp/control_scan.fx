; scan: the body is differentiated with tangents for the const, the carry and the
; slices; the tangent of the carry goes round the loop with the carry. A running
; product h <- tanh(a h + x_t), with every h kept.
func @f(%a: f64[], %h0: f64[], %xs: f64[4]) -> (f64[], f64[4]) {
  %h: f64[], %hs: f64[4] = scan[body=@step, length=4, num_consts=1, num_carry=1](%a, %h0, %xs)
  return %h, %hs
}
; jvp:
; func @f_jvp(%0: f64[], %1: f64[], %2: f64[4], %3: f64[], %4: f64[], %5: f64[4]) -> (f64[], f64[4], f64[], f64[4]) {
;   %6: f64[], %7: f64[], %8: f64[4], %9: f64[4] = scan[body=@step_jvp_scan, length=4, num_consts=2, num_carry=2, reverse=false, checkpoint=none](%0, %3, %1, %4, %2, %5)
;   return %6, %8, %7, %9
; }
;
; func @step_jvp_scan(%0: f64[], %1: f64[], %2: f64[], %3: f64[], %4: f64[], %5: f64[]) -> (f64[], f64[], f64[], f64[]) {
;   %6: f64[] = mul(%0, %2)
;   %7: f64[] = mul(%1, %2)
;   %8: f64[] = mul(%3, %0)
;   %9: f64[] = add(%7, %8)
;   %10: f64[] = add(%6, %4)
;   %11: f64[] = add(%9, %5)
;   %12: f64[] = tanh(%10)
;   %13: f64[] = constant[value=1.0]()
;   %14: f64[] = mul(%12, %12)
;   %15: f64[] = sub(%13, %14)
;   %16: f64[] = mul(%11, %15)
;   return %12, %16, %12, %16
; }

func @step(%a: f64[], %h: f64[], %x: f64[]) -> (f64[], f64[]) {
  %ah: f64[] = mul(%a, %h)
  %z: f64[] = add(%ah, %x)
  %t: f64[] = tanh(%z)
  return %t, %t
}
