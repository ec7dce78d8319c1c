func @f(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = frobnicate(%x) ; error: unknown primitive 'frobnicate'
  return %y
}
