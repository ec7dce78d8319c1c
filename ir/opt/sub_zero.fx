; x - 0.0 is x (-0.0 - 0.0 = -0.0); x - (-0.0) is not (it maps -0.0 to +0.0), and
; 0.0 - x is not either.
func @f(%x: f32[3]) -> (f32[3], f32[3], f32[3]) {
  %z: f32[3] = constant[value=0.0]()
  %a: f32[3] = sub(%x, %z)
  %nz: f32[3] = constant[value=-0.0]()
  %b: f32[3] = sub(%x, %nz)
  %c: f32[3] = sub(%z, %x)
  return %a, %b, %c
}
; in: f32[3] = [-0.0, 0.0, inf]
; opt:
; func @f(%0: f32[3]) -> (f32[3], f32[3], f32[3]) {
;   %1: f32[3] = constant[value=0.0]()
;   %2: f32[3] = constant[value=-0.0]()
;   %3: f32[3] = sub(%0, %2)
;   %4: f32[3] = sub(%1, %0)
;   return %0, %3, %4
; }
