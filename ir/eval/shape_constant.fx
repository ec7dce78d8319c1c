; constant[value]: a scalar value splats to the result shape; a list is the flat
; C-order contents. Literals are read at the result dtype.

; splats of every dtype, special floats, and an integer literal for a float
func @splats() -> (f32[2], f64[2,2], i32[3], bool[2], bool[], f32[], f64[], f32[2]) {
  %a: f32[2] = constant[value=1.5]()
  %b: f64[2,2] = constant[value=-0.25]()
  %c: i32[3] = constant[value=-7]()
  %d: bool[2] = constant[value=true]()
  %e: bool[] = constant[value=false]()
  %f: f32[] = constant[value=nan]()
  %g: f64[] = constant[value=-inf]()
  %h: f32[2] = constant[value=3]()
  return %a, %b, %c, %d, %e, %f, %g, %h
}
; run
; out0: f32[2] = [1.5, 1.5]
; out1: f64[2,2] = [-0.25, -0.25, -0.25, -0.25]
; out2: i32[3] = [-7, -7, -7]
; out3: bool[2] = [true, true]
; out4: bool[] = [false]
; out5: f32[] = [nan]
; out6: f64[] = [-inf]
; out7: f32[2] = [3.0, 3.0]

; lists of every dtype, with special values and the i32 extremes
func @lists() -> (f32[4], f64[3], i32[2,2], bool[3], f32[2,0]) {
  %a: f32[4] = constant[value=[1.5, -0.0, inf, nan]]()
  %b: f64[3] = constant[value=[0.1, 5e-324, -1e300]]()
  %c: i32[2,2] = constant[value=[2147483647, -2147483648, 0, -1]]()
  %d: bool[3] = constant[value=[true, false, true]]()
  %e: f32[2,0] = constant[value=1.0]()
  return %a, %b, %c, %d, %e
}
; run
; out0: f32[4] = [1.5, -0.0, inf, nan]
; out1: f64[3] = [0.1, 5e-324, -1e300]
; out2: i32[2,2] = [2147483647, -2147483648, 0, -1]
; out3: bool[3] = [true, false, true]
; out4: f32[2,0] = []

; an f32 literal rounds once, to nearest even, from its decimal value: 16777217 is a
; tie that goes to 16777216; the third literal is just above the tie between 1.0 and
; the next f32, so it rounds up (rounding through f64 first would give 1.0); tiny
; values round to the smallest subnormal or to 0
func @rounding() -> (f32[6], f64[2]) {
  %a: f32[6] = constant[value=[0.1, 16777217, 1.000000059604644775390625000001, 1e-45, 8e-46, 7e-46]]()
  %b: f64[2] = constant[value=[0.1, 1.000000059604644775390625000001]]()
  return %a, %b
}
; run
; out0: f32[6] = [0.1, 16777216.0, 1.0000001, 1e-45, 1e-45, 0.0]
; out1: f64[2] = [0.1, 1.0000000596046448]
