; stop_gradient evaluates as the identity on every dtype.

; stop_gradient of f32, f64, i32 and bool values, bits kept (signed zero, NaN, subnormal).
func @stop_gradient_all(%a: f32[4], %b: f64[2,2], %c: i32[3], %d: bool[2]) -> (f32[4], f64[2,2], i32[3], bool[2]) {
  %w: f32[4] = stop_gradient(%a)
  %x: f64[2,2] = stop_gradient(%b)
  %y: i32[3] = stop_gradient(%c)
  %z: bool[2] = stop_gradient(%d)
  return %w, %x, %y, %z
}
; run
; in: f32[4] = [-0.0, nan, 1e-45, -inf]
; in: f64[2,2] = [0.1, -0.0, 5e-324, inf]
; in: i32[3] = [-2147483648, 0, 2147483647]
; in: bool[2] = [true, false]
; out0: f32[4] = [-0.0, nan, 1e-45, -inf]
; out1: f64[2,2] = [0.1, -0.0, 5e-324, inf]
; out2: i32[3] = [-2147483648, 0, 2147483647]
; out3: bool[2] = [true, false]

; stop_gradient of a scalar.
func @stop_gradient_scalar(%a: f32[]) -> (f32[]) {
  %y: f32[] = stop_gradient(%a)
  return %y
}
; run
; in: f32[] = [2.5]
; out0: f32[] = [2.5]
