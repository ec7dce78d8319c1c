; a wide 2×3 matrix has min(2, 3) = 2 pivots and 2 rows, not 3.
func @f(%a: f64[2,3]) -> (f64[2,3], i32[3], i32[2]) {
  %lu: f64[2,3], %p: i32[3], %q: i32[2] = lu(%a) ; error: differ from the type rule's (f64[2,3], i32[2], i32[2])
  return %lu, %p, %q
}
