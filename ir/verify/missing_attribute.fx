func @f(%x: f32[2,3]) -> (f32[6]) {
  %y: f32[6] = reshape(%x) ; error: missing attribute 'shape'
  return %y
}
