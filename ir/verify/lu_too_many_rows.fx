; pivots and the permutation are i32: more rows than i32::MAX cannot be indexed.
func @f(%a: f64[3000000000,0]) -> (f64[3000000000,0], i32[0], i32[3000000000]) {
  %lu: f64[3000000000,0], %p: i32[0], %q: i32[3000000000] = lu(%a) ; error: (lu): 3000000000 rows do not fit the i32 pivots and permutation
  return %lu, %p, %q
}
