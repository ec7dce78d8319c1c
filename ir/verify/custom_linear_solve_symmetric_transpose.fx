; a symmetric system's solve is its own transpose: naming a transpose_solve too is an error.
func @f(%a: f64[2,2], %b: f64[2]) -> (f64[2]) {
  %x: f64[2] = custom_linear_solve[matvec=@mv, solve=@s, transpose_solve=@s, symmetric=true, num_consts=1](%a, %b) ; error: a symmetric system takes no transpose_solve (its solve is its own), got @s
  return %x
}

func @mv(%a: f64[2,2], %x: f64[2]) -> (f64[2]) {
  %y: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %x)
  return %y
}

func @s(%a: f64[2,2], %b: f64[2]) -> (f64[2]) {
  return %b
}
