; random_bits: the shape attribute (no default) gives the result shape; a scalar and
; an empty draw are allowed.
func @draws(%key: i32[2]) -> (i32[4,2], i32[], i32[0]) {
  %keys: i32[4,2] = random_bits[shape=[4, 2]](%key)
  %one: i32[] = random_bits[shape=[]](%key)
  %none: i32[0] = random_bits[shape=[0]](%key)
  return %keys, %one, %none
}
; print:
; func @draws(%0: i32[2]) -> (i32[4,2], i32[], i32[0]) {
;   %1: i32[4,2] = random_bits[shape=[4,2]](%0)
;   %2: i32[] = random_bits[shape=[]](%0)
;   %3: i32[0] = random_bits[shape=[0]](%0)
;   return %1, %2, %3
; }
