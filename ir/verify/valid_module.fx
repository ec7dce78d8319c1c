; A file without an error comment must verify: every structured primitive, well typed.
func @main(%x: f32[3], %i: i32[]) -> (f32[3], f32[3]) {
  %a: f32[3] = call[func=@body](%x)
  %b: f32[3] = cond[branches=[@body, @body]](%i, %a)
  %c: f32[3] = remat[func=@body, policy="dots"](%b)
  %d: f32[3] = custom_jvp[func=@body, jvp=@body_jvp](%c)
  return %d, %a
}

func @body(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = sin(%x)
  return %y
}

func @body_jvp(%x: f32[3], %t: f32[3]) -> (f32[3], f32[3]) {
  %y: f32[3] = sin(%x)
  %c: f32[3] = cos(%x)
  %dy: f32[3] = mul(%c, %t)
  return %y, %dy
}
