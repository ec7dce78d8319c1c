; A dynamic_update_slice at constant start indices (as reverse mode writes a slice's
; cotangent) becomes select(mask, pad(update), x): exact, and it fuses. The start 7 is
; clamped to 6, as the primitive clamps it.
func @f(%x: f32[8], %u: f32[2]) -> (f32[8]) {
  %s: f32[2] = sin(%u)
  %i: i32[] = constant[value=7]()
  %y: f32[8] = dynamic_update_slice(%x, %s, %i)
  %z: f32[8] = mul(%y, %y)
  return %z
}
; fuse:
; func @f(%0: f32[8], %1: f32[2]) -> (f32[8]) {
;   %2: f32[8] = call[func=@f_k0](%1, %0)
;   return %2
; }
;
; func @f_k0[kind="fusion"](%0: f32[2], %1: f32[8]) -> (f32[8]) {
;   %2: f32[2] = sin(%0)
;   %3: f32[] = constant[value=0.0]()
;   %4: f32[8] = pad[low=[6], high=[0], interior=[0]](%2, %3)
;   %5: bool[2] = constant[value=true]()
;   %6: bool[] = constant[value=false]()
;   %7: bool[8] = pad[low=[6], high=[0], interior=[0]](%5, %6)
;   %8: f32[8] = select(%7, %4, %1)
;   %9: f32[8] = mul(%8, %8)
;   return %9
; }
; launches: 1
