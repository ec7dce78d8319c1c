; Whitespace and comments anywhere; empty parameter and result lists; several Funcs.
func   @nothing ( ) -> ( ) {   ; no params, no results
  return
}
func @one() -> (i32[]) {
  %x: i32[] = constant[value=-7]() ; a negative literal
  return %x ; trailing comment
}
func @two(%a: f32[], %b: f32[]) -> (f32[], f32[]) {
  return %b, %a
}
