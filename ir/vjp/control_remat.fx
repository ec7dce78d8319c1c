; remat with policy "nothing": the backward pass recomputes tanh(w x) from the saved
; inputs x and w, where it transposes the region.
func @f(%x: f64[2], %w: f64[2,2]) -> (f64[]) {
  %y: f64[2] = remat[func=@layer, policy="nothing"](%x, %w)
  %s: f64[] = reduce_sum[axes=[0]](%y)
  return %s
}
; vjp:
; func @f_vjp(%0: f64[2], %1: f64[2,2], %2: f64[]) -> (f64[], f64[2], f64[2,2]) {
;   %3: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[]](%1, %0)
;   %4: f64[2] = tanh(%3)
;   %5: f64[] = reduce_sum[axes=[0]](%4)
;   %6: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%2)
;   %7: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[]](%1, %0)
;   %8: f64[2] = tanh(%7)
;   %9: f64[2] = constant[value=1.0]()
;   %10: f64[2] = mul(%8, %8)
;   %11: f64[2] = sub(%9, %10)
;   %12: f64[2] = mul(%6, %11)
;   %13: f64[2] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[]](%12, %1)
;   %14: f64[2,2] = dot_general[lhs_contract=[], rhs_contract=[], lhs_batch=[], rhs_batch=[]](%12, %0)
;   return %5, %13, %14
; }

func @layer(%x: f64[2], %w: f64[2,2]) -> (f64[2]) {
  %h: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%w, %x)
  %t: f64[2] = tanh(%h)
  return %t
}
