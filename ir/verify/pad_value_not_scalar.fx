func @f(%x: f32[3], %v: f32[1]) -> (f32[5]) {
  %y: f32[5] = pad[low=[1], high=[1], interior=[0]](%x, %v) ; error: padding value must be a f32 scalar
  return %y
}
