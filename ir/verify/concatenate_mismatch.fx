func @f(%x: f32[2,3], %y: f32[2,4]) -> (f32[4,3]) {
  %z: f32[4,3] = concatenate[axis=0](%x, %y) ; error: operand 1 is f32[2,4], which does not match operand 0 f32[2,3] except on axis 0
  return %z
}
