func @lin[residuals=3](%r: f32[2], %t: f32[2]) -> (f32[2]) { ; error: residuals=3 must be an integer between 0 and the 2 parameters
  %y: f32[2] = mul(%r, %t)
  return %y
}
