; reshape: the same elements in C order under a new shape.

; a matrix re-read as other shapes of 6 elements
func @matrix(%x: i32[2,3]) -> (i32[3,2], i32[6], i32[1,6,1]) {
  %a: i32[3,2] = reshape[shape=[3,2]](%x)
  %b: i32[6] = reshape[shape=[6]](%x)
  %c: i32[1,6,1] = reshape[shape=[1,6,1]](%x)
  return %a, %b, %c
}
; run
; in: i32[2,3] = [0, 1, 2, 3, 4, 5]
; out0: i32[3,2] = [0, 1, 2, 3, 4, 5]
; out1: i32[6] = [0, 1, 2, 3, 4, 5]
; out2: i32[1,6,1] = [0, 1, 2, 3, 4, 5]

; a scalar to [1,1,1] and back; f64 rank 3 to rank 2
func @rank_changes(%s: f32[], %x: f64[2,2,2]) -> (f32[1,1,1], f32[], f64[4,2], f64[2,4]) {
  %a: f32[1,1,1] = reshape[shape=[1,1,1]](%s)
  %b: f32[] = reshape[shape=[]](%a)
  %c: f64[4,2] = reshape[shape=[4,2]](%x)
  %d: f64[2,4] = reshape[shape=[2,4]](%x)
  return %a, %b, %c, %d
}
; run
; in: f32[] = [-2.5]
; in: f64[2,2,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
; out0: f32[1,1,1] = [-2.5]
; out1: f32[] = [-2.5]
; out2: f64[4,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
; out3: f64[2,4] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]

; zero-size arrays reshape to any shape with a zero
func @zero_size(%x: f32[0,3]) -> (f32[3,0], f32[0], f32[2,0,5]) {
  %a: f32[3,0] = reshape[shape=[3,0]](%x)
  %b: f32[0] = reshape[shape=[0]](%x)
  %c: f32[2,0,5] = reshape[shape=[2,0,5]](%x)
  return %a, %b, %c
}
; run
; in: f32[0,3] = []
; out0: f32[3,0] = []
; out1: f32[0] = []
; out2: f32[2,0,5] = []

; bool elements keep their order
func @bools(%x: bool[4]) -> (bool[2,2]) {
  %y: bool[2,2] = reshape[shape=[2,2]](%x)
  return %y
}
; run
; in: bool[4] = [true, false, false, true]
; out0: bool[2,2] = [true, false, false, true]
