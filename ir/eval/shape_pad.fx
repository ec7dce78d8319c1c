; pad[low, high, interior](x, v): interior puts `interior` copies of v between
; neighbours, then low/high add v at each end; a negative low/high crops instead.

; low and high padding on one axis
func @low_high(%x: f32[3], %v: f32[]) -> (f32[6], f32[3]) {
  %a: f32[6] = pad[low=[2], high=[1]](%x, %v)
  %b: f32[3] = pad[low=[0], high=[0]](%x, %v)
  return %a, %b
}
; run
; in: f32[3] = [1.0, 2.0, 3.0]
; in: f32[] = [-1.0]
; out0: f32[6] = [-1.0, -1.0, 1.0, 2.0, 3.0, -1.0]
; out1: f32[3] = [1.0, 2.0, 3.0]
; run
; in: f32[3] = [nan, -0.0, inf]
; in: f32[] = [0.0]
; out0: f32[6] = [0.0, 0.0, nan, -0.0, inf, 0.0]
; out1: f32[3] = [nan, -0.0, inf]

; interior padding alone, and with low/high
func @interior(%x: i32[3], %v: i32[]) -> (i32[7], i32[8]) {
  %a: i32[7] = pad[low=[0], high=[0], interior=[2]](%x, %v)
  %b: i32[8] = pad[low=[1], high=[2], interior=[1]](%x, %v)
  return %a, %b
}
; run
; in: i32[3] = [1, 2, 3]
; in: i32[] = [0]
; out0: i32[7] = [1, 0, 0, 2, 0, 0, 3]
; out1: i32[8] = [0, 1, 0, 2, 0, 3, 0, 0]

; negative low/high crop: the operand itself, and past its end into the padding
func @crop(%x: f32[5], %v: f32[]) -> (f32[2], f32[1], f32[4]) {
  %a: f32[2] = pad[low=[-2], high=[-1]](%x, %v)
  %b: f32[1] = pad[low=[-5], high=[1]](%x, %v)
  %c: f32[4] = pad[low=[2], high=[-3]](%x, %v)
  return %a, %b, %c
}
; run
; in: f32[5] = [10.0, 20.0, 30.0, 40.0, 50.0]
; in: f32[] = [9.0]
; out0: f32[2] = [30.0, 40.0]
; out1: f32[1] = [9.0]
; out2: f32[4] = [9.0, 9.0, 10.0, 20.0]

; cropping the interior-padded array: crops can start or end inside the padding
func @crop_interior(%x: i32[3], %v: i32[]) -> (i32[2], i32[3], i32[3], i32[5]) {
  %a: i32[2] = pad[low=[-1], high=[-2], interior=[1]](%x, %v)
  %b: i32[3] = pad[low=[-2], high=[0], interior=[1]](%x, %v)
  %c: i32[3] = pad[low=[-6], high=[0], interior=[3]](%x, %v)
  %d: i32[5] = pad[low=[-3], high=[1], interior=[2]](%x, %v)
  return %a, %b, %c, %d
}
; run
; in: i32[3] = [1, 2, 3]
; in: i32[] = [-9]
; out0: i32[2] = [-9, 2]
; out1: i32[3] = [2, -9, 3]
; out2: i32[3] = [-9, -9, 3]
; out3: i32[5] = [2, -9, -9, 3, -9]

; a matrix padded differently on each axis: interior and low on axis 0 with a
; cropped high end, a cropped low end and high padding on axis 1
func @matrix(%x: f64[2,3], %v: f64[]) -> (f64[3,4]) {
  %y: f64[3,4] = pad[low=[1,-1], high=[-1,2], interior=[1,0]](%x, %v)
  return %y
}
; run
; in: f64[2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: f64[] = [0.5]
; out0: f64[3,4] = [0.5, 0.5, 0.5, 0.5, 2.0, 3.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]

; bools, and a zero-size operand (interior adds nothing between no elements)
func @bools_and_empty(%x: bool[2], %t: bool[], %e: f32[0], %v: f32[]) -> (bool[5], f32[3], f32[0]) {
  %a: bool[5] = pad[low=[1], high=[1], interior=[1]](%x, %t)
  %b: f32[3] = pad[low=[1], high=[2], interior=[3]](%e, %v)
  %c: f32[0] = pad[low=[0], high=[0], interior=[4]](%e, %v)
  return %a, %b, %c
}
; run
; in: bool[2] = [false, false]
; in: bool[] = [true]
; in: f32[0] = []
; in: f32[] = [7.0]
; out0: bool[5] = [true, false, true, false, true]
; out1: f32[3] = [7.0, 7.0, 7.0]
; out2: f32[0] = []
