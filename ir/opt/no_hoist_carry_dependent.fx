; Must not happen: every equation of these bodies reads a carry or an xs slice (or a
; value derived from one), so nothing is invariant. In the while, %w is returned
; changed (w * 0.5), so it is a carry like any other and sin(w) stays in the loop.
func @f(%w: f32[], %c: f32[], %xs: f32[4]) -> (f32[], f32[]) {
  %out: f32[] = scan[body=@step, length=4, num_consts=1, num_carry=1](%w, %c, %xs)
  %i: i32[] = constant[value=0]()
  %n: i32[], %v: f32[] = while[cond=@c, body=@b, max_iters=5](%i, %w)
  return %out, %v
}
; opt:
; func @f(%0: f32[], %1: f32[], %2: f32[4]) -> (f32[], f32[]) {
;   %3: f32[] = scan[body=@step, length=4, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%0, %1, %2)
;   %4: i32[] = constant[value=0]()
;   %5: i32[], %6: f32[] = while[cond=@c, body=@b, max_iters=5](%4, %0)
;   return %3, %6
; }
;
; func @step(%0: f32[], %1: f32[], %2: f32[]) -> (f32[]) {
;   %3: f32[] = exp(%1)
;   %4: f32[] = mul(%3, %0)
;   %5: f32[] = add(%4, %2)
;   return %5
; }
;
; func @c(%0: i32[], %1: f32[]) -> (bool[]) {
;   %2: i32[] = constant[value=3]()
;   %3: bool[] = lt(%0, %2)
;   return %3
; }
;
; func @b(%0: i32[], %1: f32[]) -> (i32[], f32[]) {
;   %2: i32[] = constant[value=1]()
;   %3: i32[] = add(%0, %2)
;   %4: f32[] = constant[value=0.5]()
;   %5: f32[] = sin(%1)
;   %6: f32[] = mul(%5, %4)
;   return %3, %6
; }

func @step(%w: f32[], %c: f32[], %x: f32[]) -> (f32[]) {
  %e: f32[] = exp(%c)
  %m: f32[] = mul(%e, %w)
  %n: f32[] = add(%m, %x)
  return %n
}

func @c(%i: i32[], %w: f32[]) -> (bool[]) {
  %lim: i32[] = constant[value=3]()
  %lt: bool[] = lt(%i, %lim)
  return %lt
}

func @b(%i: i32[], %w: f32[]) -> (i32[], f32[]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %h: f32[] = constant[value=0.5]()
  %s: f32[] = sin(%w)
  %v: f32[] = mul(%s, %h)
  return %j, %v
}
