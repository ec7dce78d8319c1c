; remat[func, policy]: evaluating runs `func`; the policy only matters to reverse mode.

; the same region under each policy gives the same results: tanh(W x) and its sum
func @policies(%w: f32[2,2], %x: f32[2]) -> (f32[2], f32[], f32[2], f32[], f32[2], f32[]) {
  %a: f32[2], %sa: f32[] = remat[func=@layer](%w, %x)
  %b: f32[2], %sb: f32[] = remat[func=@layer, policy="dots"](%w, %x)
  %c: f32[2], %sc: f32[] = remat[func=@layer, policy="names:pre"](%w, %x)
  return %a, %sa, %b, %sb, %c, %sc
}
; run
; in: f32[2,2] = [1.0, 0.0, 0.0, -1.0]
; in: f32[2] = [0.0, 100.0]
; out0: f32[2] = [0.0, -1.0]
; out1: f32[] = [-1.0]
; out2: f32[2] = [0.0, -1.0]
; out3: f32[] = [-1.0]
; out4: f32[2] = [0.0, -1.0]
; out5: f32[] = [-1.0]

; integer and bool operands pass through a region unchanged in meaning
func @non_float(%n: i32[3], %p: bool[3]) -> (i32[3]) {
  %y: i32[3] = remat[func=@pick](%n, %p)
  return %y
}
; run
; in: i32[3] = [1, -2, 3]
; in: bool[3] = [true, false, false]
; out0: i32[3] = [1, 2, -3]

func @layer(%w: f32[2,2], %x: f32[2]) -> (f32[2], f32[]) {
  %h: f32[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%w, %x)
  %n: f32[2] = name[name="pre"](%h)
  %y: f32[2] = tanh(%n)
  %s: f32[] = reduce_sum[axes=[0]](%y)
  return %y, %s
}

func @pick(%n: i32[3], %p: bool[3]) -> (i32[3]) {
  %m: i32[3] = neg(%n)
  %y: i32[3] = select(%p, %n, %m)
  return %y
}
