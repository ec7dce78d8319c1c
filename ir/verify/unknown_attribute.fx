func @f(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = neg[scale=2](%x) ; error: unknown attribute 'scale'
  return %y
}
