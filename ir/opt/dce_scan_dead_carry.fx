; The second carry's final value is unused and neither the kept carry nor the ys read
; it inside the body: it goes from the scan (operand, result, body param and result),
; with the const only it read.
func @f(%k: f32[], %a: f32[], %b: f32[], %xs: f32[4]) -> (f32[], f32[4]) {
  %ra: f32[], %rb: f32[], %ys: f32[4] = scan[body=@step, length=4, num_consts=1, num_carry=2](%k, %a, %b, %xs)
  return %ra, %ys
}
; opt:
; func @f(%0: f32[], %1: f32[], %2: f32[], %3: f32[4]) -> (f32[], f32[4]) {
;   %4: f32[], %5: f32[4] = scan[body=@step, length=4, num_consts=0, num_carry=1, reverse=false, checkpoint=none](%1, %3)
;   return %4, %5
; }
;
; func @step(%0: f32[], %1: f32[]) -> (f32[], f32[]) {
;   %2: f32[] = add(%0, %1)
;   %3: f32[] = sin(%2)
;   return %2, %3
; }

func @step(%k: f32[], %a: f32[], %b: f32[], %x: f32[]) -> (f32[], f32[], f32[]) {
  %na: f32[] = add(%a, %x)
  %kb: f32[] = mul(%b, %k)
  %nb: f32[] = exp(%kb)
  %y: f32[] = sin(%na)
  return %na, %nb, %y
}
