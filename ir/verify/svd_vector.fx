func @f(%a: f64[3]) -> (f64[1]) {
  %s: f64[1] = svd[compute_uv=false](%a) ; error: expects matrices in the last two axes (rank ≥ 2), got f64[3]
  return %s
}
