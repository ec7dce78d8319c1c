; lu(a) -> (lu, pivots, permutation): LU decomposition with partial pivoting, as
; jax.lax.linalg.lu (LAPACK's getrf): lu packs the unit lower factor below the
; diagonal and the upper factor on and above it; pivots[k] is the row swapped with row k
; at step k (the largest magnitude in the column, the first on ties); a[permutation] =
; L·U. A zero column is not swapped and leaves a zero on U's diagonal.

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
