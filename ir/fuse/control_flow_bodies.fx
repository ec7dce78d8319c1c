; The bodies of while and scan, and the branches of cond, are fused too; their
; kernels are named after them.
func @f(%x: f32[4], %k: i32[]) -> (f32[4], f32[], f32[4]) {
  %zero: i32[] = constant[value=0]()
  %n: i32[], %y: f32[4] = while[cond=@few, body=@step, max_iters=3](%zero, %x)
  %c0: f32[] = constant[value=0.0]()
  %s: f32[], %ys: f32[4] = scan[body=@acc, length=4, num_carry=1](%c0, %x)
  %b: f32[4] = cond[branches=[@sq, @ex]](%k, %y)
  return %b, %s, %ys
}
; fuse:
; func @f(%0: f32[4], %1: i32[]) -> (f32[4], f32[], f32[4]) {
;   %2: f32[] = call[func=@f_k0]()
;   %3: f32[], %4: f32[4] = scan[body=@acc, length=4, num_consts=0, num_carry=1, reverse=false, checkpoint=none](%2, %0)
;   %5: i32[] = call[func=@f_k1]()
;   %6: i32[], %7: f32[4] = while[cond=@few, body=@step, max_iters=3](%5, %0)
;   %8: f32[4] = cond[branches=[@sq,@ex]](%1, %7)
;   return %8, %3, %4
; }
;
; func @acc(%0: f32[], %1: f32[]) -> (f32[], f32[]) {
;   %2: f32[], %3: f32[] = call[func=@acc_k0](%1, %0)
;   return %3, %2
; }
;
; func @few(%0: i32[], %1: f32[4]) -> (bool[]) {
;   %2: bool[] = call[func=@few_k0](%0)
;   return %2
; }
;
; func @step(%0: i32[], %1: f32[4]) -> (i32[], f32[4]) {
;   %2: i32[] = call[func=@step_k0](%0)
;   %3: f32[4] = call[func=@step_k1](%1)
;   return %2, %3
; }
;
; func @sq(%0: f32[4]) -> (f32[4]) {
;   %1: f32[4] = call[func=@sq_k0](%0)
;   return %1
; }
;
; func @ex(%0: f32[4]) -> (f32[4]) {
;   %1: f32[4] = call[func=@ex_k0](%0)
;   return %1
; }
;
; func @f_k0[kind="fusion"]() -> (f32[]) {
;   %0: f32[] = constant[value=0.0]()
;   return %0
; }
;
; func @f_k1[kind="fusion"]() -> (i32[]) {
;   %0: i32[] = constant[value=0]()
;   return %0
; }
;
; func @acc_k0[kind="fusion"](%0: f32[], %1: f32[]) -> (f32[], f32[]) {
;   %2: f32[] = exp(%0)
;   %3: f32[] = add(%1, %2)
;   return %2, %3
; }
;
; func @few_k0[kind="fusion"](%0: i32[]) -> (bool[]) {
;   %1: i32[] = constant[value=3]()
;   %2: bool[] = lt(%0, %1)
;   return %2
; }
;
; func @step_k0[kind="fusion"](%0: i32[]) -> (i32[]) {
;   %1: i32[] = constant[value=1]()
;   %2: i32[] = add(%0, %1)
;   return %2
; }
;
; func @step_k1[kind="fusion"](%0: f32[4]) -> (f32[4]) {
;   %1: f32[4] = constant[value=0.5]()
;   %2: f32[4] = mul(%0, %1)
;   %3: f32[4] = sin(%2)
;   return %3
; }
;
; func @sq_k0[kind="fusion"](%0: f32[4]) -> (f32[4]) {
;   %1: f32[4] = mul(%0, %0)
;   return %1
; }
;
; func @ex_k0[kind="fusion"](%0: f32[4]) -> (f32[4]) {
;   %1: f32[4] = exp(%0)
;   %2: f32[4] = add(%1, %0)
;   return %2
; }
; launches: 5

func @few(%i: i32[], %x: f32[4]) -> (bool[]) {
  %three: i32[] = constant[value=3]()
  %p: bool[] = lt(%i, %three)
  return %p
}

func @step(%i: i32[], %x: f32[4]) -> (i32[], f32[4]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %h: f32[4] = constant[value=0.5]()
  %a: f32[4] = mul(%x, %h)
  %s: f32[4] = sin(%a)
  return %j, %s
}

func @acc(%c: f32[], %x: f32[]) -> (f32[], f32[]) {
  %e: f32[] = exp(%x)
  %s: f32[] = add(%c, %e)
  return %s, %e
}

func @sq(%x: f32[4]) -> (f32[4]) {
  %y: f32[4] = mul(%x, %x)
  return %y
}

func @ex(%x: f32[4]) -> (f32[4]) {
  %e: f32[4] = exp(%x)
  %y: f32[4] = add(%e, %x)
  return %y
}
