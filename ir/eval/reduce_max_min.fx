; reduce_max and reduce_min propagate NaN, order signed zeros like max/min, and give
; -inf/+inf (i32::MIN/i32::MAX on i32) over zero elements.

; reduce_max and reduce_min of an f32 matrix over each axis and over all axes.
func @max_min_f32(%x: f32[2,4]) -> (f32[2], f32[2], f32[4], f32[4], f32[], f32[]) {
  %a: f32[2] = reduce_max[axes=[1]](%x)
  %b: f32[2] = reduce_min[axes=[1]](%x)
  %c: f32[4] = reduce_max[axes=[0]](%x)
  %d: f32[4] = reduce_min[axes=[0]](%x)
  %e: f32[] = reduce_max[axes=[0,1]](%x)
  %f: f32[] = reduce_min[axes=[0,1]](%x)
  return %a, %b, %c, %d, %e, %f
}
; run
; in: f32[2,4] = [3.0, -1.0, 7.5, 2.0, -4.0, 10.0, 0.5, 2.0]
; out0: f32[2] = [7.5, 10.0]
; out1: f32[2] = [-1.0, -4.0]
; out2: f32[4] = [3.0, 10.0, 7.5, 2.0]
; out3: f32[4] = [-4.0, -1.0, 0.5, 2.0]
; out4: f32[] = [10.0]
; out5: f32[] = [-4.0]
; run
; in: f32[2,4] = [1.0, nan, 5.0, -inf, inf, 2.0, 3.0, -inf]
; out0: f32[2] = [nan, inf]
; out1: f32[2] = [nan, -inf]
; out2: f32[4] = [inf, nan, 5.0, -inf]
; out3: f32[4] = [1.0, nan, 3.0, -inf]
; out4: f32[] = [nan]
; out5: f32[] = [nan]
; run
; in: f32[2,4] = [-0.0, 0.0, -0.0, -0.0, 0.0, -0.0, -0.0, 0.0]
; out0: f32[2] = [0.0, 0.0]
; out1: f32[2] = [-0.0, -0.0]
; out2: f32[4] = [0.0, 0.0, -0.0, 0.0]
; out3: f32[4] = [-0.0, -0.0, -0.0, -0.0]
; out4: f32[] = [0.0]
; out5: f32[] = [-0.0]
; run
; in: f32[2,4] = [-inf, -inf, -inf, -inf, inf, inf, inf, nan]
; out0: f32[2] = [-inf, nan]
; out1: f32[2] = [-inf, nan]
; out2: f32[4] = [inf, inf, inf, nan]
; out3: f32[4] = [-inf, -inf, -inf, nan]
; out4: f32[] = [nan]
; out5: f32[] = [nan]

; Over zero elements the results are the identities -inf and +inf.
func @max_min_empty(%x: f32[0], %y: f64[3,0], %z: i32[0], %w: f32[0,2]) -> (f32[], f32[], f64[3], f64[3], i32[], i32[], f32[2], f32[0]) {
  %a: f32[] = reduce_max[axes=[0]](%x)
  %b: f32[] = reduce_min[axes=[0]](%x)
  %c: f64[3] = reduce_max[axes=[1]](%y)
  %d: f64[3] = reduce_min[axes=[1]](%y)
  %e: i32[] = reduce_max[axes=[0]](%z)
  %f: i32[] = reduce_min[axes=[0]](%z)
  %g: f32[2] = reduce_max[axes=[0]](%w)
  %h: f32[0] = reduce_min[axes=[1]](%w)
  return %a, %b, %c, %d, %e, %f, %g, %h
}
; run
; in: f32[0] = []
; in: f64[3,0] = []
; in: i32[0] = []
; in: f32[0,2] = []
; out0: f32[] = [-inf]
; out1: f32[] = [inf]
; out2: f64[3] = [-inf, -inf, -inf]
; out3: f64[3] = [inf, inf, inf]
; out4: i32[] = [-2147483648]
; out5: i32[] = [2147483647]
; out6: f32[2] = [-inf, -inf]
; out7: f32[0] = []

; reduce_max and reduce_min on i32 over the whole range.
func @max_min_i32(%x: i32[2,3]) -> (i32[2], i32[2], i32[3], i32[3]) {
  %a: i32[2] = reduce_max[axes=[1]](%x)
  %b: i32[2] = reduce_min[axes=[1]](%x)
  %c: i32[3] = reduce_max[axes=[0]](%x)
  %d: i32[3] = reduce_min[axes=[0]](%x)
  return %a, %b, %c, %d
}
; run
; in: i32[2,3] = [-2147483648, 5, 2147483647, -1, -2147483648, 0]
; out0: i32[2] = [2147483647, 0]
; out1: i32[2] = [-2147483648, -2147483648]
; out2: i32[3] = [-1, 5, 2147483647]
; out3: i32[3] = [-2147483648, -2147483648, 0]

; reduce_max and reduce_min on f64, NaN last in the row.
func @max_min_f64(%x: f64[5]) -> (f64[], f64[]) {
  %a: f64[] = reduce_max[axes=[0]](%x)
  %b: f64[] = reduce_min[axes=[0]](%x)
  return %a, %b
}
; run
; in: f64[5] = [1.0, -1.7976931348623157e308, 5e-324, 1.7976931348623157e308, 0.0]
; out0: f64[] = [1.7976931348623157e308]
; out1: f64[] = [-1.7976931348623157e308]
; run
; in: f64[5] = [1.0, 2.0, 3.0, 4.0, nan]
; out0: f64[] = [nan]
; out1: f64[] = [nan]

; reduce_max and reduce_min over no axes return the operand unchanged.
func @max_min_no_axes(%x: f32[4]) -> (f32[4], f32[4]) {
  %a: f32[4] = reduce_max[axes=[]](%x)
  %b: f32[4] = reduce_min[axes=[]](%x)
  return %a, %b
}
; run
; in: f32[4] = [-0.0, nan, -inf, 2.0]
; out0: f32[4] = [-0.0, nan, -inf, 2.0]
; out1: f32[4] = [-0.0, nan, -inf, 2.0]
