; Forward mode in f32: transcendental and rational elementwise ops, a broadcast, a
; dot and a guarded log, checked against central differences with f32 tolerances
; (step 1e-3, tolerance 1e-2). Tangents are f32 like their primals.
func @f(%x: f32[2,3], %y: f32[3]) -> (f32[2], f32[2,3]) {
  %a: f32[2,3] = tanh(%x)
  %b: f32[3] = logistic(%y)
  %c: f32[2,3] = broadcast_in_dim[shape=[2,3], dims=[1]](%b)
  %d: f32[2,3] = mul(%a, %c)
  %e: f32[2,3] = exp(%d)
  %one: f32[2,3] = constant[value=1]()
  %sq: f32[2,3] = mul(%x, %x)
  %den: f32[2,3] = add(%one, %sq)
  %g: f32[2,3] = div(%e, %den)
  %h: f32[2,3] = log(%den)
  %k: f32[2,3] = sin(%h)
  %s: f32[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%g, %y)
  return %s, %k
}
; jvp:
