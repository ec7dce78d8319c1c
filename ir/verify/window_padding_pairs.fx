func @f(%x: f32[4], %i: f32[]) -> (f32[3]) {
  %a: f32[3] = reduce_window[op="sum", window_dimensions=[2], padding=[[1,0,1]]](%x, %i) ; error: must list [low, high] pairs, got `[1,0,1]`
  return %a
}
