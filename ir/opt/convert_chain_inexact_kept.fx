; Must NOT simplify: f64 -> f32 -> f64 rounds, f32 -> i32 -> f32 truncates and
; saturates, f32 -> bool -> f32 loses everything but zero-ness.
func @f(%x: f64[3], %y: f32[3]) -> (f64[3], f32[3], f32[3]) {
  %a: f32[3] = convert[dtype=f32](%x)
  %b: f64[3] = convert[dtype=f64](%a)
  %c: i32[3] = convert[dtype=i32](%y)
  %d: f32[3] = convert[dtype=f32](%c)
  %e: bool[3] = convert[dtype=bool](%y)
  %f: f32[3] = convert[dtype=f32](%e)
  return %b, %d, %f
}
; in: f64[3] = [0.1, 1e300, -0.0]
; in: f32[3] = [2.5, -1e10, nan]
; opt:
; func @f(%0: f64[3], %1: f32[3]) -> (f64[3], f32[3], f32[3]) {
;   %2: f32[3] = convert[dtype=f32](%0)
;   %3: f64[3] = convert[dtype=f64](%2)
;   %4: i32[3] = convert[dtype=i32](%1)
;   %5: f32[3] = convert[dtype=f32](%4)
;   %6: bool[3] = convert[dtype=bool](%1)
;   %7: f32[3] = convert[dtype=f32](%6)
;   return %3, %5, %7
; }
