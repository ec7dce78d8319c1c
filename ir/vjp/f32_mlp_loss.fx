; Reverse mode in f32: the loss of a two-layer network (two dots, tanh, logistic, log,
; a sum), checked by the adjoint identity <Jᵀu, v> = <u, Jv> and central differences
; with f32 tolerances. Cotangents are f32 like their primals.
func @loss(%w1: f32[3,4], %w2: f32[4], %x: f32[5,3]) -> (f32[]) {
  %h: f32[5,4] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w1)
  %t: f32[5,4] = tanh(%h)
  %o: f32[5] = dot_general[lhs_contract=[1], rhs_contract=[0]](%t, %w2)
  %p: f32[5] = logistic(%o)
  %l: f32[5] = log(%p)
  %s: f32[] = reduce_sum[axes=[0]](%l)
  return %s
}
; vjp:
; func @loss_vjp(%0: f32[3,4], %1: f32[4], %2: f32[5,3], %3: f32[]) -> (f32[], f32[3,4], f32[4], f32[5,3]) {
;   %4: f32[5,4] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%2, %0)
;   %5: f32[5,4] = tanh(%4)
;   %6: f32[5,4] = constant[value=1.0]()
;   %7: f32[5,4] = mul(%5, %5)
;   %8: f32[5,4] = sub(%6, %7)
;   %9: f32[5] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%5, %1)
;   %10: f32[5] = logistic(%9)
;   %11: f32[5] = constant[value=1.0]()
;   %12: f32[5] = sub(%11, %10)
;   %13: f32[5] = mul(%10, %12)
;   %14: f32[5] = log(%10)
;   %15: f32[] = reduce_sum[axes=[0]](%14)
;   %16: f32[5] = broadcast_in_dim[shape=[5], dims=[]](%3)
;   %17: f32[5] = div(%16, %10)
;   %18: f32[5] = mul(%17, %13)
;   %19: f32[4] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%18, %5)
;   %20: f32[5,4] = dot_general[lhs_contract=[], rhs_contract=[], lhs_batch=[], rhs_batch=[], preferred=none](%18, %1)
;   %21: f32[5,4] = mul(%20, %8)
;   %22: f32[4,3] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%21, %2)
;   %23: f32[3,4] = transpose[perm=[1,0]](%22)
;   %24: f32[5,3] = dot_general[lhs_contract=[1], rhs_contract=[1], lhs_batch=[], rhs_batch=[], preferred=none](%21, %0)
;   return %15, %23, %19, %24
; }
