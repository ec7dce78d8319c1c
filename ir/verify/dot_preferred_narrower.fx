; preferred is none, the operands' dtype, or f32 for bf16/f16 operands
func @f(%a: f32[2,3], %b: f32[3,5]) -> (f64[2,5]) {
  %c: f64[2,5] = dot_general[lhs_contract=[1], rhs_contract=[0], preferred=f64](%a, %b) ; error: preferred=f64 is not supported for f32 operands (none or f32; f32 only for bf16/f16 operands)
  return %c
}
