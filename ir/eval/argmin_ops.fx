; argmin: the i32 index of the first minimum along an axis; a NaN counts as the minimum
; (the first NaN wins); equal values, -0.0 and +0.0 included, keep the earlier index.

; argmin of an f32 matrix along each axis.
func @argmin_f32(%x: f32[3,4]) -> (i32[3], i32[4]) {
  %a: i32[3] = argmin[axis=1, index_dtype=i32](%x)
  %b: i32[4] = argmin[axis=0, index_dtype=i32](%x)
  return %a, %b
}
; run
; in: f32[3,4] = [2.0, 1.0, 1.0, 3.0, 1.0, nan, -5.0, nan, 0.0, -0.0, 1.0, 0.0]
; out0: i32[3] = [1, 1, 0]
; out1: i32[4] = [2, 1, 1, 1]
; run
; in: f32[3,4] = [inf, inf, inf, inf, -2.0, -inf, -inf, 1.0, -2.0, 1.0, nan, -inf]
; out0: i32[3] = [0, 1, 2]
; out1: i32[4] = [1, 1, 2, 2]

; argmin on f64, i32, and along an axis of length 1.
func @argmin_f64_i32(%x: f64[5], %y: i32[2,3], %z: f32[2,1]) -> (i32[], i32[2], i32[2]) {
  %a: i32[] = argmin[axis=0, index_dtype=i32](%x)
  %b: i32[2] = argmin[axis=1, index_dtype=i32](%y)
  %c: i32[2] = argmin[axis=1, index_dtype=i32](%z)
  return %a, %b, %c
}
; run
; in: f64[5] = [0.0, -5e-324, -1.7976931348623157e308, -1.7976931348623157e308, inf]
; in: i32[2,3] = [2147483647, -2147483648, -2147483648, 5, 5, 6]
; in: f32[2,1] = [nan, inf]
; out0: i32[] = [2]
; out1: i32[2] = [1, 0]
; out2: i32[2] = [0, 0]
; run
; in: f64[5] = [1.0, 2.0, nan, -3.0, nan]
; in: i32[2,3] = [2147483647, 2147483647, 2147483647, 0, -1, -2]
; in: f32[2,1] = [0.0, -1.0]
; out0: i32[] = [2]
; out1: i32[2] = [0, 2]
; out2: i32[2] = [0, 0]

; argmin along the first axis of a rank-3 array.
func @argmin_rank3(%x: f32[3,2,2]) -> (i32[2,2]) {
  %a: i32[2,2] = argmin[axis=0, index_dtype=i32](%x)
  return %a
}
; run
; in: f32[3,2,2] = [1.0, 6.0, 5.0, 2.0, 3.0, -6.0, 0.0, 2.0, 0.0, -6.0, -4.0, nan]
; out0: i32[2,2] = [2, 1, 2, 2]
