; Must not happen: the second carry's final value is unused, but the kept first carry
; reads it inside the body (a + b), so it stays; so does the third, which only the
; second reads (the dependency fixpoint goes two steps).
func @f(%a: f32[], %b: f32[], %d: f32[], %xs: f32[4]) -> (f32[]) {
  %ra: f32[], %rb: f32[], %rd: f32[] = scan[body=@step, length=4, num_carry=3](%a, %b, %d, %xs)
  return %ra
}
; opt:
; func @f(%0: f32[], %1: f32[], %2: f32[], %3: f32[4]) -> (f32[]) {
;   %4: f32[], %5: f32[], %6: f32[] = scan[body=@step, length=4, num_consts=0, num_carry=3, reverse=false, checkpoint=none](%0, %1, %2, %3)
;   return %4
; }
;
; func @step(%0: f32[], %1: f32[], %2: f32[], %3: f32[]) -> (f32[], f32[], f32[]) {
;   %4: f32[] = add(%0, %1)
;   %5: f32[] = mul(%2, %3)
;   %6: f32[] = sin(%2)
;   return %4, %5, %6
; }

func @step(%a: f32[], %b: f32[], %d: f32[], %x: f32[]) -> (f32[], f32[], f32[]) {
  %na: f32[] = add(%a, %b)
  %nb: f32[] = mul(%d, %x)
  %nd: f32[] = sin(%d)
  return %na, %nb, %nd
}
