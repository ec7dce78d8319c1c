; Loop-invariant work leaves a scan body: exp(w) and w * 2 read only the scan const
; %w, so they run once before the scan and enter it as new consts (the body keeps
; its constant 2.0 for fold and simplify; the hoisted mul gets a copy). The add reads
; the carry and stays.
func @f(%w: f32[3], %c: f32[3], %xs: f32[4,3]) -> (f32[3], f32[4,3]) {
  %out: f32[3], %ys: f32[4,3] = scan[body=@step, length=4, num_consts=1, num_carry=1](%w, %c, %xs)
  return %out, %ys
}
; opt:
; func @f(%0: f32[3], %1: f32[3], %2: f32[4,3]) -> (f32[3], f32[4,3]) {
;   %3: f32[3] = exp(%0)
;   %4: f32[3] = constant[value=2.0]()
;   %5: f32[3] = mul(%0, %4)
;   %6: f32[3], %7: f32[4,3] = scan[body=@step, length=4, num_consts=2, num_carry=1, reverse=false, checkpoint=none](%3, %5, %1, %2)
;   return %6, %7
; }
;
; func @step(%0: f32[3], %1: f32[3], %2: f32[3], %3: f32[3]) -> (f32[3], f32[3]) {
;   %4: f32[3] = mul(%2, %0)
;   %5: f32[3] = add(%4, %3)
;   %6: f32[3] = add(%5, %1)
;   return %5, %6
; }

func @step(%w: f32[3], %c: f32[3], %x: f32[3]) -> (f32[3], f32[3]) {
  %e: f32[3] = exp(%w)
  %two: f32[3] = constant[value=2.0]()
  %w2: f32[3] = mul(%w, %two)
  %m: f32[3] = mul(%c, %e)
  %n: f32[3] = add(%m, %x)
  %y: f32[3] = add(%n, %w2)
  return %n, %y
}
