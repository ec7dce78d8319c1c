; custom_linear_solve in reverse mode: implicit differentiation. The cotangent of b is
; one solve of the transposed system (with @tsolve, and the matvec transposed in x,
; which the transform adds as @mv_transposed), and the cotangent of the matrix
; comes from transposing the jvp of @mv in its const: -(ct_b)·xᵀ. Nothing
; differentiates the solver itself.
; The matrix is x's lower triangle plus 4 on the diagonal, so the triangular solves
; are @mv's inverse and its transpose at every input the numerical check draws.
func @f(%m: f64[2,2], %b: f64[2]) -> (f64[2]) {
  %i: i32[2,2] = iota[dtype=i32, shape=[2,2], dim=0]()
  %j: i32[2,2] = iota[dtype=i32, shape=[2,2], dim=1]()
  %low: bool[2,2] = ge(%i, %j)
  %diag: bool[2,2] = eq(%i, %j)
  %z: f64[2,2] = constant[value=0.0]()
  %four: f64[2,2] = constant[value=4.0]()
  %ml: f64[2,2] = select(%low, %m, %z)
  %d: f64[2,2] = select(%diag, %four, %z)
  %a: f64[2,2] = add(%ml, %d)
  %x: f64[2] = custom_linear_solve[matvec=@mv, solve=@solve, transpose_solve=@tsolve, num_consts=1](%a, %b)
  return %x
}
; vjp:
; func @f_vjp(%0: f64[2,2], %1: f64[2], %2: f64[2]) -> (f64[2], f64[2,2], f64[2]) {
;   %3: i32[2,2] = iota[dtype=i32, shape=[2,2], dim=0]()
;   %4: i32[2,2] = iota[dtype=i32, shape=[2,2], dim=1]()
;   %5: bool[2,2] = ge(%3, %4)
;   %6: bool[2,2] = eq(%3, %4)
;   %7: f64[2,2] = constant[value=0.0]()
;   %8: f64[2,2] = constant[value=4.0]()
;   %9: f64[2,2] = select(%5, %0, %7)
;   %10: f64[2,2] = select(%6, %8, %7)
;   %11: f64[2,2] = add(%9, %10)
;   %12: f64[2] = custom_linear_solve[matvec=@mv, solve=@solve, transpose_solve=@tsolve, symmetric=false, num_consts=1](%11, %1)
;   %13: f64[2] = custom_linear_solve[matvec=@mv_transposed, solve=@tsolve, transpose_solve=@solve, symmetric=false, num_consts=1](%11, %2)
;   %14: f64[2] = neg(%13)
;   %15: f64[2,2] = dot_general[lhs_contract=[], rhs_contract=[], lhs_batch=[], rhs_batch=[], preferred=none](%14, %12)
;   %16: f64[2,2] = constant[value=0.0]()
;   %17: f64[2,2] = select(%5, %15, %16)
;   return %12, %17, %13
; }
;
; func @mv(%0: f64[2,2], %1: f64[2]) -> (f64[2]) {
;   %2: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%0, %1)
;   return %2
; }
;
; func @solve(%0: f64[2,2], %1: f64[2]) -> (f64[2]) {
;   %2: f64[2,1] = reshape[shape=[2,1]](%1)
;   %3: f64[2,1] = triangular_solve[left_side=true, lower=true, transpose_a=false, unit_diagonal=false](%0, %2)
;   %4: f64[2] = reshape[shape=[2]](%3)
;   return %4
; }
;
; func @tsolve(%0: f64[2,2], %1: f64[2]) -> (f64[2]) {
;   %2: f64[2,1] = reshape[shape=[2,1]](%1)
;   %3: f64[2,1] = triangular_solve[left_side=true, lower=true, transpose_a=true, unit_diagonal=false](%0, %2)
;   %4: f64[2] = reshape[shape=[2]](%3)
;   return %4
; }
;
; func @mv_transposed(%0: f64[2,2], %1: f64[2]) -> (f64[2]) {
;   %2: f64[2] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%1, %0)
;   return %2
; }

func @mv(%a: f64[2,2], %x: f64[2]) -> (f64[2]) {
  %y: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %x)
  return %y
}

func @solve(%a: f64[2,2], %b: f64[2]) -> (f64[2]) {
  %b2: f64[2,1] = reshape[shape=[2,1]](%b)
  %x2: f64[2,1] = triangular_solve[left_side=true, lower=true](%a, %b2)
  %x: f64[2] = reshape[shape=[2]](%x2)
  return %x
}

func @tsolve(%a: f64[2,2], %b: f64[2]) -> (f64[2]) {
  %b2: f64[2,1] = reshape[shape=[2,1]](%b)
  %x2: f64[2,1] = triangular_solve[left_side=true, lower=true, transpose_a=true](%a, %b2)
  %x: f64[2] = reshape[shape=[2]](%x2)
  return %x
}
