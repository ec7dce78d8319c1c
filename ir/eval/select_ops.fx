; select(pred, on_true, on_false) picks elementwise, on every dtype, bits kept.

; select on f32, keeping signed zeros, NaN and infinities from either side.
func @select_f32(%p: bool[6], %t: f32[6], %f: f32[6]) -> (f32[6]) {
  %y: f32[6] = select(%p, %t, %f)
  return %y
}
; run
; in: bool[6] = [true, false, true, false, true, false]
; in: f32[6] = [1.0, 2.0, -0.0, nan, inf, 0.0]
; in: f32[6] = [-1.0, -2.0, 0.0, -0.0, nan, nan]
; out0: f32[6] = [1.0, -2.0, -0.0, -0.0, inf, nan]

; select on f64 over a rank-2 operand.
func @select_f64(%p: bool[2,2], %t: f64[2,2], %f: f64[2,2]) -> (f64[2,2]) {
  %y: f64[2,2] = select(%p, %t, %f)
  return %y
}
; run
; in: bool[2,2] = [false, true, true, false]
; in: f64[2,2] = [0.1, 0.2, -0.0, 5e-324]
; in: f64[2,2] = [1.5, 2.5, 3.5, -inf]
; out0: f64[2,2] = [1.5, 0.2, -0.0, -inf]

; select on i32 and bool operands.
func @select_i32_bool(%p: bool[4], %a: i32[4], %b: i32[4], %c: bool[4], %d: bool[4]) -> (i32[4], bool[4]) {
  %x: i32[4] = select(%p, %a, %b)
  %y: bool[4] = select(%p, %c, %d)
  return %x, %y
}
; run
; in: bool[4] = [true, false, false, true]
; in: i32[4] = [-2147483648, 1, 2, 3]
; in: i32[4] = [10, 2147483647, 20, 30]
; in: bool[4] = [true, true, false, false]
; in: bool[4] = [false, false, true, true]
; out0: i32[4] = [-2147483648, 2147483647, 20, 3]
; out1: bool[4] = [true, false, true, false]

; select on scalars.
func @select_scalar(%p: bool[], %t: f32[], %f: f32[]) -> (f32[]) {
  %y: f32[] = select(%p, %t, %f)
  return %y
}
; run
; in: bool[] = [true]
; in: f32[] = [1.0]
; in: f32[] = [2.0]
; out0: f32[] = [1.0]
; run
; in: bool[] = [false]
; in: f32[] = [1.0]
; in: f32[] = [2.0]
; out0: f32[] = [2.0]
