func @f(%y: f32[2,3]) -> (f32[2,3]) {
  %b: f32[2,3] = cummin[axis=2](%y) ; error: axis 2 is out of range for rank 2
  return %b
}
