func @f(%x: f32[6]) -> (f32[3]) {
  %y: f32[3] = slice[start=[4], limit=[7], strides=[1]](%x) ; error: do not fit 0 <= start <= limit <= 6
  return %y
}
