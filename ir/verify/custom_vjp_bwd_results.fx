; bwd must return one cotangent per float primal: here one f32[2], not two.
func @f(%x: f32[2], %k: i32[]) -> (f32[2]) {
  %y: f32[2] = custom_vjp[func=@g, fwd=@g_fwd, bwd=@g_bwd](%x, %k) ; error: bwd @g_bwd returns (f32[2], f32[2]) but must return (f32[2])
  return %y
}

func @g(%x: f32[2], %k: i32[]) -> (f32[2]) {
  return %x
}

func @g_fwd(%x: f32[2], %k: i32[]) -> (f32[2]) {
  return %x
}

func @g_bwd(%ct: f32[2]) -> (f32[2], f32[2]) {
  return %ct, %ct
}
