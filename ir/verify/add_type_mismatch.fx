; Elementwise operands must have the same type: no implicit broadcasting.
func @f(%x: f32[2], %y: f32[3]) -> (f32[2]) {
  %z: f32[2] = add(%x, %y) ; error: operand types differ: f32[2] vs f32[3]
  return %z
}
