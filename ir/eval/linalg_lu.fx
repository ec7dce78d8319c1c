; lu(a) -> (lu, pivots, permutation): LU decomposition with partial pivoting of m×n
; matrices, as jax.lax.linalg.lu (LAPACK's getrf): lu packs the unit lower factor
; (m×k, k = min(m, n)) below the diagonal and the upper factor (k×n) on and above it;
; pivots[j] (k of them) is the row swapped with row j at step j (the largest magnitude
; in the column, the first on ties); a[permutation] = L·U (m rows). A zero column is
; not swapped and leaves a zero on U's diagonal.

; [[1,2],[3,4]]: rows swapped, L = [[1,0],[1/3,1]], U = [[3,4],[0,2/3]].
func @two(%a: f64[2,2]) -> (f64[2,2], i32[2], i32[2]) {
  %lu: f64[2,2], %p: i32[2], %q: i32[2] = lu(%a)
  return %lu, %p, %q
}
; run
; in: f64[2,2] = [1.0, 2.0, 3.0, 4.0]
; out0: f64[2,2] = [3.0, 4.0, 0.3333333333333333, 0.6666666666666667]
; out1: i32[2] = [1, 1]
; out2: i32[2] = [1, 0]

; a batch of two f32 matrices: one needing two swaps, one singular.
func @batch(%a: f32[2,3,3]) -> (f32[2,3,3], i32[2,3], i32[2,3]) {
  %lu: f32[2,3,3], %p: i32[2,3], %q: i32[2,3] = lu(%a)
  return %lu, %p, %q
}
; run
; in: f32[2,3,3] = [0.0, 1.0, 2.0, 1.0, 0.0, 3.0, 4.0, -3.0, 8.0, 1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 0.0, 1.0]
; out0: f32[2,3,3] = [4.0, -3.0, 8.0, 0.0, 1.0, 2.0, 0.25, 0.75, -0.5, 2.0, 4.0, 6.0, 0.5, 0.0, 0.0, 0.0, 0.0, 1.0]
; out1: i32[2,3] = [2, 2, 2, 1, 1, 2]
; out2: i32[2,3] = [2, 0, 1, 1, 0, 2]

; empty matrices.
func @empty(%a: f64[0,0]) -> (f64[0,0], i32[0], i32[0]) {
  %lu: f64[0,0], %p: i32[0], %q: i32[0] = lu(%a)
  return %lu, %p, %q
}
; run
; in: f64[0,0] = []
; out0: f64[0,0] = []
; out1: i32[0] = []
; out2: i32[0] = []

; tall 4×2: two steps; rows 2 and 3 of L are below the square top.
func @tall(%a: f64[4,2]) -> (f64[4,2], i32[2], i32[4]) {
  %lu: f64[4,2], %p: i32[2], %q: i32[4] = lu(%a)
  return %lu, %p, %q
}
; run
; in: f64[4,2] = [1.0, 2.0, 4.0, 1.0, 2.0, 3.0, -2.0, 0.5]
; out0: f64[4,2] = [4.0, 1.0, 0.5, 2.5, 0.25, 0.7000000000000001, -0.5, 0.4]
; out1: i32[2] = [1, 2]
; out2: i32[4] = [1, 2, 0, 3]

; wide 2×4: two steps over the first two columns, the others carried along.
func @wide(%a: f64[2,4]) -> (f64[2,4], i32[2], i32[2]) {
  %lu: f64[2,4], %p: i32[2], %q: i32[2] = lu(%a)
  return %lu, %p, %q
}
; run
; in: f64[2,4] = [1.0, 2.0, 3.0, 4.0, 4.0, 1.0, -1.0, 2.0]
; out0: f64[2,4] = [4.0, 1.0, -1.0, 2.0, 0.25, 1.75, 3.25, 3.5]
; out1: i32[2] = [1, 1]
; out2: i32[2] = [1, 0]

; a batch of f32 tall 3×2 matrices, the second with a zero first column.
func @tall_batch(%a: f32[2,3,2]) -> (f32[2,3,2], i32[2,2], i32[2,3]) {
  %lu: f32[2,3,2], %p: i32[2,2], %q: i32[2,3] = lu(%a)
  return %lu, %p, %q
}
; run
; in: f32[2,3,2] = [2.0, 1.0, -4.0, 3.0, 1.0, 5.0, 0.0, 1.0, 0.0, -2.0, 0.0, 3.0]
; out0: f32[2,3,2] = [-4.0, 3.0, -0.25, 5.75, -0.5, 0.4347826, 0.0, 1.0, 0.0, 3.0, 0.0, -0.6666667]
; out1: i32[2,2] = [1, 2, 0, 2]
; out2: i32[2,3] = [1, 2, 0, 0, 2, 1]

; a batch of f32 wide 2×3 matrices.
func @wide_batch(%a: f32[2,2,3]) -> (f32[2,2,3], i32[2,2], i32[2,2]) {
  %lu: f32[2,2,3], %p: i32[2,2], %q: i32[2,2] = lu(%a)
  return %lu, %p, %q
}
; run
; in: f32[2,2,3] = [1.0, 2.0, 3.0, 2.0, 1.0, 0.5, -3.0, 1.0, 2.0, 1.0, 2.0, -1.0]
; out0: f32[2,2,3] = [2.0, 1.0, 0.5, 0.5, 1.5, 2.75, -3.0, 1.0, 2.0, -0.33333334, 2.3333333, -0.33333334]
; out1: i32[2,2] = [1, 1, 0, 1]
; out2: i32[2,2] = [1, 0, 0, 1]

; empty: no steps; the permutation is the identity of the 3 rows.
func @no_columns(%a: f64[3,0]) -> (f64[3,0], i32[0], i32[3]) {
  %lu: f64[3,0], %p: i32[0], %q: i32[3] = lu(%a)
  return %lu, %p, %q
}
; run
; in: f64[3,0] = []
; out0: f64[3,0] = []
; out1: i32[0] = []
; out2: i32[3] = [0, 1, 2]
