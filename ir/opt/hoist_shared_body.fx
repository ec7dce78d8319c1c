; A body shared by two scans with different consts: hoisting changes its signature,
; so the first scan gets a clone (@step_2) and the second keeps @step; exp runs once
; per scan, before it. Both rewritten bodies are the same, so cse merges the clone
; back into @step.
func @f(%u: f32[], %v: f32[], %xs: f32[3]) -> (f32[], f32[]) {
  %z: f32[] = constant[value=0.0]()
  %a: f32[] = scan[body=@step, length=3, num_consts=1, num_carry=1](%u, %z, %xs)
  %b: f32[] = scan[body=@step, length=3, num_consts=1, num_carry=1](%v, %z, %xs)
  return %a, %b
}
; opt:
; func @f(%0: f32[], %1: f32[], %2: f32[3]) -> (f32[], f32[]) {
;   %3: f32[] = constant[value=0.0]()
;   %4: f32[] = exp(%0)
;   %5: f32[] = scan[body=@step, length=3, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%4, %3, %2)
;   %6: f32[] = exp(%1)
;   %7: f32[] = scan[body=@step, length=3, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%6, %3, %2)
;   return %5, %7
; }
;
; func @step(%0: f32[], %1: f32[], %2: f32[]) -> (f32[]) {
;   %3: f32[] = mul(%2, %0)
;   %4: f32[] = add(%1, %3)
;   return %4
; }

func @step(%w: f32[], %c: f32[], %x: f32[]) -> (f32[]) {
  %e: f32[] = exp(%w)
  %m: f32[] = mul(%x, %e)
  %n: f32[] = add(%c, %m)
  return %n
}
