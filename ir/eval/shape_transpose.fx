; transpose: output axis i is operand axis perm[i].

; a matrix transposed, and the identity permutation
func @matrix(%x: f64[2,3]) -> (f64[3,2], f64[2,3]) {
  %t: f64[3,2] = transpose[perm=[1,0]](%x)
  %i: f64[2,3] = transpose[perm=[0,1]](%x)
  return %t, %i
}
; run
; in: f64[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; out0: f64[3,2] = [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
; out1: f64[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]

; 3-D permutations: a rotation each way and the full reversal of the axes
func @three_d(%x: i32[2,3,4]) -> (i32[4,2,3], i32[3,4,2], i32[4,3,2], i32[2,4,3]) {
  %a: i32[4,2,3] = transpose[perm=[2,0,1]](%x)
  %b: i32[3,4,2] = transpose[perm=[1,2,0]](%x)
  %c: i32[4,3,2] = transpose[perm=[2,1,0]](%x)
  %d: i32[2,4,3] = transpose[perm=[0,2,1]](%x)
  return %a, %b, %c, %d
}
; run
; in: i32[2,3,4] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]
; out0: i32[4,2,3] = [0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23]
; out1: i32[3,4,2] = [0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23]
; out2: i32[4,3,2] = [0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23]
; out3: i32[2,4,3] = [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23]

; bools with a size-1 axis, and a zero-size 3-D array
func @odd_shapes(%x: bool[2,1,3], %e: f32[0,2,3]) -> (bool[1,3,2], f32[3,2,0]) {
  %a: bool[1,3,2] = transpose[perm=[1,2,0]](%x)
  %b: f32[3,2,0] = transpose[perm=[2,1,0]](%e)
  return %a, %b
}
; run
; in: bool[2,1,3] = [true, false, false, false, true, true]
; in: f32[0,2,3] = []
; out0: bool[1,3,2] = [true, false, false, true, false, true]
; out1: f32[3,2,0] = []
