func @f(%x: f32[4], %i: f64[]) -> (f32[3]) {
  %a: f32[3] = reduce_window[op="sum", window_dimensions=[2]](%x, %i) ; error: init must be a scalar of the operand's dtype f32, got f64[]
  return %a
}
