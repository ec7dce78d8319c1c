; Transposes around dot_general fold into it, exactly: x^T as an operand becomes a
; contract dimension of x; the transpose of the result (which swaps the lhs-free and
; rhs-free axes) swaps the operands. No copy kernel is left: two GEMM launches.
func @f(%x: f32[8,4], %w: f32[8,6]) -> (f32[6,4]) {
  %xt: f32[4,8] = transpose[perm=[1, 0]](%x)
  %z: f32[4,6] = dot_general[lhs_contract=[1], rhs_contract=[0]](%xt, %w)
  %zt: f32[6,4] = transpose[perm=[1, 0]](%z)
  return %zt
}
; fuse:
; func @f(%0: f32[8,4], %1: f32[8,6]) -> (f32[6,4]) {
;   %2: f32[6,4] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%1, %0)
;   return %2
; }
; launches: 1
