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
