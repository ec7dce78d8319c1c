; x / 1 is x, for floats and for i32's truncating division; 1 / x is not.
func @f(%x: f64[2], %n: i32[2]) -> (f64[2], i32[2], f64[2]) {
  %one: f64[2] = constant[value=1.0]()
  %a: f64[2] = div(%x, %one)
  %k: i32[2] = constant[value=1]()
  %b: i32[2] = div(%n, %k)
  %c: f64[2] = div(%one, %x)
  return %a, %b, %c
}
; opt:
; func @f(%0: f64[2], %1: i32[2]) -> (f64[2], i32[2], f64[2]) {
;   %2: f64[2] = constant[value=1.0]()
;   %3: f64[2] = div(%2, %0)
;   return %0, %1, %3
; }
