; A while carry the body returns unchanged (%w, same position) is invariant: the
; body's sin(w) and the cond's reduce_sum(w) are computed once before the loop from
; the initial carry and enter it as extra carries the body passes through.
func @f(%w: f32[3], %x: f32[3]) -> (f32[3]) {
  %i: i32[] = constant[value=0]()
  %n: i32[], %w2: f32[3], %y: f32[3] = while[cond=@c, body=@b, max_iters=none](%i, %w, %x)
  return %y
}
; opt:
; func @f(%0: f32[3], %1: f32[3]) -> (f32[3]) {
;   %2: i32[] = constant[value=0]()
;   %3: f32[3] = sin(%0)
;   %4: f32[] = reduce_sum[axes=[0]](%0)
;   %5: f32[] = constant[value=100.0]()
;   %6: bool[] = lt(%4, %5)
;   %7: i32[], %8: f32[3], %9: f32[3], %10: bool[] = while[cond=@c, body=@b, max_iters=none](%2, %1, %3, %6)
;   return %8
; }
;
; func @c(%0: i32[], %1: f32[3], %2: f32[3], %3: bool[]) -> (bool[]) {
;   %4: i32[] = constant[value=3]()
;   %5: bool[] = lt(%0, %4)
;   %6: bool[] = and(%5, %3)
;   return %6
; }
;
; func @b(%0: i32[], %1: f32[3], %2: f32[3], %3: bool[]) -> (i32[], f32[3], f32[3], bool[]) {
;   %4: i32[] = constant[value=1]()
;   %5: i32[] = add(%0, %4)
;   %6: f32[3] = add(%1, %2)
;   return %5, %6, %2, %3
; }

func @c(%i: i32[], %w: f32[3], %x: f32[3]) -> (bool[]) {
  %lim: i32[] = constant[value=3]()
  %lt: bool[] = lt(%i, %lim)
  %s: f32[] = reduce_sum[axes=[0]](%w)
  %z: f32[] = constant[value=100.0]()
  %small: bool[] = lt(%s, %z)
  %go: bool[] = and(%lt, %small)
  return %go
}

func @b(%i: i32[], %w: f32[3], %x: f32[3]) -> (i32[], f32[3], f32[3]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %s: f32[3] = sin(%w)
  %y: f32[3] = add(%x, %s)
  return %j, %w, %y
}
