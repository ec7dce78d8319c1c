; A two-layer MLP's squared-error loss, differentiated with respect to the weights
; only (wrt 0,1; the batch %x and targets %t get no cotangent): the backward pass
; reuses the activations, and the cotangent of the hidden layer goes through the
; tanh derivative and the first dot_general.
func @f(%w1: f64[3,4], %w2: f64[4,2], %x: f64[5,3], %t: f64[5,2]) -> (f64[]) {
  %h: f64[5,4] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w1)
  %a: f64[5,4] = tanh(%h)
  %o: f64[5,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %w2)
  %d: f64[5,2] = sub(%o, %t)
  %sq: f64[5,2] = mul(%d, %d)
  %l: f64[] = reduce_sum[axes=[0,1]](%sq)
  return %l
}
; wrt: 0,1
; vjp:
; func @f_vjp(%0: f64[3,4], %1: f64[4,2], %2: f64[5,3], %3: f64[5,2], %4: f64[]) -> (f64[], f64[3,4], f64[4,2]) {
;   %5: f64[5,4] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%2, %0)
;   %6: f64[5,4] = tanh(%5)
;   %7: f64[5,4] = constant[value=1.0]()
;   %8: f64[5,4] = mul(%6, %6)
;   %9: f64[5,4] = sub(%7, %8)
;   %10: f64[5,2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%6, %1)
;   %11: f64[5,2] = sub(%10, %3)
;   %12: f64[5,2] = mul(%11, %11)
;   %13: f64[] = reduce_sum[axes=[0,1]](%12)
;   %14: f64[5,2] = broadcast_in_dim[shape=[5,2], dims=[]](%4)
;   %15: f64[5,2] = mul(%14, %11)
;   %16: f64[5,2] = mul(%14, %11)
;   %17: f64[5,2] = add(%15, %16)
;   %18: f64[2,4] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%17, %6)
;   %19: f64[4,2] = transpose[perm=[1,0]](%18)
;   %20: f64[5,4] = dot_general[lhs_contract=[1], rhs_contract=[1], lhs_batch=[], rhs_batch=[], preferred=none](%17, %1)
;   %21: f64[5,4] = mul(%20, %9)
;   %22: f64[4,3] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%21, %2)
;   %23: f64[3,4] = transpose[perm=[1,0]](%22)
;   return %13, %23, %19
; }
