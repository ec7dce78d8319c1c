; A type whose byte size overflows is rejected before anything could be allocated.
func @f(%x: f32[4611686018427387904,4]) -> (f32[4611686018427387904,4]) { ; error: is too large: its byte size overflows
  return %x
}
