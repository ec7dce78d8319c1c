; svd[full_matrices, compute_uv](a) -> (u, s, vt) (just s without compute_uv): the
; singular value decomposition, as jax.lax.linalg.svd: a = u[:, :k]·diag(s)·vt[:k],
; s descending (k = min(m, n)); full_matrices=true gives u [m,m] and vt [n,n], false
; u [m,k] and vt [k,n]. Each column of u has its first entry of at least half its
; largest magnitude positive (v follows u), and the extra columns of a full u (rows of
; a full vt) are the last columns of the Householder q of the first k, signed the
; same way; JAX leaves the signs to LAPACK. The singular values and u·diag(s)·vt agree
; with numpy.linalg.svd and jnp.linalg.svd.

; [[3,0],[4,5]]: singular values 3·√5 and √5.
func @two(%a: f64[2,2]) -> (f64[2,2], f64[2], f64[2,2]) {
  %u: f64[2,2], %s: f64[2], %vt: f64[2,2] = svd(%a)
  return %u, %s, %vt
}
; run
; in: f64[2,2] = [3.0, 0.0, 4.0, 5.0]
; out0: f64[2,2] = [0.316227766016838, 0.9486832980505139, 0.9486832980505139, -0.3162277660168379]
; out1: f64[2] = [6.7082039324993685, 2.2360679774997894]
; out2: f64[2,2] = [0.7071067811865475, 0.7071067811865475, 0.7071067811865475, -0.7071067811865475]

; a tall matrix, thin factors.
func @tall(%a: f64[3,2]) -> (f64[3,2], f64[2], f64[2,2]) {
  %u: f64[3,2], %s: f64[2], %vt: f64[2,2] = svd[full_matrices=false](%a)
  return %u, %s, %vt
}
; run
; in: f64[3,2] = [2.0, 0.0, 0.0, 1.0, 0.0, 0.0]
; out0: f64[3,2] = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
; out1: f64[2] = [2.0, 1.0]
; out2: f64[2,2] = [1.0, 0.0, 0.0, 1.0]

; a wide matrix, full factors: vt's last row spans the null space.
func @wide_full(%a: f64[2,3]) -> (f64[2,2], f64[2], f64[3,3]) {
  %u: f64[2,2], %s: f64[2], %vt: f64[3,3] = svd(%a)
  return %u, %s, %vt
}
; run
; in: f64[2,3] = [0.0, 2.0, 0.0, 1.0, 0.0, 0.0]
; out0: f64[2,2] = [1.0, 0.0, 0.0, 1.0]
; out1: f64[2] = [2.0, 1.0]
; out2: f64[3,3] = [0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]

; singular values only, a batch of f32 matrices.
func @values(%a: f32[2,2,2]) -> (f32[2,2]) {
  %s: f32[2,2] = svd[compute_uv=false](%a)
  return %s
}
; run
; in: f32[2,2,2] = [3.0, 0.0, 4.0, 5.0, 1.0, 1.0, 1.0, 1.0]
; out0: f32[2,2] = [6.708204, 2.236068, 2.0, 0.0]

; empty matrices: u and vt are identities.
func @empty(%a: f64[2,0]) -> (f64[2,2], f64[0], f64[0,0]) {
  %u: f64[2,2], %s: f64[0], %vt: f64[0,0] = svd(%a)
  return %u, %s, %vt
}
; run
; in: f64[2,0] = []
; out0: f64[2,2] = [1.0, 0.0, 0.0, 1.0]
; out1: f64[0] = []
; out2: f64[0,0] = []
