; call and custom_jvp: a called Func is differentiated like any body; custom_jvp's
; jvp Func replaces the default rule. softplus(x) = log1p(exp(x)) with the rule
; t * logistic(x) (its true derivative, which the numerical check confirms), called
; through a helper that also scales by y.
func @f(%x: f64[3], %y: f64[3]) -> (f64[3]) {
  %r: f64[3] = call[func=@scaled](%x, %y)
  return %r
}
; jvp:
; func @f_jvp(%0: f64[3], %1: f64[3], %2: f64[3], %3: f64[3]) -> (f64[3], f64[3]) {
;   %4: f64[3], %5: f64[3] = call[func=@scaled_jvp](%0, %1, %2, %3)
;   return %4, %5
; }
;
; func @scaled_jvp(%0: f64[3], %1: f64[3], %2: f64[3], %3: f64[3]) -> (f64[3], f64[3]) {
;   %4: f64[3], %5: f64[3] = call[func=@softplus_jvp](%0, %2)
;   %6: f64[3] = mul(%4, %1)
;   %7: f64[3] = mul(%5, %1)
;   %8: f64[3] = mul(%3, %4)
;   %9: f64[3] = add(%7, %8)
;   return %6, %9
; }
;
; func @softplus_jvp(%0: f64[3], %1: f64[3]) -> (f64[3], f64[3]) {
;   %2: f64[3] = exp(%0)
;   %3: f64[3] = log1p(%2)
;   %4: f64[3] = logistic(%0)
;   %5: f64[3] = mul(%1, %4)
;   return %3, %5
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
