; sort: every operand permuted along `dimension` by the first `num_keys` operands
; (jax.lax.sort): stable, -0.0 and 0.0 equal (they keep their order), NaNs equal to each
; other and after +inf; non-key operands and every operand's bits move unchanged.

; a vector with NaN, infinities and signed zeros; the iota shows the stable order.
func @sort_vector(%x: f32[8]) -> (f32[8], i32[8]) {
  %i: i32[8] = iota[dtype=i32, shape=[8], dim=0]()
  %a: f32[8], %b: i32[8] = sort[dimension=0](%x, %i)
  return %a, %b
}
; run
; in: f32[8] = [3.0, nan, -0.0, 0.0, -inf, inf, -0.0, 1.0]
; out0: f32[8] = [-inf, -0.0, 0.0, -0.0, 1.0, 3.0, inf, nan]
; out1: i32[8] = [4, 2, 3, 6, 7, 0, 5, 1]
; run
; in: f32[8] = [2.0, 2.0, 1.0, 1.0, 2.0, 1.0, -1.0, 2.0]
; out0: f32[8] = [-1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0]
; out1: i32[8] = [6, 2, 3, 5, 0, 1, 4, 7]

; a matrix along each axis, f64 and i32.
func @sort_matrix(%x: f64[2,3], %k: i32[2,3]) -> (f64[2,3], f64[2,3], i32[2,3]) {
  %a: f64[2,3] = sort[dimension=1](%x)
  %b: f64[2,3] = sort[dimension=0](%x)
  %c: i32[2,3] = sort[dimension=1](%k)
  return %a, %b, %c
}
; run
; in: f64[2,3] = [1.0, -2.0, 3.0, 0.5, 7.0, -1.0]
; in: i32[2,3] = [5, -3, 2, 4, 9, -8]
; out0: f64[2,3] = [-2.0, 1.0, 3.0, -1.0, 0.5, 7.0]
; out1: f64[2,3] = [0.5, -2.0, -1.0, 1.0, 7.0, 3.0]
; out2: i32[2,3] = [-3, 2, 5, -8, 4, 9]

; two keys (lexicographic) with a payload of another dtype, and bool keys.
func @sort_two_keys(%k1: i32[6], %k2: f32[6], %v: f64[6], %b: bool[6]) -> (i32[6], f32[6], f64[6], bool[6]) {
  %a: i32[6], %c: f32[6], %d: f64[6] = sort[dimension=0, num_keys=2](%k1, %k2, %v)
  %e: bool[6] = sort[dimension=0](%b)
  return %a, %c, %d, %e
}
; run
; in: i32[6] = [2, 1, 2, 1, 0, 2]
; in: f32[6] = [0.5, 3.0, -1.0, 3.0, 9.0, -1.0]
; in: f64[6] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
; in: bool[6] = [true, false, true, false, false, true]
; out0: i32[6] = [0, 1, 1, 2, 2, 2]
; out1: f32[6] = [9.0, 3.0, 3.0, -1.0, -1.0, 0.5]
; out2: f64[6] = [4.0, 1.0, 3.0, 2.0, 5.0, 0.0]
; out3: bool[6] = [false, false, false, true, true, true]

; bf16 keys compare by value and keep their bits; an empty axis and an empty other axis.
func @sort_half_and_empty(%h: bf16[5], %x: f32[0,3], %y: f32[2,0]) -> (bf16[5], f32[0,3], f32[2,0]) {
  %a: bf16[5] = sort[dimension=0](%h)
  %b: f32[0,3] = sort[dimension=0](%x)
  %c: f32[2,0] = sort[dimension=0](%y)
  return %a, %b, %c
}
; run
; in: bf16[5] = [1.5, nan, -0.0, -2.0, 0.0]
; in: f32[0,3] = []
; in: f32[2,0] = []
; out0: bf16[5] = [-2.0, -0.0, 0.0, 1.5, nan]
; out1: f32[0,3] = []
; out2: f32[2,0] = []
