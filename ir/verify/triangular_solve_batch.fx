func @f(%a: f64[2,3,3], %b: f64[4,3,3]) -> (f64[4,3,3]) {
  %x: f64[4,3,3] = triangular_solve(%a, %b) ; error: a and b must have the same batch axes, got a: f64[2,3,3] and b: f64[4,3,3]
  return %x
}
