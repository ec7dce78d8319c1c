; reduce_prod over axes: empty axes give 1, i32 wraps, signed zeros and 0 * inf follow IEEE.

; reduce_prod of an f32 matrix over each axis, all axes and no axes.
func @prod_f32(%x: f32[2,3]) -> (f32[3], f32[2], f32[], f32[2,3]) {
  %a: f32[3] = reduce_prod[axes=[0]](%x)
  %b: f32[2] = reduce_prod[axes=[1]](%x)
  %c: f32[] = reduce_prod[axes=[0,1]](%x)
  %d: f32[2,3] = reduce_prod[axes=[]](%x)
  return %a, %b, %c, %d
}
; run
; in: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 0.5, -6.0]
; out0: f32[3] = [4.0, 1.0, -18.0]
; out1: f32[2] = [6.0, -12.0]
; out2: f32[] = [-72.0]
; out3: f32[2,3] = [1.0, 2.0, 3.0, 4.0, 0.5, -6.0]
; run
; in: f32[2,3] = [0.0, inf, -1.0, -0.0, 2.0, nan]
; out0: f32[3] = [-0.0, inf, nan]
; out1: f32[2] = [nan, nan]
; out2: f32[] = [nan]
; out3: f32[2,3] = [0.0, inf, -1.0, -0.0, 2.0, nan]
; run
; in: f32[2,3] = [1e20, 1e20, -0.0, 1e-30, 1e-30, -1.0]
; out0: f32[3] = [1e-10, 1e-10, 0.0]
; out1: f32[2] = [nan, -0.0]
; out2: f32[] = [nan]
; out3: f32[2,3] = [1e20, 1e20, -0.0, 1e-30, 1e-30, -1.0]

; Products over zero elements give 1.
func @prod_empty(%a: f32[0], %b: i32[2,0], %c: f64[0,2]) -> (f32[], i32[2], f64[2]) {
  %r0: f32[] = reduce_prod[axes=[0]](%a)
  %r1: i32[2] = reduce_prod[axes=[1]](%b)
  %r2: f64[2] = reduce_prod[axes=[0]](%c)
  return %r0, %r1, %r2
}
; run
; in: f32[0] = []
; in: i32[2,0] = []
; in: f64[0,2] = []
; out0: f32[] = [1.0]
; out1: i32[2] = [1, 1]
; out2: f64[2] = [1.0, 1.0]

; reduce_prod on i32 wraps modulo 2^32.
func @prod_i32(%x: i32[3,2]) -> (i32[3], i32[2]) {
  %a: i32[3] = reduce_prod[axes=[1]](%x)
  %b: i32[2] = reduce_prod[axes=[0]](%x)
  return %a, %b
}
; run
; in: i32[3,2] = [65536, 65536, 2147483647, 2, -2147483648, -1]
; out0: i32[3] = [0, -2, -2147483648]
; out1: i32[2] = [0, -131072]
; run
; in: i32[3,2] = [1, 2, 3, 4, 5, 6]
; out0: i32[3] = [2, 12, 30]
; out1: i32[2] = [15, 48]

; reduce_prod on f64.
func @prod_f64(%x: f64[4]) -> (f64[]) {
  %a: f64[] = reduce_prod[axes=[0]](%x)
  return %a
}
; run
; in: f64[4] = [0.5, -4.0, 1.5, 1e300]
; out0: f64[] = [-3e300]
; run
; in: f64[4] = [1e200, 1e200, 1e-200, 1e-200]
; out0: f64[] = [1.0]
