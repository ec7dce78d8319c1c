; remat with policy "nothing": the backward pass recomputes tanh(w x) from the saved
; inputs x and w, where it transposes the region. The recomputation reads them through
; name[name="remat.recompute"], so that cse cannot merge it with the forward pass.
func @f(%x: f64[2], %w: f64[2,2]) -> (f64[]) {
  %y: f64[2] = remat[func=@layer, policy="nothing"](%x, %w)
  %s: f64[] = reduce_sum[axes=[0]](%y)
  return %s
}
; vjp:
; func @f_vjp(%0: f64[2], %1: f64[2,2], %2: f64[]) -> (f64[], f64[2], f64[2,2]) {
;   %3: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%1, %0)
;   %4: f64[2] = tanh(%3)
;   %5: f64[] = reduce_sum[axes=[0]](%4)
;   %6: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%2)
;   %7: f64[2] = name[name="remat.recompute"](%0)
;   %8: f64[2,2] = name[name="remat.recompute"](%1)
;   %9: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%8, %7)
;   %10: f64[2] = tanh(%9)
;   %11: f64[2] = constant[value=1.0]()
;   %12: f64[2] = mul(%10, %10)
;   %13: f64[2] = sub(%11, %12)
;   %14: f64[2] = mul(%6, %13)
;   %15: f64[2] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%14, %8)
;   %16: f64[2,2] = dot_general[lhs_contract=[], rhs_contract=[], lhs_batch=[], rhs_batch=[], preferred=none](%14, %7)
;   return %5, %15, %16
; }

func @layer(%x: f64[2], %w: f64[2,2]) -> (f64[2]) {
  %h: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%w, %x)
  %t: f64[2] = tanh(%h)
  return %t
}
