func @f(%x: f32[2,3]) -> (f32[2,3]) {
  %a: f32[2,3] = sort[dimension=2](%x) ; error: dimension 2 is out of range for rank 2
  return %a
}
