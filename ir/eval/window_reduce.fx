; reduce_window (jax.lax.reduce_window with lax.add, lax.max, lax.min and their
; identities as init): windows of the dilated, padded operand; holes and padding are
; the identity, a window over no element gives init. A NaN propagates through max and
; min; i32 is exact; empty operands and empty results stay empty. init must be the
; identity of op (checked when the equation runs).

; 1-D: sum, max, min with stride 2 and padding [1, 2].
func @pool_1d(%x: f32[7]) -> (f32[4], f32[4], f32[4]) {
  %z: f32[] = constant[value=0.0]()
  %lo: f32[] = constant[value=-inf]()
  %hi: f32[] = constant[value=inf]()
  %a: f32[4] = reduce_window[op="sum", window_dimensions=[3], window_strides=[2], padding=[[1,2]]](%x, %z)
  %b: f32[4] = reduce_window[op="max", window_dimensions=[3], window_strides=[2], padding=[[1,2]]](%x, %lo)
  %c: f32[4] = reduce_window[op="min", window_dimensions=[3], window_strides=[2], padding=[[1,2]]](%x, %hi)
  return %a, %b, %c
}
; run
; in: f32[7] = [3.0, 1.0, 4.0, 1.0, 5.0, -9.0, 2.0]
; out0: f32[4] = [4.0, 6.0, -3.0, -7.0]
; out1: f32[4] = [3.0, 4.0, 5.0, 2.0]
; out2: f32[4] = [1.0, 1.0, -9.0, -9.0]
; run
; in: f32[7] = [nan, 1.0, -0.0, 0.0, inf, -inf, 2.0]
; out0: f32[4] = [nan, 1.0, nan, -inf]
; out1: f32[4] = [nan, 1.0, inf, 2.0]
; out2: f32[4] = [nan, -0.0, -inf, -inf]

; 2-D max pooling 2x2 stride 2 (NHWC-like: window over the middle axes), f64.
func @pool_2d(%x: f64[1,4,5,2]) -> (f64[1,2,2,2], f64[1,2,2,2]) {
  %lo: f64[] = constant[value=-inf]()
  %z: f64[] = constant[value=0.0]()
  %a: f64[1,2,2,2] = reduce_window[op="max", window_dimensions=[1,2,2,1], window_strides=[1,2,2,1]](%x, %lo)
  %b: f64[1,2,2,2] = reduce_window[op="sum", window_dimensions=[1,2,2,1], window_strides=[1,2,2,1]](%x, %z)
  return %a, %b
}
; run
; in: f64[1,4,5,2] = [0.5, -1.0, 2.0, 3.5, -0.25, 1.5, 4.0, -2.0, 0.0, 1.0, 2.5, -3.0, 1.25, 0.75, -1.5, 6.0, 3.0, -0.5, 2.25, 1.75, -4.0, 5.0, 0.125, -2.5, 3.25, 0.25, -1.25, 4.5, 1.0, 2.0, -0.75, 3.75, 2.0, -1.0, 0.5, 1.5, -3.5, 2.75, 1.0, 0.0]
; out0: f64[1,2,2,2] = [2.5, 3.5, 4.0, 6.0, 2.0, 5.0, 3.25, 4.5]
; out1: f64[1,2,2,2] = [6.25, 0.25, 5.25, 5.0, -2.625, 5.25, -1.0, 9.0]

; base and window dilation, i32.
func @dilated(%x: i32[5]) -> (i32[7], i32[3], i32[5]) {
  %z: i32[] = constant[value=0]()
  %lo: i32[] = constant[value=-2147483648]()
  %hi: i32[] = constant[value=2147483647]()
  %a: i32[7] = reduce_window[op="sum", window_dimensions=[3], base_dilation=[2]](%x, %z)
  %b: i32[3] = reduce_window[op="max", window_dimensions=[2], window_dilation=[2]](%x, %lo)
  %c: i32[5] = reduce_window[op="min", window_dimensions=[2], padding=[[1,0]], base_dilation=[2], window_strides=[2]](%x, %hi)
  return %a, %b, %c
}
; run
; in: i32[5] = [5, -3, 2, 4, 9]
; out0: i32[7] = [2, -3, -1, 2, 6, 4, 13]
; out1: i32[3] = [5, 4, 9]
; out2: i32[5] = [5, -3, 2, 4, 9]

; empty operand, and a window larger than the padded operand.
func @empty(%x: f32[0,3], %y: f32[2]) -> (f32[0,2], f32[0], f32[3]) {
  %z: f32[] = constant[value=0.0]()
  %lo: f32[] = constant[value=-inf]()
  %a: f32[0,2] = reduce_window[op="sum", window_dimensions=[1,2]](%x, %z)
  %b: f32[0] = reduce_window[op="max", window_dimensions=[3]](%y, %lo)
  %c: f32[3] = reduce_window[op="max", window_dimensions=[3], padding=[[3,0]]](%y, %lo)
  return %a, %b, %c
}
; run
; in: f32[0,3] = []
; in: f32[2] = [1.0, 2.0]
; out0: f32[0,2] = []
; out1: f32[0] = []
; out2: f32[3] = [-inf, 1.0, 2.0]

; an init that is not the identity is refused when the equation runs.
func @bad_init(%x: f32[3], %i: f32[]) -> (f32[2]) {
  %a: f32[2] = reduce_window[op="max", window_dimensions=[2]](%x, %i)
  return %a
}
; run
; in: f32[3] = [1.0, 2.0, 3.0]
; in: f32[] = [0.0]
; error: in @bad_init, equation 0 (reduce_window): init must be the identity of max (-inf), got 0
