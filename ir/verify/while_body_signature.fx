func @f(%x: f32[], %n: i32[]) -> (f32[], i32[]) {
  %a: f32[], %b: i32[] = while[cond=@c, body=@b](%x, %n) ; error: body @b returns (f32[]) but must return (f32[], i32[])
  return %a, %b
}

func @c(%x: f32[], %n: i32[]) -> (bool[]) {
  %zero: i32[] = constant[value=0]()
  %p: bool[] = gt(%n, %zero)
  return %p
}

func @b(%x: f32[], %n: i32[]) -> (f32[]) {
  return %x
}
