; dynamic_update_slice(x, update, i...): x with `update` written at the start indices,
; each clamped into [0, dim - update size] so that the update fits.

; a 2-element update into a vector: in range, past the end and before the start
func @vector(%x: f32[5], %u: f32[2], %i: i32[]) -> (f32[5]) {
  %y: f32[5] = dynamic_update_slice(%x, %u, %i)
  return %y
}
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: f32[2] = [-1.0, nan]
; in: i32[] = [1]
; out0: f32[5] = [0.0, -1.0, nan, 3.0, 4.0]
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: f32[2] = [-1.0, nan]
; in: i32[] = [4]
; out0: f32[5] = [0.0, 1.0, 2.0, -1.0, nan]
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: f32[2] = [-1.0, nan]
; in: i32[] = [2147483647]
; out0: f32[5] = [0.0, 1.0, 2.0, -1.0, nan]
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: f32[2] = [-1.0, nan]
; in: i32[] = [-1]
; out0: f32[5] = [-1.0, nan, 2.0, 3.0, 4.0]

; a 2x2 patch into a matrix, each axis clamped on its own
func @matrix(%x: i32[3,4], %u: i32[2,2], %i: i32[], %j: i32[]) -> (i32[3,4]) {
  %y: i32[3,4] = dynamic_update_slice(%x, %u, %i, %j)
  return %y
}
; run
; in: i32[3,4] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
; in: i32[2,2] = [1, 2, 3, 4]
; in: i32[] = [1]
; in: i32[] = [1]
; out0: i32[3,4] = [0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0]
; run
; in: i32[3,4] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
; in: i32[2,2] = [1, 2, 3, 4]
; in: i32[] = [5]
; in: i32[] = [-3]
; out0: i32[3,4] = [0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0]
; run
; in: i32[3,4] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
; in: i32[2,2] = [1, 2, 3, 4]
; in: i32[] = [-2147483648]
; in: i32[] = [3]
; out0: i32[3,4] = [0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0]

; a full-size update replaces everything; an empty update changes nothing; bools
func @full_empty_bool(%x: f64[2], %u: f64[2], %e: f64[0], %b: bool[3], %t: bool[1], %i: i32[]) -> (f64[2], f64[2], bool[3]) {
  %a: f64[2] = dynamic_update_slice(%x, %u, %i)
  %c: f64[2] = dynamic_update_slice(%x, %e, %i)
  %d: bool[3] = dynamic_update_slice(%b, %t, %i)
  return %a, %c, %d
}
; run
; in: f64[2] = [1.0, 2.0]
; in: f64[2] = [0.25, -0.25]
; in: f64[0] = []
; in: bool[3] = [false, false, false]
; in: bool[1] = [true]
; in: i32[] = [1]
; out0: f64[2] = [0.25, -0.25]
; out1: f64[2] = [1.0, 2.0]
; out2: bool[3] = [false, true, false]
; run
; in: f64[2] = [1.0, 2.0]
; in: f64[2] = [0.25, -0.25]
; in: f64[0] = []
; in: bool[3] = [false, false, false]
; in: bool[1] = [true]
; in: i32[] = [7]
; out0: f64[2] = [0.25, -0.25]
; out1: f64[2] = [1.0, 2.0]
; out2: bool[3] = [false, false, true]
