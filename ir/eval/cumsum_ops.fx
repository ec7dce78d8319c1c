; cumsum: inclusive prefix sums along an axis, forward or reversed; each running sum starts
; from +0 (a lone -0.0 sums to +0.0); i32 wraps; zero-size arrays stay empty.

; cumsum of a vector, forward and reversed.
func @cumsum_vector(%x: f32[5]) -> (f32[5], f32[5]) {
  %a: f32[5] = cumsum[axis=0](%x)
  %b: f32[5] = cumsum[axis=0, reverse=true](%x)
  return %a, %b
}
; run
; in: f32[5] = [1.0, 2.0, 3.0, 4.0, 5.0]
; out0: f32[5] = [1.0, 3.0, 6.0, 10.0, 15.0]
; out1: f32[5] = [15.0, 14.0, 12.0, 9.0, 5.0]
; run
; in: f32[5] = [1.0, inf, 2.0, -inf, 3.0]
; out0: f32[5] = [1.0, inf, inf, nan, nan]
; out1: f32[5] = [nan, nan, -inf, -inf, 3.0]
; run
; in: f32[5] = [-0.0, -0.0, 1.0, nan, -1.0]
; out0: f32[5] = [0.0, 0.0, 1.0, nan, nan]
; out1: f32[5] = [nan, nan, nan, nan, -1.0]

; cumsum of a matrix along the inner and the outer axis, each both ways.
func @cumsum_matrix(%x: f32[2,3]) -> (f32[2,3], f32[2,3], f32[2,3], f32[2,3]) {
  %a: f32[2,3] = cumsum[axis=1](%x)
  %b: f32[2,3] = cumsum[axis=1, reverse=true](%x)
  %c: f32[2,3] = cumsum[axis=0](%x)
  %d: f32[2,3] = cumsum[axis=0, reverse=true](%x)
  return %a, %b, %c, %d
}
; run
; in: f32[2,3] = [1.0, 2.0, 3.0, 10.0, 20.0, 30.0]
; out0: f32[2,3] = [1.0, 3.0, 6.0, 10.0, 30.0, 60.0]
; out1: f32[2,3] = [6.0, 5.0, 3.0, 60.0, 50.0, 30.0]
; out2: f32[2,3] = [1.0, 2.0, 3.0, 11.0, 22.0, 33.0]
; out3: f32[2,3] = [11.0, 22.0, 33.0, 10.0, 20.0, 30.0]

; cumsum along the middle axis of a rank-3 array.
func @cumsum_rank3(%x: f64[2,3,2]) -> (f64[2,3,2], f64[2,3,2]) {
  %a: f64[2,3,2] = cumsum[axis=1](%x)
  %b: f64[2,3,2] = cumsum[axis=1, reverse=true](%x)
  return %a, %b
}
; run
; in: f64[2,3,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.5, 0.25, -0.5, -0.25, 1e300, -1e300]
; out0: f64[2,3,2] = [1.0, 2.0, 4.0, 6.0, 9.0, 12.0, 0.5, 0.25, 0.0, 0.0, 1e300, -1e300]
; out1: f64[2,3,2] = [9.0, 12.0, 8.0, 10.0, 5.0, 6.0, 1e300, -1e300, 1e300, -1e300, 1e300, -1e300]

; cumsum on i32 wraps modulo 2^32.
func @cumsum_i32(%x: i32[4]) -> (i32[4], i32[4]) {
  %a: i32[4] = cumsum[axis=0](%x)
  %b: i32[4] = cumsum[axis=0, reverse=true](%x)
  return %a, %b
}
; run
; in: i32[4] = [2147483647, 1, -1, -2147483648]
; out0: i32[4] = [2147483647, -2147483648, 2147483647, -1]
; out1: i32[4] = [-1, -2147483648, 2147483647, -2147483648]

; cumsum of zero-size arrays, along the empty axis and along a non-empty one.
func @cumsum_empty(%x: f32[0], %y: f32[2,0], %z: i32[0,3]) -> (f32[0], f32[2,0], i32[0,3]) {
  %a: f32[0] = cumsum[axis=0, reverse=true](%x)
  %b: f32[2,0] = cumsum[axis=0](%y)
  %c: i32[0,3] = cumsum[axis=1](%z)
  return %a, %b, %c
}
; run
; in: f32[0] = []
; in: f32[2,0] = []
; in: i32[0,3] = []
; out0: f32[0] = []
; out1: f32[2,0] = []
; out2: i32[0,3] = []

; cumsum along an axis of length 1 is 0 + x (so -0.0 becomes +0.0).
func @cumsum_length_one(%x: f32[3,1]) -> (f32[3,1], f32[3,1]) {
  %a: f32[3,1] = cumsum[axis=1](%x)
  %b: f32[3,1] = cumsum[axis=1, reverse=true](%x)
  return %a, %b
}
; run
; in: f32[3,1] = [-0.0, 2.5, nan]
; out0: f32[3,1] = [0.0, 2.5, nan]
; out1: f32[3,1] = [0.0, 2.5, nan]
