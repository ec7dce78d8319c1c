; dot_general as matrix-vector, vector-vector, matrix-matrix and outer products. Result
; axes: batch, then lhs free, then rhs free. Each element sums its products from +0.

; Matrix times vector: f32[2,3] x f32[3] -> f32[2].
func @matvec(%a: f32[2,3], %v: f32[3]) -> (f32[2]) {
  %y: f32[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %v)
  return %y
}
; run
; in: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: f32[3] = [1.0, -1.0, 0.5]
; out0: f32[2] = [0.5, 2.0]

; Vector times matrix: f32[2] x f32[2,3] -> f32[3].
func @vecmat(%v: f32[2], %a: f32[2,3]) -> (f32[3]) {
  %y: f32[3] = dot_general[lhs_contract=[0], rhs_contract=[0]](%v, %a)
  return %y
}
; run
; in: f32[2] = [2.0, -1.0]
; in: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; out0: f32[3] = [-2.0, -1.0, 0.0]

; Inner product of two vectors: a scalar; NaN, infinity and 0 * inf propagate.
func @inner(%u: f32[4], %v: f32[4]) -> (f32[]) {
  %y: f32[] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[]](%u, %v)
  return %y
}
; run
; in: f32[4] = [1.0, 2.0, 3.0, 4.0]
; in: f32[4] = [0.5, 0.25, -1.0, 2.0]
; out0: f32[] = [6.0]
; run
; in: f32[4] = [1.0, 0.0, 3.0, 4.0]
; in: f32[4] = [1.0, inf, 1.0, 1.0]
; out0: f32[] = [nan]
; run
; in: f32[4] = [-0.0, -0.0, -0.0, -0.0]
; in: f32[4] = [1.0, 1.0, 1.0, 1.0]
; out0: f32[] = [0.0]

; Matrix product: f32[2,3] x f32[3,2] -> f32[2,2].
func @matmul(%a: f32[2,3], %b: f32[3,2]) -> (f32[2,2]) {
  %y: f32[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  return %y
}
; run
; in: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: f32[3,2] = [7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
; out0: f32[2,2] = [58.0, 64.0, 139.0, 154.0]

; Outer product: no contracting axes.
func @outer(%u: f32[2], %v: f32[3]) -> (f32[2,3]) {
  %y: f32[2,3] = dot_general[lhs_contract=[], rhs_contract=[]](%u, %v)
  return %y
}
; run
; in: f32[2] = [2.0, -0.5]
; in: f32[3] = [1.0, -0.0, 4.0]
; out0: f32[2,3] = [2.0, 0.0, 8.0, -0.5, 0.0, -2.0]

; Matrix product on f64.
func @matmul_f64(%a: f64[2,2], %b: f64[2,2]) -> (f64[2,2]) {
  %y: f64[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  return %y
}
; run
; in: f64[2,2] = [0.5, 0.25, 1e300, -1e300]
; in: f64[2,2] = [2.0, 4.0, 8.0, 16.0]
; out0: f64[2,2] = [3.0, 6.0, -6e300, -1.2e301]
