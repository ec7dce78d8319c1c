; convert between numeric types: i32 to float rounds to nearest even, f64 to f32 rounds
; to nearest even (overflowing to inf, underflowing to a signed zero), f32 to f64 is exact.

; i32 to f32 rounds to nearest (ties to even above 2^24); i32 to f64 is exact.
func @i32_to_float(%x: i32[8]) -> (f32[8], f64[8]) {
  %a: f32[8] = convert[dtype=f32](%x)
  %b: f64[8] = convert[dtype=f64](%x)
  return %a, %b
}
; run
; in: i32[8] = [16777217, 16777219, 16777221, 2147483647, -2147483648, -5, 0, 2147483584]
; out0: f32[8] = [16777216.0, 16777220.0, 16777220.0, 2147483600.0, -2147483600.0, -5.0, 0.0, 2147483600.0]
; out1: f64[8] = [16777217.0, 16777219.0, 16777221.0, 2147483647.0, -2147483648.0, -5.0, 0.0, 2147483584.0]

; f64 to f32: ties to even, the overflow threshold, subnormal rounding, signed zero.
func @f64_to_f32(%x: f64[16]) -> (f32[16]) {
  %y: f32[16] = convert[dtype=f32](%x)
  return %y
}
; run
; in: f64[16] = [0.1, 1e300, -1e300, 1e-300, -1e-300, 3.4028235677973366e38, 3.4028235677973362e38, 1.0000000596046448, 1.0000001788139343, nan, inf, -inf, 1.401298464324817e-45, 7.006492321624085e-46, 7.006492321624087e-46, -0.0]
; out0: f32[16] = [0.1, inf, -inf, 0.0, -0.0, inf, 3.4028235e38, 1.0, 1.0000002, nan, inf, -inf, 1e-45, 0.0, 1e-45, -0.0]

; f32 to f64 is exact.
func @f32_to_f64(%x: f32[6]) -> (f64[6]) {
  %y: f64[6] = convert[dtype=f64](%x)
  return %y
}
; run
; in: f32[6] = [0.1, -0.0, inf, nan, 1e-45, 3.4028235e38]
; out0: f64[6] = [0.10000000149011612, -0.0, inf, nan, 1.401298464324817e-45, 3.4028234663852886e38]

; Converting to the operand's own dtype is the identity (signed zero and NaN kept).
func @same_dtype(%a: f32[3], %b: f64[2], %c: i32[2], %d: bool[2]) -> (f32[3], f64[2], i32[2], bool[2]) {
  %w: f32[3] = convert[dtype=f32](%a)
  %x: f64[2] = convert[dtype=f64](%b)
  %y: i32[2] = convert[dtype=i32](%c)
  %z: bool[2] = convert[dtype=bool](%d)
  return %w, %x, %y, %z
}
; run
; in: f32[3] = [-0.0, nan, 1e-45]
; in: f64[2] = [-0.0, 0.1]
; in: i32[2] = [-2147483648, 7]
; in: bool[2] = [true, false]
; out0: f32[3] = [-0.0, nan, 1e-45]
; out1: f64[2] = [-0.0, 0.1]
; out2: i32[2] = [-2147483648, 7]
; out3: bool[2] = [true, false]
