func @f(%x: f32[4], %i: i32[]) -> (f32[5]) {
  %y: f32[5] = dynamic_slice[sizes=[5]](%x, %i) ; error: size 5 of axis 0 exceeds the operand's 4
  return %y
}
