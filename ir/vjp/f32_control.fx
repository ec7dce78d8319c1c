; Reverse mode in f32 through control flow: a scan with a const (its cotangent is
; accumulated in the transposed scan's carry) and a bounded while, checked by the
; adjoint identity and central differences with f32 tolerances.
func @f(%w: f32[3], %c0: f32[3], %xs: f32[4,3]) -> (f32[3], f32[4,3]) {
  %c: f32[3], %ys: f32[4,3] = scan[body=@step, length=4, num_consts=1, num_carry=1](%w, %c0, %xs)
  %zero: i32[] = constant[value=0]()
  %i: i32[], %d: f32[3] = while[cond=@below3, body=@twice, max_iters=3](%zero, %c)
  return %d, %ys
}
; vjp:
; func @f_vjp(%0: f32[3], %1: f32[3], %2: f32[4,3], %3: f32[3], %4: f32[4,3]) -> (f32[3], f32[4,3], f32[3], f32[3], f32[4,3]) {
;   %5: f32[3], %6: f32[4,3], %7: f32[4,3], %8: f32[4,3], %9: f32[4,3], %10: f32[4,3] = scan[body=@step_jvp_scan_known, length=4, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%0, %1, %2)
;   %11: i32[] = constant[value=0]()
;   %12: bool[] = constant[value=true]()
;   %13: bool[], %14: i32[], %15: f32[3], %16: bool[3], %17: f32[3,3] = scan[body=@twice_jvp_bounded_known, length=3, num_consts=0, num_carry=3, reverse=false, checkpoint=none](%12, %11, %5)
;   %18: f32[3] = scan[body=@twice_jvp_bounded_linear_transpose, length=3, num_consts=0, num_carry=1, reverse=true, checkpoint=none](%3, %16, %17)
;   %19: f32[3] = constant[value=0.0]()
;   %20: f32[3], %21: f32[3], %22: f32[4,3] = scan[body=@step_jvp_scan_linear_transpose, length=4, num_consts=1, num_carry=2, reverse=true, checkpoint=none](%0, %18, %19, %7, %8, %9, %2, %10, %4)
;   return %15, %6, %21, %20, %22
; }
;
; func @step_jvp_scan_known(%0: f32[3], %1: f32[3], %2: f32[3]) -> (f32[3], f32[3], f32[3], f32[3], f32[3], f32[3]) {
;   %3: f32[3] = mul(%1, %0)
;   %4: f32[3] = sin(%2)
;   %5: f32[3] = cos(%2)
;   %6: f32[3] = add(%3, %4)
;   %7: f32[3] = tanh(%6)
;   %8: f32[3] = constant[value=1.0]()
;   %9: f32[3] = mul(%7, %7)
;   %10: f32[3] = sub(%8, %9)
;   %11: f32[3] = mul(%7, %2)
;   return %7, %11, %1, %5, %10, %7
; }
;
; func @twice_jvp_bounded_known(%0: bool[], %1: i32[], %2: f32[3]) -> (bool[], i32[], f32[3], bool[], f32[3]) {
;   %3: i32[] = constant[value=3]()
;   %4: bool[] = lt(%1, %3)
;   %5: bool[] = and(%0, %4)
;   %6: i32[], %7: f32[3], %8: f32[3] = cond[branches=[@twice_jvp_done_known,@twice_jvp_known]](%5, %1, %2)
;   return %5, %6, %7, %5, %8
; }
;
; func @twice_jvp_bounded_linear_transpose(%0: f32[3], %1: bool[], %2: f32[3]) -> (f32[3]) {
;   %3: f32[3] = cond[branches=[@twice_jvp_done_linear_transpose,@twice_jvp_linear_transpose]](%1, %2, %0)
;   return %3
; }
;
; func @step_jvp_scan_linear_transpose(%0: f32[3], %1: f32[3], %2: f32[3], %3: f32[3], %4: f32[3], %5: f32[3], %6: f32[3], %7: f32[3], %8: f32[3]) -> (f32[3], f32[3], f32[3]) {
;   %9: f32[3] = mul(%8, %7)
;   %10: f32[3] = mul(%8, %6)
;   %11: f32[3] = add(%1, %10)
;   %12: f32[3] = mul(%11, %5)
;   %13: f32[3] = mul(%12, %4)
;   %14: f32[3] = add(%9, %13)
;   %15: f32[3] = mul(%12, %3)
;   %16: f32[3] = mul(%12, %0)
;   %17: f32[3] = add(%2, %15)
;   return %16, %17, %14
; }
;
; func @twice_jvp_done_known(%0: i32[], %1: f32[3]) -> (i32[], f32[3], f32[3]) {
;   %2: f32[3] = constant[value=0.0]()
;   return %0, %1, %2
; }
;
; func @twice_jvp_known(%0: i32[], %1: f32[3]) -> (i32[], f32[3], f32[3]) {
;   %2: i32[] = constant[value=1]()
;   %3: i32[] = add(%0, %2)
;   %4: f32[3] = sin(%1)
;   %5: f32[3] = cos(%1)
;   %6: f32[3] = add(%4, %1)
;   return %3, %6, %5
; }
;
; func @twice_jvp_done_linear_transpose(%0: f32[3], %1: f32[3]) -> (f32[3]) {
;   return %1
; }
;
; func @twice_jvp_linear_transpose(%0: f32[3], %1: f32[3]) -> (f32[3]) {
;   %2: f32[3] = mul(%1, %0)
;   %3: f32[3] = add(%1, %2)
;   return %3
; }
func @step(%w: f32[3], %c: f32[3], %x: f32[3]) -> (f32[3], f32[3]) {
  %a: f32[3] = mul(%c, %w)
  %b: f32[3] = sin(%x)
  %n: f32[3] = add(%a, %b)
  %t: f32[3] = tanh(%n)
  %y: f32[3] = mul(%t, %x)
  return %t, %y
}
func @below3(%i: i32[], %v: f32[3]) -> (bool[]) {
  %n: i32[] = constant[value=3]()
  %p: bool[] = lt(%i, %n)
  return %p
}
func @twice(%i: i32[], %v: f32[3]) -> (i32[], f32[3]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %s: f32[3] = sin(%v)
  %u: f32[3] = add(%s, %v)
  return %j, %u
}
