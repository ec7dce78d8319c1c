func @f(%a: f64[3]) -> (f64[3], i32[1], i32[1]) {
  %lu: f64[3], %p: i32[1], %q: i32[1] = lu(%a) ; error: (lu): expects matrices in the last two axes (rank ≥ 2), got f64[3]
  return %lu, %p, %q
}
