; slice: the elements start <= i < limit of each axis, every strides-th one.

; strided slices of a vector, where the limit is or is not reached by the stride
func @strided(%x: i32[10]) -> (i32[4], i32[4], i32[1], i32[10]) {
  %a: i32[4] = slice[start=[1], limit=[8], strides=[2]](%x)
  %b: i32[4] = slice[start=[0], limit=[10], strides=[3]](%x)
  %c: i32[1] = slice[start=[2], limit=[4], strides=[5]](%x)
  %d: i32[10] = slice[start=[0], limit=[10]](%x)
  return %a, %b, %c, %d
}
; run
; in: i32[10] = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]
; out0: i32[4] = [10, 30, 50, 70]
; out1: i32[4] = [0, 30, 60, 90]
; out2: i32[1] = [20]
; out3: i32[10] = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]

; a box of a matrix with a stride on the second axis only
func @box(%x: f32[4,5]) -> (f32[2,2], f32[4,1]) {
  %a: f32[2,2] = slice[start=[1,1], limit=[3,5], strides=[1,2]](%x)
  %b: f32[4,1] = slice[start=[0,4], limit=[4,5]](%x)
  return %a, %b
}
; run
; in: f32[4,5] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]
; out0: f32[2,2] = [6.0, 8.0, 11.0, 13.0]
; out1: f32[4,1] = [4.0, 9.0, 14.0, 19.0]

; strides on every axis of a 3-D array
func @three_d(%x: f64[2,3,4]) -> (f64[1,2,2]) {
  %y: f64[1,2,2] = slice[start=[1,0,1], limit=[2,3,4], strides=[1,2,2]](%x)
  return %y
}
; run
; in: f64[2,3,4] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]
; out0: f64[1,2,2] = [13.0, 15.0, 21.0, 23.0]

; empty slices (start = limit, at the end too) and the last element of a bool vector
func @edges(%x: bool[6]) -> (bool[0], bool[0], bool[1]) {
  %a: bool[0] = slice[start=[2], limit=[2]](%x)
  %b: bool[0] = slice[start=[6], limit=[6], strides=[4]](%x)
  %c: bool[1] = slice[start=[5], limit=[6]](%x)
  return %a, %b, %c
}
; run
; in: bool[6] = [false, false, false, false, false, true]
; out0: bool[0] = []
; out1: bool[0] = []
; out2: bool[1] = [true]
