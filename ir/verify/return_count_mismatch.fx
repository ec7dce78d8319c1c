func @f(%x: f32[2]) -> (f32[2], f32[2]) { ; error: returns (f32[2]) but the signature declares (f32[2], f32[2])
  return %x
}
