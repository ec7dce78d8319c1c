func @f(%a: f32[2,3], %b: f32[4,5]) -> (f32[2,5]) {
  %c: f32[2,5] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b) ; error: contracting sizes differ: lhs axis 1 of f32[2,3] has 3 but rhs axis 0 of f32[4,5] has 4
  return %c
}
