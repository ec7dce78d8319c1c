func @f(%x: f32[4], %i: f32[]) -> (f32[4]) {
  %a: f32[4] = reduce_window[op="sum", window_dimensions=[0]](%x, %i) ; error: 'window_dimensions' must be positive, got [0]
  return %a
}
