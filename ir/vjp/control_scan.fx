; scan in reverse mode: the known scan stacks each step's residuals (cos, the carry)
; as extra ys; exp(w) depends only on the const w, so it is computed once, outside
; the loop, and the linear scan reads it as a const; the transpose is a scan in the
; other direction, accumulating w's cotangent in a carry.
func @f(%w: f64[2], %c0: f64[2], %xs: f64[3,2]) -> (f64[2], f64[3,2]) {
  %c: f64[2], %ys: f64[3,2] = scan[body=@step, length=3, num_consts=1, num_carry=1](%w, %c0, %xs)
  return %c, %ys
}
; vjp:
; func @f_vjp(%0: f64[2], %1: f64[2], %2: f64[3,2], %3: f64[2], %4: f64[3,2]) -> (f64[2], f64[3,2], f64[2], f64[2], f64[3,2]) {
;   %5: f64[2] = exp(%0)
;   %6: f64[2], %7: f64[3,2], %8: f64[3,2] = scan[body=@step_jvp_scan_known, length=3, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%0, %1, %2)
;   %9: f64[2] = constant[value=0.0]()
;   %10: f64[2], %11: f64[2], %12: f64[3,2] = scan[body=@step_jvp_scan_linear_transpose, length=3, num_consts=1, num_carry=2, reverse=true, checkpoint=none](%5, %3, %9, %8, %7, %4)
;   return %6, %7, %11, %10, %12
; }
;
; func @step_jvp_scan_known(%0: f64[2], %1: f64[2], %2: f64[2]) -> (f64[2], f64[2], f64[2]) {
;   %3: f64[2] = sin(%1)
;   %4: f64[2] = cos(%1)
;   %5: f64[2] = exp(%0)
;   %6: f64[2] = mul(%3, %5)
;   %7: f64[2] = add(%6, %2)
;   return %7, %3, %4
; }
;
; func @step_jvp_scan_linear_transpose(%0: f64[2], %1: f64[2], %2: f64[2], %3: f64[2], %4: f64[2], %5: f64[2]) -> (f64[2], f64[2], f64[2]) {
;   %6: f64[2] = mul(%1, %4)
;   %7: f64[2] = mul(%1, %0)
;   %8: f64[2] = add(%5, %7)
;   %9: f64[2] = mul(%6, %0)
;   %10: f64[2] = mul(%8, %3)
;   %11: f64[2] = add(%2, %9)
;   return %10, %11, %1
; }

func @step(%w: f64[2], %c: f64[2], %x: f64[2]) -> (f64[2], f64[2]) {
  %s: f64[2] = sin(%c)
  %e: f64[2] = exp(%w)
  %m: f64[2] = mul(%s, %e)
  %n: f64[2] = add(%m, %x)
  return %n, %s
}
