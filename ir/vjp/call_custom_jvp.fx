; call and custom_jvp in reverse mode: the call is inlined, and the custom rule's
; jvp Func is linearized and transposed like any code. softplus(x) = log1p(exp(x))
; with the rule t * logistic(x) (its true derivative), called through a helper that
; also scales by y.
func @f(%x: f64[3], %y: f64[3]) -> (f64[3]) {
  %r: f64[3] = call[func=@scaled](%x, %y)
  return %r
}
; vjp:
; func @f_vjp(%0: f64[3], %1: f64[3], %2: f64[3]) -> (f64[3], f64[3], f64[3]) {
;   %3: f64[3] = exp(%0)
;   %4: f64[3] = log1p(%3)
;   %5: f64[3] = logistic(%0)
;   %6: f64[3] = mul(%4, %1)
;   %7: f64[3] = mul(%2, %4)
;   %8: f64[3] = mul(%2, %1)
;   %9: f64[3] = mul(%8, %5)
;   return %6, %9, %7
; }

func @scaled(%x: f64[3], %y: f64[3]) -> (f64[3]) {
  %s: f64[3] = custom_jvp[func=@softplus, jvp=@softplus_jvp](%x)
  %r: f64[3] = mul(%s, %y)
  return %r
}

func @softplus(%x: f64[3]) -> (f64[3]) {
  %e: f64[3] = exp(%x)
  %s: f64[3] = log1p(%e)
  return %s
}

func @softplus_jvp(%x: f64[3], %t: f64[3]) -> (f64[3], f64[3]) {
  %e: f64[3] = exp(%x)
  %s: f64[3] = log1p(%e)
  %g: f64[3] = logistic(%x)
  %dt: f64[3] = mul(%t, %g)
  return %s, %dt
}
