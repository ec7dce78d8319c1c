; the matvec maps x to b's type: here it returns a scalar.
func @f(%a: f64[2,2], %b: f64[2]) -> (f64[2]) {
  %x: f64[2] = custom_linear_solve[matvec=@mv, solve=@s, symmetric=true, num_consts=1](%a, %b) ; error: matvec @mv returns (f64[]) but must return (f64[2])
  return %x
}

func @mv(%a: f64[2,2], %x: f64[2]) -> (f64[]) {
  %y: f64[] = reduce_sum[axes=[0]](%x)
  return %y
}

func @s(%a: f64[2,2], %b: f64[2]) -> (f64[2]) {
  return %b
}
