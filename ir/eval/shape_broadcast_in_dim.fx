; broadcast_in_dim: operand axis i becomes output axis dims[i]; an operand axis of
; size 1 expands to any output size, and output axes not in dims are new.

; a scalar splats to every element of the output (dims=[])
func @scalar(%x: i32[]) -> (i32[2,3], i32[]) {
  %y: i32[2,3] = broadcast_in_dim[shape=[2,3], dims=[]](%x)
  %s: i32[] = broadcast_in_dim[shape=[], dims=[]](%x)
  return %y, %s
}
; run
; in: i32[] = [-7]
; out0: i32[2,3] = [-7, -7, -7, -7, -7, -7]
; out1: i32[] = [-7]
; run
; in: i32[] = [2147483647]
; out0: i32[2,3] = [2147483647, 2147483647, 2147483647, 2147483647, 2147483647, 2147483647]
; out1: i32[] = [2147483647]

; a vector becomes the rows (new leading axis) or the columns (new trailing axis)
func @new_axes(%x: f32[3]) -> (f32[2,3], f32[3,2], f32[3]) {
  %r: f32[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%x)
  %c: f32[3,2] = broadcast_in_dim[shape=[3,2], dims=[0]](%x)
  %same: f32[3] = broadcast_in_dim[shape=[3], dims=[0]](%x)
  return %r, %c, %same
}
; run
; in: f32[3] = [1.5, -0.0, nan]
; out0: f32[2,3] = [1.5, -0.0, nan, 1.5, -0.0, nan]
; out1: f32[3,2] = [1.5, 1.5, -0.0, -0.0, nan, nan]
; out2: f32[3] = [1.5, -0.0, nan]

; size-1 axes expand: [2,1] -> [2,3] and [1,3] -> [2,3]
func @size_one(%x: f64[2,1], %y: f64[1,3]) -> (f64[2,3], f64[2,3]) {
  %a: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[0,1]](%x)
  %b: f64[2,3] = broadcast_in_dim[shape=[2,3], dims=[0,1]](%y)
  return %a, %b
}
; run
; in: f64[2,1] = [0.1, -inf]
; in: f64[1,3] = [1.0, 2.0, 3.0]
; out0: f64[2,3] = [0.1, 0.1, 0.1, -inf, -inf, -inf]
; out1: f64[2,3] = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]

; a size-1 axis expands while a new axis is inserted between operand axes
func @expand_and_insert(%x: bool[2,1], %y: i32[1,2]) -> (bool[2,4,3], i32[3,2,2]) {
  %a: bool[2,4,3] = broadcast_in_dim[shape=[2,4,3], dims=[0,2]](%x)
  %b: i32[3,2,2] = broadcast_in_dim[shape=[3,2,2], dims=[0,2]](%y)
  return %a, %b
}
; run
; in: bool[2,1] = [true, false]
; in: i32[1,2] = [5, -6]
; out0: bool[2,4,3] = [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false]
; out1: i32[3,2,2] = [5, -6, 5, -6, 5, -6, 5, -6, 5, -6, 5, -6]

; broadcasting to zero-size outputs: a size-1 axis to size 0, and a new axis of size 0
func @to_empty(%x: f32[1]) -> (f32[0], f32[0,2], f32[2,0]) {
  %a: f32[0] = broadcast_in_dim[shape=[0], dims=[0]](%x)
  %b: f32[0,2] = broadcast_in_dim[shape=[0,2], dims=[1]](%x)
  %c: f32[2,0] = broadcast_in_dim[shape=[2,0], dims=[0]](%x)
  return %a, %b, %c
}
; run
; in: f32[1] = [3.0]
; out0: f32[0] = []
; out1: f32[0,2] = []
; out2: f32[2,0] = []
