; qr[full_matrices](a) -> (q, r): the Householder QR decomposition, as
; jax.lax.linalg.qr (LAPACK's geqrf and orgqr): a = q·r, r upper triangular with
; LAPACK's signs (the reflector of column j gives r_jj = -sign(a_jj)·norm, so r's
; diagonal is negative where the head was positive), q with orthonormal columns.
; full_matrices=true gives q [m,m] and r [m,n]; false gives q [m,k] and r [k,n]
; (k = min(m, n)). The values below agree with numpy.linalg.qr and jnp.linalg.qr to
; the last digit or two.

; [[3,1],[4,2]]: the first column has norm 5.
func @two(%a: f64[2,2]) -> (f64[2,2], f64[2,2]) {
  %q: f64[2,2], %r: f64[2,2] = qr(%a)
  return %q, %r
}
; run
; in: f64[2,2] = [3.0, 1.0, 4.0, 2.0]

; a tall matrix, reduced: q [4,2], r [2,2].
func @tall(%a: f64[4,2]) -> (f64[4,2], f64[2,2]) {
  %q: f64[4,2], %r: f64[2,2] = qr[full_matrices=false](%a)
  return %q, %r
}
; run
; in: f64[4,2] = [1.0, 2.0, -2.0, 1.0, 2.0, 0.5, 4.0, -1.0]

; the same matrix, complete: the extra columns of q complete the basis.
func @tall_full(%a: f64[4,2]) -> (f64[4,4], f64[4,2]) {
  %q: f64[4,4], %r: f64[4,2] = qr(%a)
  return %q, %r
}
; run
; in: f64[4,2] = [1.0, 2.0, -2.0, 1.0, 2.0, 0.5, 4.0, -1.0]

; a batch of two wide f32 matrices (both modes give q [2,2], r [2,3]); the second has
; a negative head, so its r_00 is positive.
func @wide(%a: f32[2,2,3]) -> (f32[2,2,2], f32[2,2,3]) {
  %q: f32[2,2,2], %r: f32[2,2,3] = qr[full_matrices=false](%a)
  return %q, %r
}
; run
; in: f32[2,2,3] = [2.0, -1.0, 0.5, 1.0, 3.0, 1.0, -4.0, 1.0, 2.0, 3.0, 0.0, 1.0]

; no columns: q is the identity, r has no columns.
func @no_columns(%a: f64[3,0]) -> (f64[3,3], f64[3,0]) {
  %q: f64[3,3], %r: f64[3,0] = qr(%a)
  return %q, %r
}
; run
; in: f64[3,0] = []
