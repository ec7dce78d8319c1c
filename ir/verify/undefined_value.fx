func @f(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = neg(%x)
  %z: f32[2] = mul(%y, %w) ; error: %w
  return %z
}
