func @f(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = add(%x) ; error: expects 2 operands, got 1
  return %y
}
