; An elementwise chain (cheap and expensive links, each read once) fuses into one
; kernel: one launch.
func @f(%x: f32[4,8], %y: f32[4,8]) -> (f32[4,8]) {
  %a: f32[4,8] = mul(%x, %y)
  %b: f32[4,8] = add(%a, %x)
  %c: f32[4,8] = tanh(%b)
  %d: f32[4,8] = neg(%c)
  %e: f32[4,8] = exp(%d)
  return %e
}
; fuse:
; func @f(%0: f32[4,8], %1: f32[4,8]) -> (f32[4,8]) {
;   %2: f32[4,8] = call[func=@f_k0](%0, %1)
;   return %2
; }
;
; func @f_k0[kind="fusion"](%0: f32[4,8], %1: f32[4,8]) -> (f32[4,8]) {
;   %2: f32[4,8] = mul(%0, %1)
;   %3: f32[4,8] = add(%2, %0)
;   %4: f32[4,8] = tanh(%3)
;   %5: f32[4,8] = neg(%4)
;   %6: f32[4,8] = exp(%5)
;   return %6
; }
; launches: 1
