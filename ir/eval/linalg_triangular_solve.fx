; triangular_solve[left_side, lower, transpose_a, unit_diagonal](a, b): solves
; op(a)·x = b (left_side) or x·op(a) = b, op(a) = a or aᵀ, reading only the chosen
; triangle of a (the 99s are never read) and, with unit_diagonal, not its diagonal
; either (taken as ones), as jax.lax.linalg.triangular_solve. Defaults: every flag
; false (x·a = b with a upper triangular).

; a = [[2,0,0],[1,3,0],[-1,1,4]] in its lower triangle; b has two columns.
func @left_lower(%a: f64[3,3], %b: f64[3,2]) -> (f64[3,2], f64[3,2]) {
  %x: f64[3,2] = triangular_solve[left_side=true, lower=true](%a, %b)
  %y: f64[3,2] = triangular_solve[left_side=true, lower=true, transpose_a=true](%a, %b)
  return %x, %y
}
; run
; in: f64[3,3] = [2.0, 99.0, 99.0, 1.0, 3.0, 99.0, -1.0, 1.0, 4.0]
; in: f64[3,2] = [2.0, 4.0, 7.0, 5.0, 8.0, -3.0]
; out0: f64[3,2] = [1.0, 2.0, 2.0, 1.0, 1.75, -0.5]
; out1: f64[3,2] = [1.1666666666666665, 0.6666666666666665, 1.6666666666666667, 1.9166666666666667, 2.0, -0.75]

; the upper triangle from the right, with and without the unit diagonal; the defaults.
func @right_upper(%a: f32[3,3], %b: f32[2,3]) -> (f32[2,3], f32[2,3], f32[2,3]) {
  %x: f32[2,3] = triangular_solve[lower=false](%a, %b)
  %y: f32[2,3] = triangular_solve[unit_diagonal=true](%a, %b)
  %z: f32[2,3] = triangular_solve[transpose_a=true](%a, %b)
  return %x, %y, %z
}
; run
; in: f32[3,3] = [2.0, 1.0, -1.0, 99.0, 4.0, 2.0, 99.0, 99.0, 0.5]
; in: f32[2,3] = [4.0, 6.0, 1.0, -2.0, 0.0, 3.0]
; out0: f32[2,3] = [2.0, 1.0, 2.0, -1.0, 0.25, 3.0]
; out1: f32[2,3] = [4.0, 2.0, 1.0, -2.0, 2.0, -3.0]
; out2: f32[2,3] = [2.75, 0.5, 2.0, 3.5, -3.0, 6.0]

; a batch of two systems; an empty right-hand side.
func @batched(%a: f64[2,2,2], %b: f64[2,2,1], %e: f64[2,2,0]) -> (f64[2,2,1], f64[2,2,0]) {
  %x: f64[2,2,1] = triangular_solve[left_side=true, lower=true](%a, %b)
  %y: f64[2,2,0] = triangular_solve[left_side=true, lower=true](%a, %e)
  return %x, %y
}
; run
; in: f64[2,2,2] = [1.0, 99.0, 2.0, 4.0, -2.0, 99.0, 1.0, 0.5]
; in: f64[2,2,1] = [3.0, 10.0, 4.0, 1.0]
; in: f64[2,2,0] = []
; out0: f64[2,2,1] = [3.0, 1.0, -2.0, 6.0]
; out1: f64[2,2,0] = []
