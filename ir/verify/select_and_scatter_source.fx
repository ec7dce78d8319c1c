func @f(%s: f32[3], %x: f32[4]) -> (f32[4]) {
  %a: f32[4] = select_and_scatter_add[select="max", window_dimensions=[2], window_strides=[2]](%s, %x) ; error: the source must have the windows' type f32[2], got f32[3]
  return %a
}
