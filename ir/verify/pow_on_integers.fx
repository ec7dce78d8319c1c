func @f(%x: i32[2]) -> (i32[2]) {
  %y: i32[2] = pow(%x, %x) ; error: expects a float operand (f32, f64), got i32[2]
  return %y
}
