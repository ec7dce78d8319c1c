; Equations on constants are evaluated: results of up to 64 elements become
; constants (a uniform result stays a splat); an elementwise equation on splats
; becomes a splat whatever its size; a large non-uniform result is kept.
func @f(%x: f64[3]) -> (f64[3], f64[3], f64[100], f64[30,3]) {
  %a: f64[3] = constant[value=[1.0, 4.0, 9.0]]()
  %r: f64[3] = sqrt(%a)
  %y: f64[3] = add(%x, %r)
  %two: f64[3] = constant[value=2.0]()
  %e: f64[3] = exp(%two)
  %z: f64[3] = mul(%x, %e)
  %big: f64[100] = constant[value=3.0]()
  %l: f64[100] = log(%big)
  %b: f64[30,3] = broadcast_in_dim[shape=[30,3], dims=[1]](%r)
  return %y, %z, %l, %b
}
; opt:
; func @f(%0: f64[3]) -> (f64[3], f64[3], f64[100], f64[30,3]) {
;   %1: f64[3] = constant[value=[1.0,2.0,3.0]]()
;   %2: f64[3] = add(%0, %1)
;   %3: f64[3] = constant[value=7.38905609893065]()
;   %4: f64[3] = mul(%0, %3)
;   %5: f64[100] = constant[value=1.0986122886681098]()
;   %6: f64[30,3] = broadcast_in_dim[shape=[30,3], dims=[1]](%1)
;   return %2, %4, %5, %6
; }
