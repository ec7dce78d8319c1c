func @f(%c: f32[], %xs: f32[4,2]) -> (f32[], f32[3,2]) {
  %a: f32[], %ys: f32[3,2] = scan[body=@step, length=3, num_consts=0, num_carry=1](%c, %xs) ; error: xs operand 0 is f32[4,2] but its leading axis must have size length=3
  return %a, %ys
}

func @step(%c: f32[], %x: f32[2]) -> (f32[], f32[2]) {
  return %c, %x
}
