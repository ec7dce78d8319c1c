func @f(%x: f32[5], %i: f32[2]) -> (f32[2]) {
  %y: f32[2] = gather[axis=0, batch_dims=0](%x, %i) ; error: indices must be i32, got f32[2]
  return %y
}
