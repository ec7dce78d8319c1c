; Must not happen: the inner while reads only the scan const, but it has no
; max_iters, so it might not terminate; with length=0 the scan never runs it, so
; hoisting could turn a program that finishes into one that does not. It stays in the
; body. (The bounded neg, which reads only the const, does move out.)
func @f(%w: f32[], %c: f32[], %xs: f32[0]) -> (f32[]) {
  %out: f32[] = scan[body=@step, length=0, num_consts=1, num_carry=1](%w, %c, %xs)
  return %out
}
; opt:
; func @f(%0: f32[], %1: f32[], %2: f32[0]) -> (f32[]) {
;   %3: f32[] = neg(%0)
;   %4: f32[] = scan[body=@step, length=0, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%3, %1)
;   return %4
; }
;
; func @step(%0: f32[], %1: f32[]) -> (f32[]) {
;   %2: f32[] = while[cond=@positive, body=@halve, max_iters=none](%0)
;   %3: f32[] = add(%1, %2)
;   return %3
; }
;
; func @positive(%0: f32[]) -> (bool[]) {
;   %1: f32[] = constant[value=0.0]()
;   %2: bool[] = gt(%0, %1)
;   return %2
; }
;
; func @halve(%0: f32[]) -> (f32[]) {
;   %1: f32[] = constant[value=0.5]()
;   %2: f32[] = mul(%0, %1)
;   return %2
; }

func @step(%w: f32[], %c: f32[], %x: f32[]) -> (f32[]) {
  %nw: f32[] = neg(%w)
  %r: f32[] = while[cond=@positive, body=@halve, max_iters=none](%nw)
  %n: f32[] = add(%c, %r)
  return %n
}

func @positive(%v: f32[]) -> (bool[]) {
  %z: f32[] = constant[value=0.0]()
  %gt: bool[] = gt(%v, %z)
  return %gt
}

func @halve(%v: f32[]) -> (f32[]) {
  %h: f32[] = constant[value=0.5]()
  %n: f32[] = mul(%v, %h)
  return %n
}
