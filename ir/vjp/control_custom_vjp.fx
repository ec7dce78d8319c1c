; custom_vjp in reverse mode: the forward pass calls fwd (which saves cos(x)), the
; backward pass calls bwd through a wrapper giving the cotangent of the tangent.
func @f(%x: f64[3]) -> (f64[3]) {
  %y: f64[3] = custom_vjp[func=@sin, fwd=@sin_fwd, bwd=@sin_bwd](%x)
  return %y
}
; vjp:
; func @f_vjp(%0: f64[3], %1: f64[3]) -> (f64[3], f64[3]) {
;   %2: f64[3], %3: f64[3] = call[func=@sin_fwd](%0)
;   %4: f64[3] = call[func=@sin_vjp_bwd](%3, %1)
;   return %2, %4
; }
;
; func @sin_fwd(%0: f64[3]) -> (f64[3], f64[3]) {
;   %1: f64[3] = sin(%0)
;   %2: f64[3] = cos(%0)
;   return %1, %2
; }
;
; func @sin_vjp_bwd(%0: f64[3], %1: f64[3]) -> (f64[3]) {
;   %2: f64[3] = call[func=@sin_bwd](%0, %1)
;   return %2
; }
;
; func @sin_bwd(%0: f64[3], %1: f64[3]) -> (f64[3]) {
;   %2: f64[3] = mul(%1, %0)
;   return %2
; }

func @sin(%x: f64[3]) -> (f64[3]) {
  %y: f64[3] = sin(%x)
  return %y
}

func @sin_fwd(%x: f64[3]) -> (f64[3], f64[3]) {
  %y: f64[3] = sin(%x)
  %c: f64[3] = cos(%x)
  return %y, %c
}

func @sin_bwd(%c: f64[3], %ct: f64[3]) -> (f64[3]) {
  %d: f64[3] = mul(%ct, %c)
  return %d
}
