; A .npy header claiming 2^62 f32 elements over 8 bytes of data: refused in one line
; (the size overflows; nothing is allocated), never an abort.
func @f(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = neg(%x)
  return %y
}
