func @f(%x: f32[]) -> (f32[], i32[]) {
  %a: f32[], %b: i32[] = top_k[k=0](%x) ; error: operand f32[] has no last axis
  return %a, %b
}
