; The cond's second output is unused: it goes from both branches, with the work only
; it needed; then the operand %z, which no branch reads any more, goes too.
func @f(%p: bool[], %x: f32[3], %z: f32[3]) -> (f32[3]) {
  %a: f32[3], %b: f32[3] = cond[branches=[@no, @yes]](%p, %x, %z)
  return %a
}
; opt:
; func @f(%0: bool[], %1: f32[3], %2: f32[3]) -> (f32[3]) {
;   %3: f32[3] = cond[branches=[@no,@yes]](%0, %1)
;   return %3
; }
;
; func @no(%0: f32[3]) -> (f32[3]) {
;   %1: f32[3] = sin(%0)
;   return %1
; }
;
; func @yes(%0: f32[3]) -> (f32[3]) {
;   %1: f32[3] = cos(%0)
;   return %1
; }

func @no(%x: f32[3], %z: f32[3]) -> (f32[3], f32[3]) {
  %s: f32[3] = sin(%x)
  %e: f32[3] = exp(%z)
  return %s, %e
}

func @yes(%x: f32[3], %z: f32[3]) -> (f32[3], f32[3]) {
  %c: f32[3] = cos(%x)
  %t: f32[3] = tanh(%z)
  return %c, %t
}
