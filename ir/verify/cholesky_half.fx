func @f(%a: bf16[2,2]) -> (bf16[2,2]) {
  %l: bf16[2,2] = cholesky(%a) ; error: expects f32 or f64 matrices (no 16-bit floats, as in JAX), got bf16[2,2]
  return %l
}
