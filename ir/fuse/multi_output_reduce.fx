; Multi-output: the reduction's producer y = 2x + 1 is also a GEMM operand. It is
; computed once in the reduction's kernel and written out as a second result.
func @f(%x: f32[4,8], %w: f32[8,2]) -> (f32[4], f32[4,2]) {
  %two: f32[4,8] = constant[value=2.0]()
  %a: f32[4,8] = mul(%x, %two)
  %one: f32[4,8] = constant[value=1.0]()
  %y: f32[4,8] = add(%a, %one)
  %s: f32[4] = reduce_sum[axes=[1]](%y)
  %z: f32[4,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%y, %w)
  return %s, %z
}
; fuse:
; func @f(%0: f32[4,8], %1: f32[8,2]) -> (f32[4], f32[4,2]) {
;   %2: f32[4,8], %3: f32[4] = call[func=@f_k0](%0)
;   %4: f32[4,2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%2, %1)
;   return %3, %4
; }
;
; func @f_k0[kind="fusion"](%0: f32[4,8]) -> (f32[4,8], f32[4]) {
;   %1: f32[4,8] = constant[value=2.0]()
;   %2: f32[4,8] = mul(%0, %1)
;   %3: f32[4,8] = constant[value=1.0]()
;   %4: f32[4,8] = add(%2, %3)
;   %5: f32[4] = reduce_sum[axes=[1]](%4)
;   return %4, %5
; }
; launches: 2
