func @f(%x: bool[3]) -> (bool[3]) {
  %a: bool[3] = cummax[axis=0](%x) ; error: expects a numeric operand (i32, f32, f64), got bool[3]
  return %a
}
