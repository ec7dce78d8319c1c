; top_k: the k largest along the last axis in descending order with their i32 indices
; (jax.lax.top_k); ties keep the lower index first. Floats are ranked by IEEE 754's
; total order, as XLA's TopK does: 0.0 above -0.0, a (positive) NaN above every number.

func @top_k_vector(%x: f32[7]) -> (f32[3], i32[3], f32[7], i32[7]) {
  %v: f32[3], %i: i32[3] = top_k[k=3](%x)
  %w: f32[7], %j: i32[7] = top_k[k=7](%x)
  return %v, %i, %w, %j
}
; run
; in: f32[7] = [1.0, 5.0, -0.0, 5.0, 0.0, -inf, 2.0]
; out0: f32[3] = [5.0, 5.0, 2.0]
; out1: i32[3] = [1, 3, 6]
; out2: f32[7] = [5.0, 5.0, 2.0, 1.0, 0.0, -0.0, -inf]
; out3: i32[7] = [1, 3, 6, 0, 4, 2, 5]
; run
; in: f32[7] = [1.0, nan, 3.0, inf, nan, -1.0, 3.0]
; out0: f32[3] = [nan, nan, inf]
; out1: i32[3] = [1, 4, 3]
; out2: f32[7] = [nan, nan, inf, 3.0, 3.0, 1.0, -1.0]
; out3: i32[7] = [1, 4, 3, 2, 6, 0, 5]

func @top_k_matrix(%x: f64[2,4], %k: i32[2,4]) -> (f64[2,2], i32[2,2], i32[2,1], i32[2,1]) {
  %v: f64[2,2], %i: i32[2,2] = top_k[k=2](%x)
  %w: i32[2,1], %j: i32[2,1] = top_k[k=1](%k)
  return %v, %i, %w, %j
}
; run
; in: f64[2,4] = [0.5, 2.0, -1.0, 2.0, 9.0, 8.0, 7.0, 10.0]
; in: i32[2,4] = [3, 3, -1, 2, -5, 4, 4, 0]
; out0: f64[2,2] = [2.0, 2.0, 10.0, 9.0]
; out1: i32[2,2] = [1, 3, 3, 0]
; out2: i32[2,1] = [3, 4]
; out3: i32[2,1] = [0, 1]

; k = 0, and bf16 values.
func @top_k_edge(%x: f32[2,3], %h: bf16[4]) -> (f32[2,0], i32[2,0], bf16[2], i32[2]) {
  %v: f32[2,0], %i: i32[2,0] = top_k[k=0](%x)
  %w: bf16[2], %j: i32[2] = top_k[k=2](%h)
  return %v, %i, %w, %j
}
; run
; in: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: bf16[4] = [0.5, 1.5, -2.0, 1.5]
; out0: f32[2,0] = []
; out1: i32[2,0] = []
; out2: bf16[2] = [1.5, 1.5]
; out3: i32[2] = [1, 3]
