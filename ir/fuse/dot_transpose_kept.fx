; Not folded: a transpose that reorders the operand's free axes would reorder the
; dot's result axes, so it stays (a kernel writing the transposed operand). The
; batched operand transpose, which only moves the contracted axis, folds.
func @f(%x: f32[4,5,3], %y: f32[3,6], %a: f32[2,3,4], %b: f32[2,3,5]) -> (f32[5,4,6], f32[2,4,5]) {
  %xt: f32[5,4,3] = transpose[perm=[1, 0, 2]](%x)
  %z: f32[5,4,6] = dot_general[lhs_contract=[2], rhs_contract=[0]](%xt, %y)
  %at: f32[2,4,3] = transpose[perm=[0, 2, 1]](%a)
  %w: f32[2,4,5] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0]](%at, %b)
  return %z, %w
}
; fuse:
; func @f(%0: f32[4,5,3], %1: f32[3,6], %2: f32[2,3,4], %3: f32[2,3,5]) -> (f32[5,4,6], f32[2,4,5]) {
;   %4: f32[2,4,5] = dot_general[lhs_contract=[1], rhs_contract=[1], lhs_batch=[0], rhs_batch=[0], preferred=none](%2, %3)
;   %5: f32[5,4,3] = call[func=@f_k0](%0)
;   %6: f32[5,4,6] = dot_general[lhs_contract=[2], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%5, %1)
;   return %6, %4
; }
;
; func @f_k0[kind="fusion"](%0: f32[4,5,3]) -> (f32[5,4,3]) {
;   %1: f32[5,4,3] = transpose[perm=[1,0,2]](%0)
;   return %1
; }
; launches: 3
