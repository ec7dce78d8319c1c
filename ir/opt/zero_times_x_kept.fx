; Must NOT simplify: 0 * x is NaN for x = inf or NaN and -0.0 for negative x, so it
; is not the constant 0 (nor is x * 0).
func @f(%x: f32[4]) -> (f32[4], f32[4]) {
  %z: f32[4] = constant[value=0.0]()
  %a: f32[4] = mul(%z, %x)
  %b: f32[4] = mul(%x, %z)
  return %a, %b
}
; in: f32[4] = [inf, nan, -2.0, 3.0]
; opt:
; func @f(%0: f32[4]) -> (f32[4], f32[4]) {
;   %1: f32[4] = constant[value=0.0]()
;   %2: f32[4] = mul(%1, %0)
;   %3: f32[4] = mul(%0, %1)
;   return %2, %3
; }
