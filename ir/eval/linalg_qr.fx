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
; out0: f64[2,2] = [-0.6000000000000001, -0.8, -0.8, 0.6]
; out1: f64[2,2] = [-5.0, -2.2, 0.0, 0.3999999999999999]

; a tall matrix, reduced: q [4,2], r [2,2].
func @tall(%a: f64[4,2]) -> (f64[4,2], f64[2,2]) {
  %q: f64[4,2], %r: f64[2,2] = qr[full_matrices=false](%a)
  return %q, %r
}
; run
; in: f64[4,2] = [1.0, 2.0, -2.0, 1.0, 2.0, 0.5, 4.0, -1.0]
; out0: f64[4,2] = [-0.19999999999999996, -0.8735307820361488, 0.39999999999999997, -0.31315254450352514, -0.39999999999999997, -0.3049116880692217, -0.7999999999999999, 0.2142622672918857]
; out1: f64[2,2] = [-5.0, 0.5999999999999996, 0.0, -2.4269322199023198]

; the same matrix, complete: the extra columns of q complete the basis.
func @tall_full(%a: f64[4,2]) -> (f64[4,4], f64[4,2]) {
  %q: f64[4,4], %r: f64[4,2] = qr(%a)
  return %q, %r
}
; run
; in: f64[4,2] = [1.0, 2.0, -2.0, 1.0, 2.0, 0.5, 4.0, -1.0]
; out0: f64[4,4] = [-0.19999999999999996, -0.8735307820361488, -0.4109027733222101, -0.16763914731180912, 0.39999999999999997, -0.31315254450352514, 0.1232328303835646, 0.8524958377532545, -0.39999999999999997, -0.3049116880692217, 0.8629148247831906, -0.04905983742505675, -0.7999999999999999, 0.2142622672918857, -0.26711530386926047, 0.492687624417108]
; out1: f64[4,2] = [-5.0, 0.5999999999999996, 0.0, -2.4269322199023198, 0.0, 0.0, 0.0, 0.0]

; a batch of two wide f32 matrices (both modes give q [2,2], r [2,3]); the second has
; a negative head, so its r_00 is positive.
func @wide(%a: f32[2,2,3]) -> (f32[2,2,2], f32[2,2,3]) {
  %q: f32[2,2,2], %r: f32[2,2,3] = qr[full_matrices=false](%a)
  return %q, %r
}
; run
; in: f32[2,2,3] = [2.0, -1.0, 0.5, 1.0, 3.0, 1.0, -4.0, 1.0, 2.0, 3.0, 0.0, 1.0]
; out0: f32[2,2,2] = [-0.8944272, -0.4472136, -0.4472136, 0.8944272, -0.8, 0.6, 0.6, 0.8]
; out1: f32[2,2,3] = [-2.236068, -0.4472136, -0.8944272, 0.0, 3.130495, 0.6708204, 5.0, -0.8, -1.0, 0.0, 0.6, 2.0]

; no columns: q is the identity, r has no columns.
func @no_columns(%a: f64[3,0]) -> (f64[3,3], f64[3,0]) {
  %q: f64[3,3], %r: f64[3,0] = qr(%a)
  return %q, %r
}
; run
; in: f64[3,0] = []
; out0: f64[3,3] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
; out1: f64[3,0] = []
