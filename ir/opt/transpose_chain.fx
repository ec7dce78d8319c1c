; transpose of transpose is one transpose with the composed permutation; composing to
; the identity gives the operand.
func @f(%x: f32[2,3,4]) -> (f32[4,2,3], f32[2,3,4]) {
  %a: f32[3,4,2] = transpose[perm=[1,2,0]](%x)
  %b: f32[4,2,3] = transpose[perm=[1,2,0]](%a)
  %c: f32[3,2,4] = transpose[perm=[1,0,2]](%x)
  %d: f32[2,3,4] = transpose[perm=[1,0,2]](%c)
  return %b, %d
}
; opt:
; func @f(%0: f32[2,3,4]) -> (f32[4,2,3], f32[2,3,4]) {
;   %1: f32[4,2,3] = transpose[perm=[2,0,1]](%0)
;   return %1, %0
; }
