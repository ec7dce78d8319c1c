func @f(%x: f32[2,3]) -> (f32[3,2]) {
  %y: f32[3,2] = transpose[perm=1](%x) ; error: attribute 'perm' must be a list
  return %y
}
