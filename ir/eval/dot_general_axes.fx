; dot_general with transposed operands, several contracting axes (paired in the order
; listed), batch axes in any position, and zero-size axes.

; A^T B: contracting the first axis of both operands.
func @transposed_lhs(%a: f32[3,2], %b: f32[3,2]) -> (f32[2,2]) {
  %y: f32[2,2] = dot_general[lhs_contract=[0], rhs_contract=[0]](%a, %b)
  return %y
}
; run
; in: f32[3,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: f32[3,2] = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0]
; out0: f32[2,2] = [6.0, 8.0, 8.0, 10.0]

; A B^T: contracting the last axis of both operands.
func @transposed_rhs(%a: f32[2,3], %b: f32[4,3]) -> (f32[2,4]) {
  %y: f32[2,4] = dot_general[lhs_contract=[1], rhs_contract=[1]](%a, %b)
  return %y
}
; run
; in: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: f32[4,3] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, -1.0, 2.0]
; out0: f32[2,4] = [1.0, 2.0, 3.0, 5.0, 4.0, 5.0, 6.0, 11.0]

; Contraction over two axes, paired in order, and the same pairs listed the other way round.
func @contract_two_axes(%a: f32[2,3,2], %b: f32[3,2,2]) -> (f32[2,2], f32[2,2]) {
  %y: f32[2,2] = dot_general[lhs_contract=[1,2], rhs_contract=[0,1]](%a, %b)
  %z: f32[2,2] = dot_general[lhs_contract=[2,1], rhs_contract=[1,0]](%a, %b)
  return %y, %z
}
; run
; in: f32[2,3,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -1.0, 0.0, 1.0, 0.0, 2.0, 0.5]
; in: f32[3,2,2] = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 0.0, 0.5, 1.0, -1.0, 3.0]
; out0: f32[2,2] = [8.5, 28.0, 0.5, 4.5]
; out1: f32[2,2] = [8.5, 28.0, 0.5, 4.5]

; Contraction over two axes where lhs axis 0 pairs with rhs axis 1 and lhs axis 1 with rhs axis 0.
func @contract_crossed(%a: f32[2,3], %b: f32[3,2]) -> (f32[]) {
  %y: f32[] = dot_general[lhs_contract=[0,1], rhs_contract=[1,0]](%a, %b)
  return %y
}
; run
; in: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: f32[3,2] = [1.0, 10.0, 100.0, 1000.0, 0.5, 0.25]
; out0: f32[] = [5244.0]

; Batched matrix product with leading batch axes: f32[2,2,3] x f32[2,3,2] -> f32[2,2,2].
func @batched_matmul(%a: f32[2,2,3], %b: f32[2,3,2]) -> (f32[2,2,2]) {
  %y: f32[2,2,2] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0]](%a, %b)
  return %y
}
; run
; in: f32[2,2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 1.0, 0.0, -1.0, 2.0, 0.5, 0.0]
; in: f32[2,3,2] = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
; out0: f32[2,2,2] = [4.0, 5.0, 10.0, 11.0, -4.0, -4.0, 6.0, 8.5]

; Batch axes in the middle and at the end: the batch axis comes first in the result.
func @batch_not_leading(%a: f32[3,2,2], %b: f32[3,2]) -> (f32[2,2]) {
  %y: f32[2,2] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[1], rhs_batch=[1]](%a, %b)
  return %y
}
; run
; in: f32[3,2,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
; in: f32[3,2] = [1.0, 0.0, 0.0, 1.0, -1.0, 2.0]
; out0: f32[2,2] = [-8.0, -8.0, 29.0, 32.0]

; Two batch axes paired out of order, no contraction (a batched elementwise product).
func @two_batch_axes(%a: f32[2,3], %b: f32[3,2]) -> (f32[2,3]) {
  %y: f32[2,3] = dot_general[lhs_contract=[], rhs_contract=[], lhs_batch=[0,1], rhs_batch=[1,0]](%a, %b)
  return %y
}
; run
; in: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: f32[3,2] = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
; out0: f32[2,3] = [10.0, 60.0, 150.0, 80.0, 200.0, 360.0]

; A zero-size contraction gives zeros; a zero-size free axis gives an empty result.
func @zero_size(%a: f32[2,0], %b: f32[0,3], %c: f32[0,3], %d: f32[3,2]) -> (f32[2,3], f32[0,2]) {
  %y: f32[2,3] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  %z: f32[0,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%c, %d)
  return %y, %z
}
; run
; in: f32[2,0] = []
; in: f32[0,3] = []
; in: f32[0,3] = []
; in: f32[3,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; out0: f32[2,3] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
; out1: f32[0,2] = []

; A zero-size batch with zero-size contraction on i32.
func @zero_size_batch(%a: i32[0,2,0], %b: i32[0,0,3]) -> (i32[0,2,3]) {
  %y: i32[0,2,3] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0]](%a, %b)
  return %y
}
; run
; in: i32[0,2,0] = []
; in: i32[0,0,3] = []
; out0: i32[0,2,3] = []
