; A call is inlined, then the caller's code is cleaned up with the callee's: the
; duplicated sin merges and x * 1 goes.
func @f(%x: f32[3]) -> (f32[3]) {
  %s: f32[3] = sin(%x)
  %c: f32[3] = call[func=@g](%x)
  %y: f32[3] = add(%s, %c)
  return %y
}
; opt:
; func @f(%0: f32[3]) -> (f32[3]) {
;   %1: f32[3] = sin(%0)
;   %2: f32[3] = add(%1, %1)
;   return %2
; }

func @g(%x: f32[3]) -> (f32[3]) {
  %one: f32[3] = constant[value=1.0]()
  %s: f32[3] = sin(%x)
  %y: f32[3] = mul(%s, %one)
  return %y
}
