; iota[dtype, shape, dim]: each element is its index along `dim`.

; i32 along each axis of a matrix and of a 3-D array
func @i32_axes() -> (i32[2,3], i32[2,3], i32[2,3,2], i32[2,3,2], i32[2,3,2]) {
  %a: i32[2,3] = iota[dtype=i32, shape=[2,3], dim=0]()
  %b: i32[2,3] = iota[dtype=i32, shape=[2,3], dim=1]()
  %c: i32[2,3,2] = iota[dtype=i32, shape=[2,3,2], dim=0]()
  %d: i32[2,3,2] = iota[dtype=i32, shape=[2,3,2], dim=1]()
  %e: i32[2,3,2] = iota[dtype=i32, shape=[2,3,2], dim=2]()
  return %a, %b, %c, %d, %e
}
; run
; out0: i32[2,3] = [0, 0, 0, 1, 1, 1]
; out1: i32[2,3] = [0, 1, 2, 0, 1, 2]
; out2: i32[2,3,2] = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
; out3: i32[2,3,2] = [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]
; out4: i32[2,3,2] = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]

; f32 along each axis, and a vector
func @f32_axes() -> (f32[3,2], f32[3,2], f32[5]) {
  %a: f32[3,2] = iota[dtype=f32, shape=[3,2], dim=0]()
  %b: f32[3,2] = iota[dtype=f32, shape=[3,2], dim=1]()
  %c: f32[5] = iota[dtype=f32, shape=[5], dim=0]()
  return %a, %b, %c
}
; run
; out0: f32[3,2] = [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
; out1: f32[3,2] = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
; out2: f32[5] = [0.0, 1.0, 2.0, 3.0, 4.0]

; f64, and zero-size shapes (along the empty axis or another)
func @f64_and_empty() -> (f64[2,2], i32[0,3], f32[2,0]) {
  %a: f64[2,2] = iota[dtype=f64, shape=[2,2], dim=1]()
  %b: i32[0,3] = iota[dtype=i32, shape=[0,3], dim=1]()
  %c: f32[2,0] = iota[dtype=f32, shape=[2,0], dim=0]()
  return %a, %b, %c
}
; run
; out0: f64[2,2] = [0.0, 1.0, 0.0, 1.0]
; out1: i32[0,3] = []
; out2: f32[2,0] = []
