func @f(%x: f32[2,3]) -> (f32[2,4], i32[2,4]) {
  %a: f32[2,4], %b: i32[2,4] = top_k[k=4](%x) ; error: k 4 exceeds the last axis size 3 of f32[2,3]
  return %a, %b
}
