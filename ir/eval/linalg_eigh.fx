; eigh[lower, sort_eigenvalues](a) -> (v, w): eigenvectors (the columns of v) and
; ascending eigenvalues of the symmetric matrix read from one triangle of a (the 99s are
; never read), as jax.lax.linalg.eigh. Each eigenvector's first entry of at least half
; its largest magnitude is positive (JAX leaves the sign to LAPACK).

; [[2,1],[1,2]]: eigenvalues 1 and 3, eigenvectors (1,-1)/√2 and (1,1)/√2.
func @two(%a: f64[2,2]) -> (f64[2,2], f64[2]) {
  %v: f64[2,2], %w: f64[2] = eigh(%a)
  return %v, %w
}
; run
; in: f64[2,2] = [2.0, 99.0, 1.0, 2.0]
; out0: f64[2,2] = [0.7071067811865475, 0.7071067811865475, -0.7071067811865475, 0.7071067811865475]
; out1: f64[2] = [0.9999999999999998, 2.9999999999999996]

; the upper triangle, a batch of two f32 matrices (one diagonal).
func @upper(%a: f32[2,3,3]) -> (f32[2,3,3], f32[2,3]) {
  %v: f32[2,3,3], %w: f32[2,3] = eigh[lower=false](%a)
  return %v, %w
}
; run
; in: f32[2,3,3] = [4.0, 1.0, 0.0, 99.0, 3.0, 1.0, 99.0, 99.0, 2.0, 5.0, 0.0, 0.0, 99.0, -1.0, 0.0, 99.0, 99.0, 2.0]
; out0: f32[2,3,3] = [-0.21132487, 0.57735026, 0.7886751, 0.57735026, -0.57735026, 0.57735026, -0.7886751, -0.57735026, 0.21132487, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
; out1: f32[2,3] = [1.2679492, 3.0, 4.732051, -1.0, 2.0, 5.0]

; empty matrices.
func @empty(%a: f64[0,0]) -> (f64[0,0], f64[0]) {
  %v: f64[0,0], %w: f64[0] = eigh(%a)
  return %v, %w
}
; run
; in: f64[0,0] = []
; out0: f64[0,0] = []
; out1: f64[0] = []
