; A loop inside a cond branch: the branch is a Func like any other, so the scan's
; invariant sqrt(w) moves out of the scan body into the branch (not further: hoisting
; out of a cond branch would run it whichever branch is taken).
func @f(%p: bool[], %w: f32[], %xs: f32[4]) -> (f32[]) {
  %r: f32[] = cond[branches=[@plain, @looped]](%p, %w, %xs)
  return %r
}
; opt:
; func @f(%0: bool[], %1: f32[], %2: f32[4]) -> (f32[]) {
;   %3: f32[] = cond[branches=[@plain,@looped]](%0, %1, %2)
;   return %3
; }
;
; func @plain(%0: f32[], %1: f32[4]) -> (f32[]) {
;   %2: f32[] = reduce_sum[axes=[0]](%1)
;   return %2
; }
;
; func @looped(%0: f32[], %1: f32[4]) -> (f32[]) {
;   %2: f32[] = constant[value=0.0]()
;   %3: f32[] = sqrt(%0)
;   %4: f32[] = scan[body=@step, length=4, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%3, %2, %1)
;   return %4
; }
;
; func @step(%0: f32[], %1: f32[], %2: f32[]) -> (f32[]) {
;   %3: f32[] = mul(%2, %0)
;   %4: f32[] = add(%1, %3)
;   return %4
; }

func @plain(%w: f32[], %xs: f32[4]) -> (f32[]) {
  %s: f32[] = reduce_sum[axes=[0]](%xs)
  return %s
}

func @looped(%w: f32[], %xs: f32[4]) -> (f32[]) {
  %z: f32[] = constant[value=0.0]()
  %r: f32[] = scan[body=@step, length=4, num_consts=1, num_carry=1](%w, %z, %xs)
  return %r
}

func @step(%w: f32[], %c: f32[], %x: f32[]) -> (f32[]) {
  %q: f32[] = sqrt(%w)
  %m: f32[] = mul(%x, %q)
  %n: f32[] = add(%c, %m)
  return %n
}
