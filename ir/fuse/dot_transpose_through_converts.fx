; A transpose of a dot's result reached through converts (how a bf16 program reaches
; the JIT: the f32 product rounded by a convert to bf16 and back) moves above them, and
; the result fold then swaps the dot's operands: the rounding fuses into one kernel that
; reads the product in order, with no transposing copy of it.
func @f(%x: f32[8,4], %w: f32[8,6]) -> (f32[6,4]) {
  %z: f32[4,6] = dot_general[lhs_contract=[0], rhs_contract=[0]](%x, %w)
  %h: bf16[4,6] = convert[dtype=bf16](%z)
  %r: f32[4,6] = convert[dtype=f32](%h)
  %zt: f32[6,4] = transpose[perm=[1, 0]](%r)
  return %zt
}
; fuse:
; func @f(%0: f32[8,4], %1: f32[8,6]) -> (f32[6,4]) {
;   %2: f32[6,4] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%1, %0)
;   %3: f32[6,4] = call[func=@f_k0](%2)
;   return %3
; }
;
; func @f_k0[kind="fusion"](%0: f32[6,4]) -> (f32[6,4]) {
;   %1: bf16[6,4] = convert[dtype=bf16](%0)
;   %2: f32[6,4] = convert[dtype=f32](%1)
;   return %2
; }
