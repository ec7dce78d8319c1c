func @f(%t: f64[4], %x: f32[4]) -> (f64[2]) {
  %a: f64[2] = select_and_gather_add[select="min", window_dimensions=[2], window_strides=[2]](%t, %x) ; error: operand types differ: f64[4] vs f32[4]
  return %a
}
