; rev: reverses the order of the elements along each listed axis.

; a vector reversed; special values move like any other
func @vector(%x: f32[5]) -> (f32[5]) {
  %y: f32[5] = rev[axes=[0]](%x)
  return %y
}
; run
; in: f32[5] = [1.0, -0.0, nan, inf, -3.5]
; out0: f32[5] = [-3.5, inf, nan, -0.0, 1.0]

; one axis, two axes, all axes and none of a 3-D array
func @several(%x: i32[2,3,4]) -> (i32[2,3,4], i32[2,3,4], i32[2,3,4], i32[2,3,4]) {
  %a: i32[2,3,4] = rev[axes=[1]](%x)
  %b: i32[2,3,4] = rev[axes=[0,2]](%x)
  %c: i32[2,3,4] = rev[axes=[0,1,2]](%x)
  %d: i32[2,3,4] = rev[axes=[]](%x)
  return %a, %b, %c, %d
}
; run
; in: i32[2,3,4] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]
; out0: i32[2,3,4] = [8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15]
; out1: i32[2,3,4] = [15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8]
; out2: i32[2,3,4] = [23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
; out3: i32[2,3,4] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]

; bool and f64 matrices; a size-1 axis and a zero-size array are unchanged
func @other_dtypes(%b: bool[2,3], %d: f64[3,2], %one: f64[1,3], %e: f32[0,3]) -> (bool[2,3], f64[3,2], f64[1,3], f32[0,3]) {
  %rb: bool[2,3] = rev[axes=[1]](%b)
  %rd: f64[3,2] = rev[axes=[0]](%d)
  %ro: f64[1,3] = rev[axes=[0]](%one)
  %re: f32[0,3] = rev[axes=[0,1]](%e)
  return %rb, %rd, %ro, %re
}
; run
; in: bool[2,3] = [true, true, false, false, false, true]
; in: f64[3,2] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
; in: f64[1,3] = [7.0, 8.0, 9.0]
; in: f32[0,3] = []
; out0: bool[2,3] = [false, true, true, true, false, false]
; out1: f64[3,2] = [0.5, 0.6, 0.3, 0.4, 0.1, 0.2]
; out2: f64[1,3] = [7.0, 8.0, 9.0]
; out3: f32[0,3] = []
