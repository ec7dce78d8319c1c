func @f(%x: f32[2]) -> (f64[2]) {
  %y: f64[2] = neg(%x) ; error: declared result types (f64[2]) differ from the type rule's (f32[2])
  return %y
}
