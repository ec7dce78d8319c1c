func @f(%a: f16[3,2]) -> (f16[3,3], f16[3,2]) {
  %q: f16[3,3], %r: f16[3,2] = qr(%a) ; error: expects f32 or f64 matrices (no 16-bit floats, as in JAX), got f16[3,2]
  return %q, %r
}
