; Broadcasting is explicit: a bias row and a scalar scale broadcast to the matrix's
; shape; the tangents go through the same broadcast_in_dim.
func @f(%x: f64[2,3], %b: f64[3], %s: f64[]) -> (f64[2,3]) {
  %bb: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%b)
  %ss: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%s)
  %z: f64[2,3] = add(%x, %bb)
  %y: f64[2,3] = mul(%z, %ss)
  return %y
}
; jvp:
; func @f_jvp(%0: f64[2,3], %1: f64[3], %2: f64[], %3: f64[2,3], %4: f64[3], %5: f64[]) -> (f64[2,3], f64[2,3]) {
;   %6: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%1)
;   %7: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%4)
;   %8: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%2)
;   %9: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%5)
;   %10: f64[2,3] = add(%0, %6)
;   %11: f64[2,3] = add(%3, %7)
;   %12: f64[2,3] = mul(%10, %8)
;   %13: f64[2,3] = mul(%11, %8)
;   %14: f64[2,3] = mul(%9, %10)
;   %15: f64[2,3] = add(%13, %14)
;   return %12, %15
; }
