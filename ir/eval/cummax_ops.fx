; cummax and cummin: running maximum and minimum along an axis, forward or reversed
; (jax.lax.cummax, cummin). A NaN propagates to every later element of the scan; a tie
; of zeros gives +0 for max and -0 for min, as max/min and reduce_max/reduce_min; i32 is
; exact; zero-size arrays stay empty.

; a vector, both directions.
func @running_vector(%x: f32[6]) -> (f32[6], f32[6], f32[6], f32[6]) {
  %a: f32[6] = cummax[axis=0](%x)
  %b: f32[6] = cummax[axis=0, reverse=true](%x)
  %c: f32[6] = cummin[axis=0](%x)
  %d: f32[6] = cummin[axis=0, reverse=true](%x)
  return %a, %b, %c, %d
}
; run
; in: f32[6] = [3.0, 1.0, 4.0, 1.0, 5.0, -9.0]
; out0: f32[6] = [3.0, 3.0, 4.0, 4.0, 5.0, 5.0]
; out1: f32[6] = [5.0, 5.0, 5.0, 5.0, 5.0, -9.0]
; out2: f32[6] = [3.0, 1.0, 1.0, 1.0, 1.0, -9.0]
; out3: f32[6] = [-9.0, -9.0, -9.0, -9.0, -9.0, -9.0]
; run
; in: f32[6] = [-0.0, 0.0, nan, 7.0, -inf, inf]
; out0: f32[6] = [-0.0, 0.0, nan, nan, nan, nan]
; out1: f32[6] = [nan, nan, nan, inf, inf, inf]
; out2: f32[6] = [-0.0, -0.0, nan, nan, nan, nan]
; out3: f32[6] = [nan, nan, nan, -inf, -inf, inf]

; a matrix along each axis, and i32.
func @running_matrix(%x: f64[2,3], %k: i32[2,3]) -> (f64[2,3], f64[2,3], i32[2,3], i32[2,3]) {
  %a: f64[2,3] = cummax[axis=1](%x)
  %b: f64[2,3] = cummin[axis=0, reverse=true](%x)
  %c: i32[2,3] = cummax[axis=0](%k)
  %d: i32[2,3] = cummin[axis=1, reverse=true](%k)
  return %a, %b, %c, %d
}
; run
; in: f64[2,3] = [1.0, -2.0, 3.0, 0.5, 7.0, -1.0]
; in: i32[2,3] = [5, -3, 2, 4, 9, -8]
; out0: f64[2,3] = [1.0, 1.0, 3.0, 0.5, 7.0, 7.0]
; out1: f64[2,3] = [0.5, -2.0, -1.0, 0.5, 7.0, -1.0]
; out2: i32[2,3] = [5, -3, 2, 5, 9, 2]
; out3: i32[2,3] = [-3, -3, 2, -8, -8, -8]

; empty along the scanned axis and along another.
func @running_empty(%x: f32[0,3], %y: f32[2,0]) -> (f32[0,3], f32[2,0]) {
  %a: f32[0,3] = cummax[axis=0](%x)
  %b: f32[2,0] = cummin[axis=1, reverse=true](%y)
  return %a, %b
}
; run
; in: f32[0,3] = []
; in: f32[2,0] = []
; out0: f32[0,3] = []
; out1: f32[2,0] = []
