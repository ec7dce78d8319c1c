; custom_linear_solve[matvec=@m, solve=@s, transpose_solve=@t, symmetric, num_consts=K](consts..., b...)
; runs @s(consts..., b...): the solution x of @m(consts..., x...) = b (then any auxiliary
; results of @s, which have no derivative). @m and @t only
; matter to the derivatives (implicit differentiation: the tangent is another solve,
; the cotangent a transposed one), so here only the solver runs.

; a positive definite 2x2 system solved by two steps of conjugate gradients (exact
; for two unknowns): a = [[4,1],[1,3]], b = [1,2], x = [1/11, 7/11].
func @cg_solve(%a: f64[2,2], %b: f64[2]) -> (f64[2]) {
  %x: f64[2] = custom_linear_solve[matvec=@mv, solve=@cg, symmetric=true, num_consts=1](%a, %b)
  return %x
}
; run
; in: f64[2,2] = [4.0, 1.0, 1.0, 3.0]
; in: f64[2] = [1.0, 2.0]
; out0: f64[2] = [0.09090909090909091, 0.6363636363636364]

func @mv(%a: f64[2,2], %x: f64[2]) -> (f64[2]) {
  %y: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %x)
  return %y
}

func @cg(%a: f64[2,2], %b: f64[2]) -> (f64[2]) {
  %x0: f64[2] = constant[value=0.0]()
  %x: f64[2], %r: f64[2], %p: f64[2] = scan[body=@cg_step, length=2, num_consts=1, num_carry=3](%a, %x0, %b, %b)
  return %x
}

func @cg_step(%a: f64[2,2], %x: f64[2], %r: f64[2], %p: f64[2]) -> (f64[2], f64[2], f64[2]) {
  %ap: f64[2] = call[func=@mv](%a, %p)
  %rr: f64[] = dot_general[lhs_contract=[0], rhs_contract=[0]](%r, %r)
  %pap: f64[] = dot_general[lhs_contract=[0], rhs_contract=[0]](%p, %ap)
  %alpha: f64[] = div(%rr, %pap)
  %al: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%alpha)
  %step: f64[2] = mul(%al, %p)
  %x1: f64[2] = add(%x, %step)
  %down: f64[2] = mul(%al, %ap)
  %r1: f64[2] = sub(%r, %down)
  %rr1: f64[] = dot_general[lhs_contract=[0], rhs_contract=[0]](%r1, %r1)
  %beta: f64[] = div(%rr1, %rr)
  %be: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%beta)
  %keep: f64[2] = mul(%be, %p)
  %p1: f64[2] = add(%r1, %keep)
  return %x1, %r1, %p1
}

; the same solver also returning the squared residual r·r as an auxiliary result (a
; diagnostic: no derivative), ~0 after the two steps.
func @with_residual(%a: f64[2,2], %b: f64[2]) -> (f64[2], f64[]) {
  %x: f64[2], %rr: f64[] = custom_linear_solve[matvec=@mv, solve=@cg_aux, symmetric=true, num_consts=1](%a, %b)
  return %x, %rr
}
; run
; in: f64[2,2] = [4.0, 1.0, 1.0, 3.0]
; in: f64[2] = [1.0, 2.0]
; out0: f64[2] = [0.09090909090909091, 0.6363636363636364]
; out1: f64[] = [0.0]

func @cg_aux(%a: f64[2,2], %b: f64[2]) -> (f64[2], f64[]) {
  %x0: f64[2] = constant[value=0.0]()
  %x: f64[2], %r: f64[2], %p: f64[2] = scan[body=@cg_step, length=2, num_consts=1, num_carry=3](%a, %x0, %b, %b)
  %rr: f64[] = dot_general[lhs_contract=[0], rhs_contract=[0]](%r, %r)
  return %x, %rr
}

; a lower-triangular system with two right-hand sides and its transposed solve (f32):
; a = [[2,0],[1,4]], b = [[2,4],[5,6]].
func @triangular(%a: f32[2,2], %b: f32[2,2]) -> (f32[2,2]) {
  %x: f32[2,2] = custom_linear_solve[matvec=@tmv, solve=@tsolve, transpose_solve=@ttsolve, num_consts=1](%a, %b)
  return %x
}
; run
; in: f32[2,2] = [2.0, 0.0, 1.0, 4.0]
; in: f32[2,2] = [2.0, 4.0, 5.0, 6.0]
; out0: f32[2,2] = [1.0, 2.0, 1.0, 1.0]

func @tmv(%a: f32[2,2], %x: f32[2,2]) -> (f32[2,2]) {
  %y: f32[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %x)
  return %y
}

func @tsolve(%a: f32[2,2], %b: f32[2,2]) -> (f32[2,2]) {
  %x: f32[2,2] = triangular_solve[left_side=true, lower=true](%a, %b)
  return %x
}

func @ttsolve(%a: f32[2,2], %b: f32[2,2]) -> (f32[2,2]) {
  %x: f32[2,2] = triangular_solve[left_side=true, lower=true, transpose_a=true](%a, %b)
  return %x
}
