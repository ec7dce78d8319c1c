; convert from float to i32 truncates toward zero, saturates at the i32 range and maps NaN to 0.

; f32 to i32: truncation, the bounds of the exact range, saturation, infinities and NaN.
func @f32_to_i32(%x: f32[15]) -> (i32[15]) {
  %y: i32[15] = convert[dtype=i32](%x)
  return %y
}
; run
; in: f32[15] = [1.9, -1.9, 0.5, -0.5, -0.0, 2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 3e9, -3e9, inf, -inf, nan, 1e-45]
; out0: i32[15] = [1, -1, 0, 0, 0, 2147483520, 2147483647, -2147483648, -2147483648, 2147483647, -2147483648, 2147483647, -2147483648, 0, 0]

; f64 to i32: values just inside and outside the i32 range.
func @f64_to_i32(%x: f64[10]) -> (i32[10]) {
  %y: i32[10] = convert[dtype=i32](%x)
  return %y
}
; run
; in: f64[10] = [2147483647.9, 2147483647.0, 2147483648.0, -2147483648.9, -2147483649.0, 1e300, -inf, nan, 2.5, -2.5]
; out0: i32[10] = [2147483647, 2147483647, 2147483647, -2147483648, -2147483648, 2147483647, -2147483648, 0, 2, -2]
