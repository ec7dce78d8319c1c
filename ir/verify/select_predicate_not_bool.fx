func @f(%p: i32[2], %x: f32[2], %y: f32[2]) -> (f32[2]) {
  %z: f32[2] = select(%p, %x, %y) ; error: the predicate must be bool, got i32[2]
  return %z
}
