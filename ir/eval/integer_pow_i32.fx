; integer_pow on i32: products wrap; a negative exponent is the non-trapping division 1 / x^|y|.

; Positive exponents on i32, with wrap-around.
func @integer_pow_i32(%x: i32[7]) -> (i32[7], i32[7], i32[7], i32[7]) {
  %p0: i32[7] = integer_pow[y=0](%x)
  %p3: i32[7] = integer_pow[y=3](%x)
  %p31: i32[7] = integer_pow[y=31](%x)
  %p32: i32[7] = integer_pow[y=32](%x)
  return %p0, %p3, %p31, %p32
}
; run
; in: i32[7] = [2, -3, 0, 1, -1, 7, -2147483648]
; out0: i32[7] = [1, 1, 1, 1, 1, 1, 1]
; out1: i32[7] = [8, -27, 0, 1, -1, 343, 0]
; out2: i32[7] = [-2147483648, -1264544299, 0, 1, -1, 265001655, 0]
; out3: i32[7] = [0, -501334399, 0, 1, 1, 1855011585, 0]
; run
; in: i32[7] = [65536, 46341, 2147483647, 3, -2, 10, 1290]
; out0: i32[7] = [1, 1, 1, 1, 1, 1, 1]
; out1: i32[7] = [0, -1932785795, 2147483647, 27, -8, 1000, 2146689000]
; out2: i32[7] = [0, -741033651, 2147483647, 1264544299, -2147483648, -2147483648, -2147483648]
; out3: i32[7] = [0, -1976889471, 1, -501334399, 0, 0, 0]

; Negative exponents on i32: 1 / x^|y| truncates (0 unless x^|y| is +-1) and 1 / 0 = -1.
func @integer_pow_i32_negative(%x: i32[6]) -> (i32[6], i32[6]) {
  %m1: i32[6] = integer_pow[y=-1](%x)
  %m2: i32[6] = integer_pow[y=-2](%x)
  return %m1, %m2
}
; run
; in: i32[6] = [2, -3, 0, 1, -1, 65536]
; out0: i32[6] = [0, 0, -1, 1, -1, 0]
; out1: i32[6] = [0, 0, -1, 1, 1, -1]
