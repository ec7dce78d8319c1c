; @even and @odd refer to each other: the IR has no recursion (loops are while/scan).
func @even(%x: f32[]) -> (f32[]) { ; error: recursion among Funcs: @even -> @odd -> @even
  %y: f32[] = call[func=@odd](%x)
  return %y
}

func @odd(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@even](%x)
  return %y
}
