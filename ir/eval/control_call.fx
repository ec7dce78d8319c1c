; call[func]: runs another Func of the module on the operands.

; calls with several results, a nested call, a call without operands, and calling the
; same Func twice
func @main(%x: f32[3], %n: i32[]) -> (f32[3], i32[], f32[3], i32[2]) {
  %s: f32[3], %k: i32[] = call[func=@step](%x, %n)
  %t: f32[3] = call[func=@twice_neg](%s)
  %c: i32[2] = call[func=@consts]()
  %s2: f32[3], %k2: i32[] = call[func=@step](%s, %k)
  return %s2, %k2, %t, %c
}
; run
; in: f32[3] = [1.0, -2.0, 0.5]
; in: i32[] = [2147483646]
; out0: f32[3] = [4.0, -8.0, 2.0]
; out1: i32[] = [-2147483648]
; out2: f32[3] = [4.0, -8.0, 2.0]
; out3: i32[2] = [4, -5]

; two results: x + x and n + 1 (wrapping)
func @step(%x: f32[3], %n: i32[]) -> (f32[3], i32[]) {
  %y: f32[3] = add(%x, %x)
  %one: i32[] = constant[value=1]()
  %m: i32[] = add(%n, %one)
  return %y, %m
}
; run
; in: f32[3] = [0.25, inf, -0.0]
; in: i32[] = [-1]
; out0: f32[3] = [0.5, inf, -0.0]
; out1: i32[] = [0]

; a call inside a callee: neg(neg(x) * 2)
func @twice_neg(%x: f32[3]) -> (f32[3]) {
  %a: f32[3] = call[func=@neg](%x)
  %b: f32[3] = add(%a, %a)
  %c: f32[3] = call[func=@neg](%b)
  return %c
}

func @neg(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = neg(%x)
  return %y
}

func @consts() -> (i32[2]) {
  %c: i32[2] = constant[value=[4, -5]]()
  return %c
}
