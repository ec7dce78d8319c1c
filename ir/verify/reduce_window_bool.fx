func @f(%x: bool[4], %i: bool[]) -> (bool[3]) {
  %a: bool[3] = reduce_window[op="max", window_dimensions=[2]](%x, %i) ; error: expects a numeric operand (i32, f32, f64), got bool[4]
  return %a
}
