; reduce_sum over one, several, all and no axes; empty axes give 0; i32 wraps; each sum
; starts from +0 and adds the elements in C order (so a sum of -0.0 alone is +0.0).

; reduce_sum of an f32 matrix over each axis, both axes, and no axes (a copy).
func @sum_f32(%x: f32[2,3]) -> (f32[3], f32[2], f32[], f32[2,3]) {
  %a: f32[3] = reduce_sum[axes=[0]](%x)
  %b: f32[2] = reduce_sum[axes=[1]](%x)
  %c: f32[] = reduce_sum[axes=[0,1]](%x)
  %d: f32[2,3] = reduce_sum[axes=[]](%x)
  return %a, %b, %c, %d
}
; run
; in: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; out0: f32[3] = [5.0, 7.0, 9.0]
; out1: f32[2] = [6.0, 15.0]
; out2: f32[] = [21.0]
; out3: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; run
; in: f32[2,3] = [inf, 1.0, nan, -inf, 2.5, 0.5]
; out0: f32[3] = [nan, 3.5, nan]
; out1: f32[2] = [nan, -inf]
; out2: f32[] = [nan]
; out3: f32[2,3] = [inf, 1.0, nan, -inf, 2.5, 0.5]
; run
; in: f32[2,3] = [-0.0, -0.0, 1.0, -0.0, 0.0, -1.0]
; out0: f32[3] = [0.0, 0.0, 0.0]
; out1: f32[2] = [1.0, -1.0]
; out2: f32[] = [0.0]
; out3: f32[2,3] = [-0.0, -0.0, 1.0, -0.0, 0.0, -1.0]

; reduce_sum of a rank-3 array over non-adjacent axes, axes listed out of order, and the middle axis.
func @sum_rank3(%x: f32[2,3,2]) -> (f32[3], f32[2], f32[2,2]) {
  %a: f32[3] = reduce_sum[axes=[0,2]](%x)
  %b: f32[2] = reduce_sum[axes=[2,1]](%x)
  %c: f32[2,2] = reduce_sum[axes=[1]](%x)
  return %a, %b, %c
}
; run
; in: f32[2,3,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
; out0: f32[3] = [33.0, 77.0, 121.0]
; out1: f32[2] = [21.0, 210.0]
; out2: f32[2,2] = [9.0, 12.0, 90.0, 120.0]

; Sums over zero-size axes give 0; a zero-size kept axis gives an empty result.
func @sum_empty(%a: f32[0], %b: f32[2,0], %c: f32[0,3], %d: i32[0]) -> (f32[], f32[2], f32[0], f32[3], i32[]) {
  %r0: f32[] = reduce_sum[axes=[0]](%a)
  %r1: f32[2] = reduce_sum[axes=[1]](%b)
  %r2: f32[0] = reduce_sum[axes=[1]](%c)
  %r3: f32[3] = reduce_sum[axes=[0]](%c)
  %r4: i32[] = reduce_sum[axes=[0]](%d)
  return %r0, %r1, %r2, %r3, %r4
}
; run
; in: f32[0] = []
; in: f32[2,0] = []
; in: f32[0,3] = []
; in: i32[0] = []
; out0: f32[] = [0.0]
; out1: f32[2] = [0.0, 0.0]
; out2: f32[0] = []
; out3: f32[3] = [0.0, 0.0, 0.0]
; out4: i32[] = [0]

; reduce_sum on i32 wraps modulo 2^32.
func @sum_i32(%x: i32[2,3]) -> (i32[2], i32[3], i32[]) {
  %a: i32[2] = reduce_sum[axes=[1]](%x)
  %b: i32[3] = reduce_sum[axes=[0]](%x)
  %c: i32[] = reduce_sum[axes=[0,1]](%x)
  return %a, %b, %c
}
; run
; in: i32[2,3] = [2147483647, 1, 0, -2147483648, -1, 7]
; out0: i32[2] = [-2147483648, -2147483642]
; out1: i32[3] = [-1, 0, 7]
; out2: i32[] = [6]
; run
; in: i32[2,3] = [1, 2, 3, 4, 5, 6]
; out0: i32[2] = [6, 15]
; out1: i32[3] = [5, 7, 9]
; out2: i32[] = [21]

; reduce_sum on f64.
func @sum_f64(%x: f64[4]) -> (f64[]) {
  %a: f64[] = reduce_sum[axes=[0]](%x)
  return %a
}
; run
; in: f64[4] = [0.5, 0.25, 0.125, 1e300]
; out0: f64[] = [1e300]
; run
; in: f64[4] = [1e308, 1e308, -1e308, -1e308]
; out0: f64[] = [0.0]
; run
; in: f64[4] = [-0.0, -0.0, -0.0, -0.0]
; out0: f64[] = [0.0]

; A one-element sum of -0.0 over an axis is +0.0 (the sum starts from +0).
func @sum_negative_zero(%x: f32[1], %y: f32[2,1]) -> (f32[], f32[2]) {
  %a: f32[] = reduce_sum[axes=[0]](%x)
  %b: f32[2] = reduce_sum[axes=[1]](%y)
  return %a, %b
}
; run
; in: f32[1] = [-0.0]
; in: f32[2,1] = [-0.0, 3.0]
; out0: f32[] = [0.0]
; out1: f32[2] = [0.0, 3.0]
