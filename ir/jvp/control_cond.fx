; cond: the branches are differentiated (the same tangent inputs in each) and the
; index has no tangent. Here the predicate picks x^2 or sin(x) * y.
func @f(%p: bool[], %x: f64[2], %y: f64[2]) -> (f64[2]) {
  %r: f64[2] = cond[branches=[@square, @sine]](%p, %x, %y)
  return %r
}
; in: bool[] = [true]
; in: f64[2] = [0.5, -1.25]
; in: f64[2] = [2.0, 0.75]
; jvp:
; func @f_jvp(%0: bool[], %1: f64[2], %2: f64[2], %3: f64[2], %4: f64[2]) -> (f64[2], f64[2]) {
;   %5: f64[2], %6: f64[2] = cond[branches=[@square_jvp_2,@sine_jvp_2]](%0, %1, %2, %3, %4)
;   return %5, %6
; }
;
; func @square_jvp_2(%0: f64[2], %1: f64[2], %2: f64[2], %3: f64[2]) -> (f64[2], f64[2]) {
;   %4: f64[2] = mul(%0, %0)
;   %5: f64[2] = mul(%2, %0)
;   %6: f64[2] = mul(%2, %0)
;   %7: f64[2] = add(%5, %6)
;   return %4, %7
; }
;
; func @sine_jvp_2(%0: f64[2], %1: f64[2], %2: f64[2], %3: f64[2]) -> (f64[2], f64[2]) {
;   %4: f64[2] = sin(%0)
;   %5: f64[2] = cos(%0)
;   %6: f64[2] = mul(%2, %5)
;   %7: f64[2] = mul(%4, %1)
;   %8: f64[2] = mul(%6, %1)
;   %9: f64[2] = mul(%3, %4)
;   %10: f64[2] = add(%8, %9)
;   return %7, %10
; }

func @square(%x: f64[2], %y: f64[2]) -> (f64[2]) {
  %s: f64[2] = mul(%x, %x)
  return %s
}

func @sine(%x: f64[2], %y: f64[2]) -> (f64[2]) {
  %s: f64[2] = sin(%x)
  %t: f64[2] = mul(%s, %y)
  return %t
}
