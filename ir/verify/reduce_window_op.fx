func @f(%x: f32[4], %i: f32[]) -> (f32[3]) {
  %a: f32[3] = reduce_window[op="prod", window_dimensions=[2]](%x, %i) ; error: unknown op "prod" (expected "sum", "max" or "min")
  return %a
}
