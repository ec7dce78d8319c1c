func @f(%x: f32[3,0]) -> (i32[3]) {
  %y: i32[3] = argmax[axis=1, index_dtype=i32](%x) ; error: axis 1 of f32[3,0] has no elements
  return %y
}
