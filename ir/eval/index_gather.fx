; gather[axis, batch_dims](x, idx): take along `axis` at the i32 indices, each clamped
; into [0, dim - 1]; result shape x.shape[:axis] + idx.shape[batch_dims:] + x.shape[axis+1:].

; rows of a matrix (axis 0), repeated, and out-of-range or negative indices clamped
func @rows(%x: f32[3,2], %idx: i32[4]) -> (f32[4,2]) {
  %y: f32[4,2] = gather[axis=0](%x, %idx)
  return %y
}
; run
; in: f32[3,2] = [0.0, 1.0, 10.0, 11.0, 20.0, 21.0]
; in: i32[4] = [2, 0, 0, 1]
; out0: f32[4,2] = [20.0, 21.0, 0.0, 1.0, 0.0, 1.0, 10.0, 11.0]
; run
; in: f32[3,2] = [0.0, 1.0, 10.0, 11.0, 20.0, 21.0]
; in: i32[4] = [-1, 3, 2147483647, -2147483648]
; out0: f32[4,2] = [0.0, 1.0, 20.0, 21.0, 20.0, 21.0, 0.0, 1.0]

; columns of a matrix (axis 1), with clamping
func @columns(%x: i32[2,4], %idx: i32[3]) -> (i32[2,3]) {
  %y: i32[2,3] = gather[axis=1](%x, %idx)
  return %y
}
; run
; in: i32[2,4] = [0, 1, 2, 3, 10, 11, 12, 13]
; in: i32[3] = [3, -7, 9]
; out0: i32[2,3] = [3, 0, 3, 13, 10, 13]

; multi-dimensional index arrays: their shape replaces the gathered axis
func @index_arrays(%v: f32[5], %m: f64[2,3], %i: i32[2,3], %j: i32[2,2]) -> (f32[2,3], f64[2,2,2], f64[2,2,3]) {
  %a: f32[2,3] = gather[axis=0](%v, %i)
  %b: f64[2,2,2] = gather[axis=1](%m, %j)
  %c: f64[2,2,3] = gather[axis=0](%m, %j)
  return %a, %b, %c
}
; run
; in: f32[5] = [0.5, 1.5, 2.5, 3.5, 4.5]
; in: f64[2,3] = [0.0, 1.0, 2.0, 10.0, 11.0, 12.0]
; in: i32[2,3] = [4, 0, 9, -1, 2, 2]
; in: i32[2,2] = [2, 0, 1, 5]
; out0: f32[2,3] = [4.5, 0.5, 4.5, 0.5, 2.5, 2.5]
; out1: f64[2,2,2] = [2.0, 0.0, 1.0, 2.0, 12.0, 10.0, 11.0, 12.0]
; out2: f64[2,2,3] = [10.0, 11.0, 12.0, 0.0, 1.0, 2.0, 10.0, 11.0, 12.0, 10.0, 11.0, 12.0]

; a scalar index removes the axis, like x[i] or x[:, i]
func @scalar_index(%x: f32[3,2], %i: i32[]) -> (f32[2], f32[3]) {
  %a: f32[2] = gather[axis=0](%x, %i)
  %b: f32[3] = gather[axis=1](%x, %i)
  return %a, %b
}
; run
; in: f32[3,2] = [0.0, 1.0, 10.0, 11.0, 20.0, 21.0]
; in: i32[] = [1]
; out0: f32[2] = [10.0, 11.0]
; out1: f32[3] = [1.0, 11.0, 21.0]
; run
; in: f32[3,2] = [0.0, 1.0, 10.0, 11.0, 20.0, 21.0]
; in: i32[] = [-4]
; out0: f32[2] = [0.0, 1.0]
; out1: f32[3] = [0.0, 10.0, 20.0]

; batch_dims=1: row b of x is indexed by row b of idx (per-row label lookup), and
; along axis 2 of a 3-D array
func @batched(%x: f32[2,3], %idx: i32[2,2], %y: i32[2,2,3], %jdx: i32[2,4]) -> (f32[2,2], i32[2,2,4]) {
  %a: f32[2,2] = gather[axis=1, batch_dims=1](%x, %idx)
  %b: i32[2,2,4] = gather[axis=2, batch_dims=1](%y, %jdx)
  return %a, %b
}
; run
; in: f32[2,3] = [0.0, 1.0, 2.0, 10.0, 11.0, 12.0]
; in: i32[2,2] = [2, 0, 1, 7]
; in: i32[2,2,3] = [0, 1, 2, 10, 11, 12, 100, 101, 102, 110, 111, 112]
; in: i32[2,4] = [0, 1, 2, 3, -1, 2, 2, 0]
; out0: f32[2,2] = [2.0, 0.0, 11.0, 12.0]
; out1: i32[2,2,4] = [0, 1, 2, 2, 10, 11, 12, 12, 100, 102, 102, 100, 110, 112, 112, 110]

; bools; an empty index array gives an empty result
func @bools_and_empty(%x: bool[3], %i: i32[2], %e: i32[0]) -> (bool[2], bool[0]) {
  %a: bool[2] = gather[axis=0](%x, %i)
  %b: bool[0] = gather[axis=0](%x, %e)
  return %a, %b
}
; run
; in: bool[3] = [false, true, true]
; in: i32[2] = [2, -1]
; in: i32[0] = []
; out0: bool[2] = [true, false]
; out1: bool[0] = []

; gathering from a zero-size axis reads zeros (the only linear map out of an empty
; space, which keeps scatter_add its transpose)
func @from_empty_axis(%x: f32[2,0], %i: i32[3]) -> (f32[2,3]) {
  %y: f32[2,3] = gather[axis=1](%x, %i)
  return %y
}
; run
; in: f32[2,0] = []
; in: i32[3] = [0, 5, -1]
; out0: f32[2,3] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
