; A dense layer, tanh(x w) summed, and a batched matrix product: dot_general is
; bilinear, so its tangent is the sum of two products, each with one tangent.
func @f(%x: f64[2,3], %w: f64[3,2], %a: f64[2,2,3], %b: f64[2,3,2]) -> (f64[], f64[2,2,2]) {
  %h: f64[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w)
  %t: f64[2,2] = tanh(%h)
  %l: f64[] = reduce_sum[axes=[0,1]](%t)
  %c: f64[2,2,2] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0]](%a, %b)
  return %l, %c
}
; jvp:
; func @f_jvp(%0: f64[2,3], %1: f64[3,2], %2: f64[2,2,3], %3: f64[2,3,2], %4: f64[2,3], %5: f64[3,2], %6: f64[2,2,3], %7: f64[2,3,2]) -> (f64[], f64[2,2,2], f64[], f64[2,2,2]) {
;   %8: f64[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%0, %1)
;   %9: f64[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%4, %1)
;   %10: f64[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%0, %5)
;   %11: f64[2,2] = add(%9, %10)
;   %12: f64[2,2] = tanh(%8)
;   %13: f64[2,2] = constant[value=1.0]()
;   %14: f64[2,2] = mul(%12, %12)
;   %15: f64[2,2] = sub(%13, %14)
;   %16: f64[2,2] = mul(%11, %15)
;   %17: f64[] = reduce_sum[axes=[0,1]](%12)
;   %18: f64[] = reduce_sum[axes=[0,1]](%16)
;   %19: f64[2,2,2] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0], preferred=none](%2, %3)
;   %20: f64[2,2,2] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0], preferred=none](%6, %3)
;   %21: f64[2,2,2] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0], preferred=none](%2, %7)
;   %22: f64[2,2,2] = add(%20, %21)
;   return %17, %19, %18, %22
; }
