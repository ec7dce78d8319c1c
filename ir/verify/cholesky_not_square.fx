func @f(%a: f32[2,3]) -> (f32[2,3]) {
  %l: f32[2,3] = cholesky(%a) ; error: expects square matrices in the last two axes (rank ≥ 2), got f32[2,3]
  return %l
}
