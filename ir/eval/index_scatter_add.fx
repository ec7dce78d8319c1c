; scatter_add[axis, batch_dims](x, idx, updates): x plus each update added at the place
; gather would read it from; indices are clamped, and duplicates accumulate.

; duplicate indices accumulate into one element
func @duplicates(%x: f32[4], %idx: i32[5], %u: f32[5]) -> (f32[4]) {
  %y: f32[4] = scatter_add[axis=0](%x, %idx, %u)
  return %y
}
; run
; in: f32[4] = [0.0, 0.0, 0.0, 100.0]
; in: i32[5] = [1, 3, 1, 1, 0]
; in: f32[5] = [1.0, 2.0, 4.0, 8.0, 16.0]
; out0: f32[4] = [16.0, 13.0, 0.0, 102.0]

; out-of-range and negative indices are clamped to the last and first element
func @clamped(%x: i32[3], %idx: i32[5], %u: i32[5]) -> (i32[3]) {
  %y: i32[3] = scatter_add[axis=0](%x, %idx, %u)
  return %y
}
; run
; in: i32[3] = [0, 0, 0]
; in: i32[5] = [-1, 5, 2147483647, -2147483648, 1]
; in: i32[5] = [1, 10, 100, 1000, 10000]
; out0: i32[3] = [1001, 10000, 110]

; i32 additions wrap
func @wrapping(%x: i32[2], %idx: i32[2], %u: i32[2]) -> (i32[2]) {
  %y: i32[2] = scatter_add[axis=0](%x, %idx, %u)
  return %y
}
; run
; in: i32[2] = [2147483647, -2147483648]
; in: i32[2] = [0, 1]
; in: i32[2] = [1, -1]
; out0: i32[2] = [-2147483648, 2147483647]

; whole rows (axis 0) with a repeated index, and a scalar index adding one row
func @rows(%x: f32[3,2], %idx: i32[2], %u: f32[2,2], %i: i32[], %r: f32[2]) -> (f32[3,2], f32[3,2]) {
  %a: f32[3,2] = scatter_add[axis=0](%x, %idx, %u)
  %b: f32[3,2] = scatter_add[axis=0](%x, %i, %r)
  return %a, %b
}
; run
; in: f32[3,2] = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
; in: i32[2] = [2, 2]
; in: f32[2,2] = [1.0, 2.0, 3.0, 4.0]
; in: i32[] = [-3]
; in: f32[2] = [0.5, 0.25]
; out0: f32[3,2] = [1.0, 1.0, 1.0, 1.0, 5.0, 7.0]
; out1: f32[3,2] = [1.5, 1.25, 1.0, 1.0, 1.0, 1.0]

; along axis 1 with a 2-D index array: updates have shape [2] + idx.shape
func @axis1(%x: f64[2,3], %idx: i32[2,2], %u: f64[2,2,2]) -> (f64[2,3]) {
  %y: f64[2,3] = scatter_add[axis=1](%x, %idx, %u)
  return %y
}
; run
; in: f64[2,3] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
; in: i32[2,2] = [0, 2, 2, 9]
; in: f64[2,2,2] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0]
; out0: f64[2,3] = [1.0, 0.0, 14.0, 16.0, 0.0, 224.0]

; batch_dims=1: row b of the updates is added into row b of x at row b of idx; and
; along axis 2 of a 3-D array, where each batch row has an axis before the scattered one
func @batched(%x: f32[2,3], %idx: i32[2,2], %u: f32[2,2], %y: i32[2,2,3], %v: i32[2,2,2]) -> (f32[2,3], i32[2,2,3]) {
  %a: f32[2,3] = scatter_add[axis=1, batch_dims=1](%x, %idx, %u)
  %b: i32[2,2,3] = scatter_add[axis=2, batch_dims=1](%y, %idx, %v)
  return %a, %b
}
; run
; in: f32[2,3] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
; in: i32[2,2] = [2, 2, -1, 1]
; in: f32[2,2] = [1.0, 2.0, 3.0, 4.0]
; in: i32[2,2,3] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
; in: i32[2,2,2] = [1, 2, 10, 20, 100, 200, 1000, 2000]
; out0: f32[2,3] = [0.0, 0.0, 3.0, 3.0, 4.0, 0.0]
; out1: i32[2,2,3] = [0, 0, 3, 0, 0, 30, 100, 200, 0, 1000, 2000, 0]

; no indices leave x unchanged; into a zero-size axis nothing is added
func @empty(%x: f32[3], %e: i32[0], %u: f32[0], %z: f32[2,0], %i: i32[2], %w: f32[2,2]) -> (f32[3], f32[2,0]) {
  %a: f32[3] = scatter_add[axis=0](%x, %e, %u)
  %b: f32[2,0] = scatter_add[axis=1](%z, %i, %w)
  return %a, %b
}
; run
; in: f32[3] = [1.0, 2.0, 3.0]
; in: i32[0] = []
; in: f32[0] = []
; in: f32[2,0] = []
; in: i32[2] = [0, 3]
; in: f32[2,2] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[3] = [1.0, 2.0, 3.0]
; out1: f32[2,0] = []
