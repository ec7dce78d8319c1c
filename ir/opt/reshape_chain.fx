; reshape of reshape is one reshape; a chain back to the original shape disappears.
func @f(%x: f32[2,3]) -> (f32[3,2], f32[2,3]) {
  %a: f32[6] = reshape[shape=[6]](%x)
  %b: f32[3,2] = reshape[shape=[3,2]](%a)
  %c: f32[1,6] = reshape[shape=[1,6]](%x)
  %d: f32[2,3] = reshape[shape=[2,3]](%c)
  return %b, %d
}
; opt:
; func @f(%0: f32[2,3]) -> (f32[3,2], f32[2,3]) {
;   %1: f32[3,2] = reshape[shape=[3,2]](%0)
;   return %1, %0
; }
