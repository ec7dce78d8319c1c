; bf16 and f16: each arithmetic result computed in f32 and rounded once to nearest
; even (ties go to the even neighbour, overflow to inf); sums accumulate in f32 and
; round at the end. Expected values are JAX's (jax.numpy on bfloat16/float16 arrays),
; printed as the shortest text that reads back to the same 16 bits (65500.0 is f16's
; largest value, 65504; 1.016 is the bf16 1.015625).

; bf16 arithmetic: 1 + 2^-8 and 1 + 3·2^-8 are ties (1 and 1 + 2^-6); exp(100)
; overflows.
func @bf16_arith(%x: bf16[4], %y: bf16[4]) -> (bf16[4], bf16[4], bf16[4], bf16[4]) {
  %a: bf16[4] = add(%x, %y)
  %m: bf16[4] = mul(%x, %y)
  %e: bf16[4] = exp(%y)
  %t: bf16[4] = tanh(%x)
  return %a, %m, %e, %t
}
; run
; in: bf16[4] = [1.0, 1.0, -2.5, 3.0]
; in: bf16[4] = [0.00390625, 0.01171875, 0.30078125, 100.0]
; out0: bf16[4] = [1.0, 1.016, -2.2, 103.0]
; out1: bf16[4] = [0.0039, 0.0117, -0.75, 300.0]
; out2: bf16[4] = [1.01, 1.016, 1.35, inf]
; out3: bf16[4] = [0.76, 0.76, -0.99, 0.996]

; f16 sums: accumulated in f32, rounded once (65507 rounds to 65504; 67552 overflows).
func @f16_sums(%h: f16[2,3]) -> (f16[3], f16[2]) {
  %s0: f16[3] = reduce_sum[axes=[0]](%h)
  %s1: f16[2] = reduce_sum[axes=[1]](%h)
  return %s0, %s1
}
; run
; in: f16[2,3] = [0.0999755859375, 2048.0, -0.0, 1.1920928955078125e-07, 65504.0, 3.0]
; out0: f16[3] = [0.1, inf, 3.0]
; out1: f16[2] = [2048.0, 65500.0]

; f32 to bf16 and f16: ties to even, overflow to inf, a tiny f32 subnormal kept by
; bf16 (whose range is f32's) and flushed to -0 by f16.
func @narrowing(%f: f32[4]) -> (bf16[4], f16[4]) {
  %b: bf16[4] = convert[dtype=bf16](%f)
  %h: f16[4] = convert[dtype=f16](%f)
  return %b, %h
}
; run
; in: f32[4] = [1.00390625, 1.01171875, 65520.0, -1e-40]
; out0: bf16[4] = [1.0, 1.016, 65500.0, -9e-41]
; out1: f16[4] = [1.004, 1.012, inf, -0.0]
