; A matrix-vector product batched over the vector: one dot_general, the matrix untouched.
func @mv(%a: f64[2,3], %v: f64[3]) -> (f64[2]) {
  %y: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %v)
  return %y
}
; in_axes: none,0
; axis_size: 3
; vmap:
; func @mv_vmap(%0: f64[2,3], %1: f64[3,3]) -> (f64[3,2]) {
;   %2: f64[2,3] = dot_general[lhs_contract=[1], rhs_contract=[1], lhs_batch=[], rhs_batch=[], preferred=none](%0, %1)
;   %3: f64[3,2] = transpose[perm=[1,0]](%2)
;   return %3
; }
