; x + (-0.0) is x for every x (-0.0 + -0.0 = -0.0), on either side; i32 x + 0 is x.
func @f(%x: f64[4], %n: i32[]) -> (f64[4], f64[4], i32[]) {
  %z: f64[4] = constant[value=-0.0]()
  %a: f64[4] = add(%x, %z)
  %b: f64[4] = add(%z, %x)
  %k: i32[] = constant[value=0]()
  %c: i32[] = add(%n, %k)
  return %a, %b, %c
}
; in: f64[4] = [-0.0, 0.0, nan, -inf]
; in: i32[] = [-7]
; opt:
; func @f(%0: f64[4], %1: i32[]) -> (f64[4], f64[4], i32[]) {
;   return %0, %0, %1
; }
