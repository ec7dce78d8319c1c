; Must NOT simplify: x + 0.0 maps -0.0 to +0.0, so it is not the identity.
func @f(%x: f32[4]) -> (f32[4], f32[4]) {
  %z: f32[4] = constant[value=0.0]()
  %a: f32[4] = add(%x, %z)
  %b: f32[4] = add(%z, %x)
  return %a, %b
}
; in: f32[4] = [-0.0, 0.0, nan, 2.0]
; opt:
; func @f(%0: f32[4]) -> (f32[4], f32[4]) {
;   %1: f32[4] = constant[value=0.0]()
;   %2: f32[4] = add(%0, %1)
;   %3: f32[4] = add(%1, %0)
;   return %2, %3
; }
