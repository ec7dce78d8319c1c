func @f(%x: f32[6]) -> (f32[3]) {
  %y: f32[3] = slice[start=[0], limit=[6], strides=[0]](%x) ; error: stride of axis 0 is 0
  return %y
}
