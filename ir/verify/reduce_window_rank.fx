func @f(%x: f32[4,4], %i: f32[]) -> (f32[3]) {
  %a: f32[3] = reduce_window[op="max", window_dimensions=[2]](%x, %i) ; error: 'window_dimensions' has 1 entries but the operand has rank 2
  return %a
}
