; name tags a value for checkpoint policies; it evaluates as the identity on every dtype.

; name of f32, f64, i32 and bool values, bits kept (signed zero, NaN, subnormal).
func @name_all(%a: f32[4], %b: f64[2], %c: i32[2,2], %d: bool[3]) -> (f32[4], f64[2], i32[2,2], bool[3]) {
  %w: f32[4] = name[name="act"](%a)
  %x: f64[2] = name[name="h.0"](%b)
  %y: i32[2,2] = name[name="idx"](%c)
  %z: bool[3] = name[name="mask"](%d)
  return %w, %x, %y, %z
}
; run
; in: f32[4] = [-0.0, nan, 1e-45, inf]
; in: f64[2] = [-0.0, 5e-324]
; in: i32[2,2] = [-2147483648, 0, 1, 2147483647]
; in: bool[3] = [true, false, true]
; out0: f32[4] = [-0.0, nan, 1e-45, inf]
; out1: f64[2] = [-0.0, 5e-324]
; out2: i32[2,2] = [-2147483648, 0, 1, 2147483647]
; out3: bool[3] = [true, false, true]

; name applied twice, to a computed value.
func @name_chain(%a: f32[2]) -> (f32[2]) {
  %b: f32[2] = neg(%a)
  %c: f32[2] = name[name="n1"](%b)
  %d: f32[2] = name[name="n2"](%c)
  return %d
}
; run
; in: f32[2] = [1.5, -0.0]
; out0: f32[2] = [-1.5, 0.0]
