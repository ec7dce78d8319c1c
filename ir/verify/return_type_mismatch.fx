func @f(%x: f32[2]) -> (f32[3]) { ; error: returns (f32[2]) but the signature declares (f32[3])
  %y: f32[2] = neg(%x)
  return %y
}
