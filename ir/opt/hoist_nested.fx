; Nested loops: tanh(w) in the inner body reads only the inner const, which is the
; outer const: it moves out of the inner scan into the outer body, then out of the
; outer scan into @f. cos(c) reads the outer carry: it leaves the inner scan (the
; carry is an inner const) but stays in the outer body.
func @f(%w: f32[], %c: f32[], %xs: f32[2,3]) -> (f32[]) {
  %out: f32[] = scan[body=@outer, length=2, num_consts=1, num_carry=1](%w, %c, %xs)
  return %out
}
; opt:
; func @f(%0: f32[], %1: f32[], %2: f32[2,3]) -> (f32[]) {
;   %3: f32[] = tanh(%0)
;   %4: f32[] = scan[body=@outer, length=2, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%3, %1, %2)
;   return %4
; }
;
; func @outer(%0: f32[], %1: f32[], %2: f32[3]) -> (f32[]) {
;   %3: f32[] = cos(%1)
;   %4: f32[] = scan[body=@inner, length=3, num_consts=2, num_carry=1, reverse=false, checkpoint=none](%0, %3, %1, %2)
;   return %4
; }
;
; func @inner(%0: f32[], %1: f32[], %2: f32[], %3: f32[]) -> (f32[]) {
;   %4: f32[] = mul(%3, %0)
;   %5: f32[] = add(%4, %1)
;   %6: f32[] = add(%2, %5)
;   return %6
; }

func @outer(%w: f32[], %c: f32[], %row: f32[3]) -> (f32[]) {
  %s: f32[] = scan[body=@inner, length=3, num_consts=2, num_carry=1](%w, %c, %c, %row)
  return %s
}

func @inner(%w: f32[], %c0: f32[], %acc: f32[], %x: f32[]) -> (f32[]) {
  %t: f32[] = tanh(%w)
  %k: f32[] = cos(%c0)
  %a: f32[] = mul(%x, %t)
  %b: f32[] = add(%a, %k)
  %n: f32[] = add(%acc, %b)
  return %n
}
