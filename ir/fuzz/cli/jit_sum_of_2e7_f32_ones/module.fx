; Found by fuzzing the command: an f32 reduce_sum of 20,000,000 ones gave 16777216
; on the interpreter (a left fold stalls at 2^24) and 20000000 on the JIT. This case
; keeps the JIT's side: the sum is exact.
func @sum() -> (f32[]) {
  %x: f32[20000000] = constant[value=1.0]()
  %s: f32[] = reduce_sum[axes=[0]](%x)
  return %s
}
