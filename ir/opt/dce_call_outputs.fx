; opt inlines calls first, so a call never survives it; what dce alone does to the
; call (specialises @g to its used result and the param it reads) is tested in the
; transform crate. After inlining, the unused result's work (exp of %z) goes.
func @f(%x: f32[3], %z: f32[3]) -> (f32[3]) {
  %a: f32[3], %b: f32[3] = call[func=@g](%x, %z)
  return %a
}
; opt:
; func @f(%0: f32[3], %1: f32[3]) -> (f32[3]) {
;   %2: f32[3] = sin(%0)
;   return %2
; }

func @g(%x: f32[3], %z: f32[3]) -> (f32[3], f32[3]) {
  %s: f32[3] = sin(%x)
  %e: f32[3] = exp(%z)
  return %s, %e
}
