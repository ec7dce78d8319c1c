; Same as f32_exp_converted_to_f64.fx, through a GEMM's reassociated sums.
func @main(%0: f32[2,4]) -> (f64[2]) {
  %1: f32[2] = dot_general[lhs_contract=[1], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0]](%0, %0)
  %2: f64[2] = convert[dtype=f64](%1)
  return %2
}
