func @f(%x: bool[2]) -> (bool[2]) {
  %y: bool[2] = integer_pow[y=2](%x) ; error: expects a numeric operand (i32, f32, f64), got bool[2]
  return %y
}
