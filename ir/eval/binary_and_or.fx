; and and or: logical on bool, bitwise on i32.

; The bool truth tables of and and or.
func @and_or_bool(%x: bool[4], %y: bool[4]) -> (bool[4], bool[4]) {
  %a: bool[4] = and(%x, %y)
  %o: bool[4] = or(%x, %y)
  return %a, %o
}
; run
; in: bool[4] = [true, true, false, false]
; in: bool[4] = [true, false, true, false]
; out0: bool[4] = [true, false, false, false]
; out1: bool[4] = [true, true, true, false]

; and and or on i32 are bitwise, sign bit included.
func @and_or_i32(%x: i32[6], %y: i32[6]) -> (i32[6], i32[6]) {
  %a: i32[6] = and(%x, %y)
  %o: i32[6] = or(%x, %y)
  return %a, %o
}
; run
; in: i32[6] = [12, -1, -2147483648, 1431655765, 0, -8]
; in: i32[6] = [10, 123, -1, -1431655766, -1, 7]
; out0: i32[6] = [8, 123, -2147483648, 0, 0, 0]
; out1: i32[6] = [14, -1, -1, -1, -1, -1]
