; random_bits takes a key of exactly two i32 words.
func @f(%k: i32[4]) -> (i32[3]) {
  %r: i32[3] = random_bits[shape=[3]](%k) ; error: the key must be i32[2], got i32[4]
  return %r
}
