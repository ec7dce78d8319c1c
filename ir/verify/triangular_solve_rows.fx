func @f(%a: f64[3,3], %b: f64[2,3]) -> (f64[2,3]) {
  %x: f64[2,3] = triangular_solve[left_side=true](%a, %b) ; error: b must have 3 rows (left_side=true) to match a: f64[3,3], got b: f64[2,3]
  return %x
}
