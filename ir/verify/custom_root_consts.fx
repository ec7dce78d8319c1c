; num_consts cannot exceed the operands, and an initial guess must follow the consts.
func @f(%c: f64[2]) -> (f64[2]) {
  %x: f64[2] = custom_root[f=@g, solve=@s, tangent_solve=@t, num_consts=1](%c) ; error: needs at least one initial guess operand after the 1 consts
  return %x
}

func @g(%c: f64[2], %x: f64[2]) -> (f64[2]) {
  return %x
}

func @s(%c: f64[2], %x: f64[2]) -> (f64[2]) {
  return %x
}

func @t(%c: f64[2], %x: f64[2], %r: f64[2]) -> (f64[2]) {
  return %r
}
