; x * 1 and 1 * x are x, for floats (NaN, inf and -0.0 included) and integers; a
; non-splat constant of ones counts too.
func @f(%x: f32[4], %n: i32[4]) -> (f32[4], f32[4], i32[4]) {
  %one: f32[4] = constant[value=1.0]()
  %a: f32[4] = mul(%x, %one)
  %ones: f32[4] = constant[value=[1.0, 1.0, 1.0, 1.0]]()
  %b: f32[4] = mul(%ones, %x)
  %k: i32[4] = constant[value=1]()
  %c: i32[4] = mul(%k, %n)
  return %a, %b, %c
}
; opt:
; func @f(%0: f32[4], %1: i32[4]) -> (f32[4], f32[4], i32[4]) {
;   return %0, %0, %1
; }
