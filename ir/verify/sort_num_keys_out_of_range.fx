func @f(%x: f32[3], %y: i32[3]) -> (f32[3], i32[3]) {
  %a: f32[3], %b: i32[3] = sort[dimension=0, num_keys=3](%x, %y) ; error: num_keys 3 must be in 1..=2 (the operand count)
  return %a, %b
}
