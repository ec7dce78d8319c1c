func @f(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = neg(%x)
  %y: f32[2] = exp(%x) ; error: %y
  return %y
}
