; The interpreter summed f32 in a left fold, which stalls at 2^24: 20,000,000 ones
; gave 16777216 (the JIT gave 20000000). Floats are now summed in one blocked
; pairwise order shared by both backends.
func @sum() -> (f32[]) {
  %x: f32[20000000] = constant[value=1.0]()
  %s: f32[] = reduce_sum[axes=[0]](%x)
  return %s
}
