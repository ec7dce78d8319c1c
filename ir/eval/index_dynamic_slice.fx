; dynamic_slice[sizes](x, i...): the box of `sizes` starting at the i32 start indices,
; each clamped into [0, dim - size] so that the box fits.

; a window of 2 in a vector: in range, past the end and before the start
func @vector(%x: f32[5], %i: i32[]) -> (f32[2]) {
  %y: f32[2] = dynamic_slice[sizes=[2]](%x, %i)
  return %y
}
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: i32[] = [0]
; out0: f32[2] = [0.0, 1.0]
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: i32[] = [3]
; out0: f32[2] = [3.0, 4.0]
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: i32[] = [4]
; out0: f32[2] = [3.0, 4.0]
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: i32[] = [2147483647]
; out0: f32[2] = [3.0, 4.0]
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: i32[] = [-1]
; out0: f32[2] = [0.0, 1.0]
; run
; in: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]
; in: i32[] = [-2147483648]
; out0: f32[2] = [0.0, 1.0]

; a 2x3 box of a matrix, each axis clamped on its own
func @matrix(%x: i32[4,5], %i: i32[], %j: i32[]) -> (i32[2,3]) {
  %y: i32[2,3] = dynamic_slice[sizes=[2,3]](%x, %i, %j)
  return %y
}
; run
; in: i32[4,5] = [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24, 30, 31, 32, 33, 34]
; in: i32[] = [1]
; in: i32[] = [1]
; out0: i32[2,3] = [11, 12, 13, 21, 22, 23]
; run
; in: i32[4,5] = [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24, 30, 31, 32, 33, 34]
; in: i32[] = [-5]
; in: i32[] = [9]
; out0: i32[2,3] = [2, 3, 4, 12, 13, 14]
; run
; in: i32[4,5] = [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24, 30, 31, 32, 33, 34]
; in: i32[] = [3]
; in: i32[] = [-1]
; out0: i32[2,3] = [20, 21, 22, 30, 31, 32]

; full-size slices can only start at 0; zero-size slices are empty whatever the start
func @full_and_empty(%x: f64[3], %b: bool[2,2], %i: i32[]) -> (f64[3], f64[0], bool[2,1], bool[0,2]) {
  %a: f64[3] = dynamic_slice[sizes=[3]](%x, %i)
  %e: f64[0] = dynamic_slice[sizes=[0]](%x, %i)
  %c: bool[2,1] = dynamic_slice[sizes=[2,1]](%b, %i, %i)
  %d: bool[0,2] = dynamic_slice[sizes=[0,2]](%b, %i, %i)
  return %a, %e, %c, %d
}
; run
; in: f64[3] = [0.5, 1.5, 2.5]
; in: bool[2,2] = [true, false, false, true]
; in: i32[] = [2]
; out0: f64[3] = [0.5, 1.5, 2.5]
; out1: f64[0] = []
; out2: bool[2,1] = [false, true]
; out3: bool[0,2] = []
; run
; in: f64[3] = [0.5, 1.5, 2.5]
; in: bool[2,2] = [true, false, false, true]
; in: i32[] = [-2]
; out0: f64[3] = [0.5, 1.5, 2.5]
; out1: f64[0] = []
; out2: bool[2,1] = [true, false]
; out3: bool[0,2] = []
