; concatenate[axis]: the operands one after another along `axis`.

; three vectors of different lengths
func @three(%a: f32[2], %b: f32[3], %c: f32[1]) -> (f32[6]) {
  %y: f32[6] = concatenate[axis=0](%a, %b, %c)
  return %y
}
; run
; in: f32[2] = [1.0, 2.0]
; in: f32[3] = [3.0, nan, -inf]
; in: f32[1] = [-0.0]
; out0: f32[6] = [1.0, 2.0, 3.0, nan, -inf, -0.0]

; zero-length operands at the start, the middle and the end contribute nothing
func @zero_length(%e: i32[2,0], %x: i32[2,3], %y: i32[2,1]) -> (i32[2,3], i32[2,4], i32[2,0]) {
  %a: i32[2,3] = concatenate[axis=1](%e, %x, %e)
  %b: i32[2,4] = concatenate[axis=1](%x, %e, %y)
  %c: i32[2,0] = concatenate[axis=1](%e, %e)
  return %a, %b, %c
}
; run
; in: i32[2,0] = []
; in: i32[2,3] = [1, 2, 3, 4, 5, 6]
; in: i32[2,1] = [-1, -2]
; out0: i32[2,3] = [1, 2, 3, 4, 5, 6]
; out1: i32[2,4] = [1, 2, 3, -1, 4, 5, 6, -2]
; out2: i32[2,0] = []

; along the middle axis of 3-D arrays, and along axis 0 of bool matrices
func @axes(%x: f64[2,1,2], %y: f64[2,2,2], %p: bool[1,2], %q: bool[2,2]) -> (f64[2,3,2], bool[3,2]) {
  %a: f64[2,3,2] = concatenate[axis=1](%x, %y)
  %b: bool[3,2] = concatenate[axis=0](%p, %q)
  return %a, %b
}
; run
; in: f64[2,1,2] = [1.0, 2.0, 3.0, 4.0]
; in: f64[2,2,2] = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0]
; in: bool[1,2] = [true, false]
; in: bool[2,2] = [false, false, true, true]
; out0: f64[2,3,2] = [1.0, 2.0, 10.0, 20.0, 30.0, 40.0, 3.0, 4.0, 50.0, 60.0, 70.0, 80.0]
; out1: bool[3,2] = [true, false, false, false, true, true]

; one operand is the identity; an operand may be repeated
func @single_and_repeated(%x: i32[2]) -> (i32[2], i32[6]) {
  %a: i32[2] = concatenate[axis=0](%x)
  %b: i32[6] = concatenate[axis=0](%x, %x, %x)
  return %a, %b
}
; run
; in: i32[2] = [7, -8]
; out0: i32[2] = [7, -8]
; out1: i32[6] = [7, -8, 7, -8, 7, -8]
