; A float pair is not a key: keys are bits, not numbers.
func @f(%k: f32[2]) -> (i32[3]) {
  %r: i32[3] = random_bits[shape=[3]](%k) ; error: the key must be i32[2], got f32[2]
  return %r
}
