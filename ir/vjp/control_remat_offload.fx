; remat with policy "offload": the forward pass saves every residual of each region
; but offloads it (parameters excepted: the caller holds them), right after the
; region's equations; the backward pass reloads each where it reaches the region that
; reads it. The second region's input is the first region's output, so it is offloaded
; too.
func @f(%x: f64[2], %w: f64[2,2]) -> (f64[]) {
  %a: f64[2] = remat[func=@layer, policy="offload"](%x, %w)
  %y: f64[2] = remat[func=@layer, policy="offload"](%a, %w)
  %s: f64[] = reduce_sum[axes=[0]](%y)
  return %s
}
; vjp:
; func @f_vjp(%0: f64[2], %1: f64[2,2], %2: f64[]) -> (f64[], f64[2], f64[2,2]) {
;   %3: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%1, %0)
;   %4: f64[2] = tanh(%3)
;   %5: f64[2] = constant[value=1.0]()
;   %6: f64[2] = mul(%4, %4)
;   %7: f64[2] = sub(%5, %6)
;   %8: f64[2] = offload(%7)
;   %9: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%1, %4)
;   %10: f64[2] = tanh(%9)
;   %11: f64[2] = constant[value=1.0]()
;   %12: f64[2] = mul(%10, %10)
;   %13: f64[2] = sub(%11, %12)
;   %14: f64[2] = offload(%4)
;   %15: f64[2] = offload(%13)
;   %16: f64[] = reduce_sum[axes=[0]](%10)
;   %17: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%2)
;   %18: f64[2] = reload(%14)
;   %19: f64[2] = reload(%15)
;   %20: f64[2] = mul(%17, %19)
;   %21: f64[2] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%20, %1)
;   %22: f64[2,2] = dot_general[lhs_contract=[], rhs_contract=[], lhs_batch=[], rhs_batch=[], preferred=none](%20, %18)
;   %23: f64[2] = reload(%8)
;   %24: f64[2] = mul(%21, %23)
;   %25: f64[2] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%24, %1)
;   %26: f64[2,2] = dot_general[lhs_contract=[], rhs_contract=[], lhs_batch=[], rhs_batch=[], preferred=none](%24, %0)
;   %27: f64[2,2] = add(%22, %26)
;   return %16, %25, %27
; }

func @layer(%x: f64[2], %w: f64[2,2]) -> (f64[2]) {
  %h: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%w, %x)
  %t: f64[2] = tanh(%h)
  return %t
}
