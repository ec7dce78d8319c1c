func @f(%x: f32[2,3]) -> (f32[2,2]) {
  %y: f32[2,2] = transpose[perm=[0,0]](%x) ; error: is not a permutation
  return %y
}
