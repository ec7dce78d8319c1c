; Opaque primitives stay launches of their own: cumsum between two kernels.
func @f(%x: f32[8]) -> (f32[8]) {
  %a: f32[8] = mul(%x, %x)
  %c: f32[8] = cumsum[axis=0, reverse=false](%a)
  %y: f32[8] = sqrt(%c)
  return %y
}
; fuse:
; func @f(%0: f32[8]) -> (f32[8]) {
;   %1: f32[8] = call[func=@f_k0](%0)
;   %2: f32[8] = cumsum[axis=0, reverse=false](%1)
;   %3: f32[8] = call[func=@f_k1](%2)
;   return %3
; }
;
; func @f_k0[kind="fusion"](%0: f32[8]) -> (f32[8]) {
;   %1: f32[8] = mul(%0, %0)
;   return %1
; }
;
; func @f_k1[kind="fusion"](%0: f32[8]) -> (f32[8]) {
;   %1: f32[8] = sqrt(%0)
;   return %1
; }
; launches: 3
