; cholesky: the lower Cholesky factor of each matrix of the last two axes (leading axes
; are batch axes), as jax.lax.linalg.cholesky. Only the lower triangle is read (the
; 99s above the diagonal are ignored) and the result's upper triangle is zero; a matrix
; that is not positive definite gives NaNs on and below the diagonal (that matrix only),
; not an error.

; [[4,2,-2],[2,10,2],[-2,2,5]] = L·Lᵀ for L = [[2,0,0],[1,3,0],[-1,1,√3]].
func @factor(%a: f64[3,3]) -> (f64[3,3]) {
  %l: f64[3,3] = cholesky(%a)
  return %l
}
; run
; in: f64[3,3] = [4.0, 99.0, 99.0, 2.0, 10.0, 99.0, -2.0, 2.0, 5.0]
; out0: f64[3,3] = [2.0, 0.0, 0.0, 1.0, 3.0, 0.0, -1.0, 1.0, 1.7320508075688772]

; a batch of two f32 matrices: the second is indefinite.
func @batch(%a: f32[2,2,2]) -> (f32[2,2,2]) {
  %l: f32[2,2,2] = cholesky(%a)
  return %l
}
; run
; in: f32[2,2,2] = [9.0, 0.0, 3.0, 5.0, 1.0, 0.0, 2.0, 1.0]
; out0: f32[2,2,2] = [3.0, 0.0, 1.0, 2.0, nan, 0.0, nan, nan]

; empty matrices and an empty batch.
func @empty(%a: f32[0,0], %b: f64[0,3,3]) -> (f32[0,0], f64[0,3,3]) {
  %l: f32[0,0] = cholesky(%a)
  %m: f64[0,3,3] = cholesky(%b)
  return %l, %m
}
; run
; in: f32[0,0] = []
; in: f64[0,3,3] = []
; out0: f32[0,0] = []
; out1: f64[0,3,3] = []
