; A tanh layer with a scalar loss, sum(tanh(x w)): the cotangents of x and w are
; dot_generals of the backpropagated cotangent with the other operand (and a
; transpose to put the axes back). A batched product as well.
func @f(%x: f64[2,3], %w: f64[3,2], %a: f64[2,2,3], %b: f64[2,3,2]) -> (f64[], f64[2,2,2]) {
  %h: f64[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w)
  %t: f64[2,2] = tanh(%h)
  %l: f64[] = reduce_sum[axes=[0,1]](%t)
  %c: f64[2,2,2] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0]](%a, %b)
  return %l, %c
}
; vjp:
; func @f_vjp(%0: f64[2,3], %1: f64[3,2], %2: f64[2,2,3], %3: f64[2,3,2], %4: f64[], %5: f64[2,2,2]) -> (f64[], f64[2,2,2], f64[2,3], f64[3,2], f64[2,2,3], f64[2,3,2]) {
;   %6: f64[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%0, %1)
;   %7: f64[2,2] = tanh(%6)
;   %8: f64[2,2] = constant[value=1.0]()
;   %9: f64[2,2] = mul(%7, %7)
;   %10: f64[2,2] = sub(%8, %9)
;   %11: f64[] = reduce_sum[axes=[0,1]](%7)
;   %12: f64[2,2,2] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0], preferred=none](%2, %3)
;   %13: f64[2,2,3] = dot_general[lhs_contract=[1], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0], preferred=none](%5, %2)
;   %14: f64[2,3,2] = transpose[perm=[0,2,1]](%13)
;   %15: f64[2,2,3] = dot_general[lhs_contract=[2], rhs_contract=[2], lhs_batch=[0], rhs_batch=[0], preferred=none](%5, %3)
;   %16: f64[2,2] = broadcast_in_dim[shape=[2,2], dims=[]](%4)
;   %17: f64[2,2] = mul(%16, %10)
;   %18: f64[2,3] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%17, %0)
;   %19: f64[3,2] = transpose[perm=[1,0]](%18)
;   %20: f64[2,3] = dot_general[lhs_contract=[1], rhs_contract=[1], lhs_batch=[], rhs_batch=[], preferred=none](%17, %1)
;   return %11, %12, %20, %19, %15, %14
; }
