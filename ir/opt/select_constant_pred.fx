; select with a uniform constant predicate is the chosen side; a mixed constant
; predicate is kept.
func @f(%x: f32[3], %y: f32[3]) -> (f32[3], f32[3], f32[3]) {
  %t: bool[3] = constant[value=true]()
  %a: f32[3] = select(%t, %x, %y)
  %n: bool[3] = constant[value=[false, false, false]]()
  %b: f32[3] = select(%n, %x, %y)
  %m: bool[3] = constant[value=[true, false, true]]()
  %c: f32[3] = select(%m, %x, %y)
  return %a, %b, %c
}
; opt:
; func @f(%0: f32[3], %1: f32[3]) -> (f32[3], f32[3], f32[3]) {
;   %2: bool[3] = constant[value=[true,false,true]]()
;   %3: f32[3] = select(%2, %0, %1)
;   return %0, %1, %3
; }
