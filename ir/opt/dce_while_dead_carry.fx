; The while's third carry is unused after the loop and neither the cond nor a kept
; carry reads it: it goes from the loop, the cond and the body. The second carry's
; final value is unused too, but the cond reads it, so it stays.
func @f(%x: f32[], %lim: f32[], %junk: f32[3]) -> (f32[]) {
  %r: f32[], %l: f32[], %j: f32[3] = while[cond=@c, body=@b, max_iters=10](%x, %lim, %junk)
  return %r
}
; opt:
; func @f(%0: f32[], %1: f32[], %2: f32[3]) -> (f32[]) {
;   %3: f32[], %4: f32[] = while[cond=@c, body=@b, max_iters=10](%0, %1)
;   return %3
; }
;
; func @c(%0: f32[], %1: f32[]) -> (bool[]) {
;   %2: bool[] = lt(%0, %1)
;   return %2
; }
;
; func @b(%0: f32[], %1: f32[]) -> (f32[], f32[]) {
;   %2: f32[] = constant[value=1.0]()
;   %3: f32[] = add(%0, %2)
;   return %3, %1
; }

func @c(%x: f32[], %lim: f32[], %junk: f32[3]) -> (bool[]) {
  %lt: bool[] = lt(%x, %lim)
  return %lt
}

func @b(%x: f32[], %lim: f32[], %junk: f32[3]) -> (f32[], f32[], f32[3]) {
  %one: f32[] = constant[value=1.0]()
  %n: f32[] = add(%x, %one)
  %e: f32[3] = exp(%junk)
  return %n, %lim, %e
}
