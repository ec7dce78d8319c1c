; convert to and from bool: a number becomes x != 0 (NaN is true, -0 is false); bool becomes 0 or 1.

; bool to every numeric dtype.
func @bool_to_numbers(%x: bool[2]) -> (i32[2], f32[2], f64[2]) {
  %a: i32[2] = convert[dtype=i32](%x)
  %b: f32[2] = convert[dtype=f32](%x)
  %c: f64[2] = convert[dtype=f64](%x)
  return %a, %b, %c
}
; run
; in: bool[2] = [false, true]
; out0: i32[2] = [0, 1]
; out1: f32[2] = [0.0, 1.0]
; out2: f64[2] = [0.0, 1.0]

; f32 to bool.
func @f32_to_bool(%x: f32[7]) -> (bool[7]) {
  %y: bool[7] = convert[dtype=bool](%x)
  return %y
}
; run
; in: f32[7] = [0.0, -0.0, 0.5, nan, -inf, 1e-45, -2.0]
; out0: bool[7] = [false, false, true, true, true, true, true]

; f64 to bool.
func @f64_to_bool(%x: f64[4]) -> (bool[4]) {
  %y: bool[4] = convert[dtype=bool](%x)
  return %y
}
; run
; in: f64[4] = [0.0, -0.0, 5e-324, nan]
; out0: bool[4] = [false, false, true, true]

; i32 to bool.
func @i32_to_bool(%x: i32[5]) -> (bool[5]) {
  %y: bool[5] = convert[dtype=bool](%x)
  return %y
}
; run
; in: i32[5] = [0, 1, -1, -2147483648, 2]
; out0: bool[5] = [false, true, true, true, true]
