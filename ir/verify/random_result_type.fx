; random_bits always gives i32 words of the `shape` attribute.
func @f(%k: i32[2]) -> (f32[3]) {
  %r: f32[3] = random_bits[shape=[3]](%k) ; error: declared result types (f32[3]) differ from the type rule's (i32[3])
  return %r
}
