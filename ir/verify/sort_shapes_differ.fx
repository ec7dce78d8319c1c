func @f(%x: f32[3], %y: i32[4]) -> (f32[3], i32[4]) {
  %a: f32[3], %b: i32[4] = sort[dimension=0](%x, %y) ; error: operand 1 has shape i32[4] but operand 0 has f32[3]
  return %a, %b
}
