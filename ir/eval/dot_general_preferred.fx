; dot_general[preferred=f32] on bf16/f16 operands returns the f32 accumulation itself
; (JAX's preferred_element_type); without it the result is rounded once to 16 bits.
; 1 + 2^-9 + 2^-9 = 1 + 2^-8 is an f32 but lies halfway between two bf16 values, so
; bf16 rounds it to even (1.0); f16 holds it exactly.

func @bf16_rows(%a: bf16[2,3], %b: bf16[3]) -> (f32[2], bf16[2]) {
  %p: f32[2] = dot_general[lhs_contract=[1], rhs_contract=[0], preferred=f32](%a, %b)
  %q: bf16[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  return %p, %q
}
; run
; in: bf16[2,3] = [1.0, 0.001953125, 0.001953125, 2.0, -0.5, 0.25]
; in: bf16[3] = [1.0, 1.0, 1.0]
; out0: f32[2] = [1.0039063, 1.75]
; out1: bf16[2] = [1.0, 1.75]

; batched, f16, and preferred equal to the operands' dtype (no change)
func @f16_batched(%a: f16[2,1,2], %b: f16[2,2,1]) -> (f32[2,1,1], f16[2,1,1]) {
  %p: f32[2,1,1] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0], preferred=f32](%a, %b)
  %q: f16[2,1,1] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0], preferred=f16](%a, %b)
  return %p, %q
}
; run
; in: f16[2,1,2] = [1.0, 0.00048828125, 3.0, 0.5]
; in: f16[2,2,1] = [1.0, 1.0, 2.0, -4.0]
; out0: f32[2,1,1] = [1.0004883, 4.0]
; out1: f16[2,1,1] = [1.0, 4.0]
