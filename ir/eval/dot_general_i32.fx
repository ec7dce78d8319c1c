; dot_general on i32: products and sums wrap modulo 2^32.

; Inner products on i32 that overflow.
func @inner_i32(%u: i32[2,2], %v: i32[2]) -> (i32[2]) {
  %y: i32[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%u, %v)
  return %y
}
; run
; in: i32[2,2] = [65536, 65536, 2147483647, 2147483647]
; in: i32[2] = [65536, 1]
; out0: i32[2] = [65536, 2147418111]
; run
; in: i32[2,2] = [2147483647, 1, -2147483648, -1]
; in: i32[2] = [1, 1]
; out0: i32[2] = [-2147483648, 2147483647]

; i32 matrix product with a zero-size contraction alongside.
func @matmul_i32(%a: i32[2,2], %b: i32[2,2], %c: i32[2,0], %d: i32[0,2]) -> (i32[2,2], i32[2,2]) {
  %y: i32[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  %z: i32[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%c, %d)
  return %y, %z
}
; run
; in: i32[2,2] = [1, 2, 3, 4]
; in: i32[2,2] = [5, 6, 7, 8]
; in: i32[2,0] = []
; in: i32[0,2] = []
; out0: i32[2,2] = [19, 22, 43, 50]
; out1: i32[2,2] = [0, 0, 0, 0]
; run
; in: i32[2,2] = [46341, -46341, 100000, 100000]
; in: i32[2,2] = [46341, 1, 46341, -1]
; in: i32[2,0] = []
; in: i32[0,2] = []
; out0: i32[2,2] = [0, 92682, 678265408, 0]
; out1: i32[2,2] = [0, 0, 0, 0]
