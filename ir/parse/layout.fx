; Whitespace and comments anywhere; empty parameter and result lists; several Funcs.
func   @nothing ( ) -> ( ) {   ; no params, no results
  return
}
; print:
; func @nothing() -> () {
;   return
; }
func @one() -> (i32[]) {
  %x: i32[] = constant[value=-7]() ; a negative literal
  return %x ; trailing comment
}
; print:
; func @one() -> (i32[]) {
;   %0: i32[] = constant[value=-7]()
;   return %0
; }
func @two(%a: f32[], %b: f32[]) -> (f32[], f32[]) {
  return %b, %a
}
; print:
; func @two(%0: f32[], %1: f32[]) -> (f32[], f32[]) {
;   return %1, %0
; }
