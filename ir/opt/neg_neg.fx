; neg(neg(x)) is x (the sign bit flips twice; i32::MIN wraps back to itself). A
; single neg stays.
func @f(%x: f32[3], %n: i32[3]) -> (f32[3], i32[3], f32[3]) {
  %a: f32[3] = neg(%x)
  %b: f32[3] = neg(%a)
  %m: i32[3] = neg(%n)
  %k: i32[3] = neg(%m)
  return %b, %k, %a
}
; opt:
; func @f(%0: f32[3], %1: i32[3]) -> (f32[3], i32[3], f32[3]) {
;   %2: f32[3] = neg(%0)
;   return %0, %1, %2
; }
