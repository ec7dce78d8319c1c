func @f(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = call[func=@nowhere](%x) ; error: callee @nowhere is not a Func of the module
  return %y
}
