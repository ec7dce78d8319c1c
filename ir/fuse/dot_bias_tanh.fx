; dot_general is a GEMM launch; its epilogue (bias and tanh) is the next kernel.
func @f(%x: f32[4,8], %w: f32[8,6], %b: f32[6]) -> (f32[4,6]) {
  %z: f32[4,6] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w)
  %bb: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[1]](%b)
  %a: f32[4,6] = add(%z, %bb)
  %y: f32[4,6] = tanh(%a)
  return %y
}
; fuse:
; func @f(%0: f32[4,8], %1: f32[8,6], %2: f32[6]) -> (f32[4,6]) {
;   %3: f32[4,6] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%0, %1)
;   %4: f32[4,6] = call[func=@f_k0](%2, %3)
;   return %4
; }
;
; func @f_k0[kind="fusion"](%0: f32[6], %1: f32[4,6]) -> (f32[4,6]) {
;   %2: f32[4,6] = broadcast_in_dim[shape=[4,6], dims=[1]](%0)
;   %3: f32[4,6] = add(%1, %2)
;   %4: f32[4,6] = tanh(%3)
;   return %4
; }
; launches: 2
