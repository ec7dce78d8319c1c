; Carries that start without a tangent and gain one in the loop: a reverse scan and a
; while whose carries start at a constant 0 but add terms in %a, so the fixpoint
; over the carries gives them (zero-initialised) tangents. A cond on an i32 index
; with a branch returning a constant (its tangent is instantiated as zero so the
; branches agree) and one returning its operand; a broadcast output.
func @f(%a: f64[], %xs: f64[3], %k: i32[]) -> (f64[], f64[3], f64[], f64[], f64[2]) {
  %zero: f64[] = constant[value=0.0]()
  %c: f64[], %ys: f64[3] = scan[body=@acc, length=3, num_consts=1, num_carry=1, reverse=true](%a, %zero, %xs)
  %i0: i32[] = constant[value=0]()
  %n: i32[], %w: f64[], %u: f64[] = while[cond=@lt3, body=@grow](%i0, %zero, %a)
  %r: f64[] = cond[branches=[@b0, @b1, @b2]](%k, %a)
  %p: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%a)
  return %c, %ys, %w, %r, %p
}
; in: f64[] = [0.7]
; in: f64[3] = [1.0, 2.0, 3.0]
; in: i32[] = [1]
; jvp:
; func @f_jvp(%0: f64[], %1: f64[3], %2: i32[], %3: f64[], %4: f64[3]) -> (f64[], f64[3], f64[], f64[], f64[2], f64[], f64[3], f64[], f64[], f64[2]) {
;   %5: f64[] = constant[value=0.0]()
;   %6: f64[] = constant[value=0.0]()
;   %7: f64[], %8: f64[], %9: f64[3], %10: f64[3] = scan[body=@acc_jvp_2_scan, length=3, num_consts=2, num_carry=2, reverse=true, checkpoint=none](%0, %3, %5, %6, %1, %4)
;   %11: i32[] = constant[value=0]()
;   %12: i32[], %13: f64[], %14: f64[], %15: f64[], %16: f64[] = while[cond=@lt3_jvp, body=@grow_jvp_2, max_iters=none](%11, %5, %0, %6, %3)
;   %17: f64[], %18: f64[] = cond[branches=[@b0_jvp_2,@b1_jvp_2,@b2_jvp_2]](%2, %0, %3)
;   %19: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%0)
;   %20: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%3)
;   return %7, %9, %13, %17, %19, %8, %10, %15, %18, %20
; }
;
; func @acc_jvp_2_scan(%0: f64[], %1: f64[], %2: f64[], %3: f64[], %4: f64[], %5: f64[]) -> (f64[], f64[], f64[], f64[]) {
;   %6: f64[] = mul(%0, %4)
;   %7: f64[] = mul(%1, %4)
;   %8: f64[] = mul(%5, %0)
;   %9: f64[] = add(%7, %8)
;   %10: f64[] = add(%2, %6)
;   %11: f64[] = add(%3, %9)
;   %12: f64[] = sin(%10)
;   %13: f64[] = cos(%10)
;   %14: f64[] = mul(%11, %13)
;   return %12, %14, %10, %11
; }
;
; func @lt3_jvp(%0: i32[], %1: f64[], %2: f64[], %3: f64[], %4: f64[]) -> (bool[]) {
;   %5: i32[] = constant[value=3]()
;   %6: bool[] = lt(%0, %5)
;   return %6
; }
;
; func @grow_jvp_2(%0: i32[], %1: f64[], %2: f64[], %3: f64[], %4: f64[]) -> (i32[], f64[], f64[], f64[], f64[]) {
;   %5: i32[] = constant[value=1]()
;   %6: i32[] = add(%0, %5)
;   %7: f64[] = mul(%1, %2)
;   %8: f64[] = mul(%3, %2)
;   %9: f64[] = mul(%4, %1)
;   %10: f64[] = add(%8, %9)
;   %11: f64[] = add(%7, %2)
;   %12: f64[] = add(%10, %4)
;   return %6, %11, %2, %12, %4
; }
;
; func @b0_jvp_2(%0: f64[], %1: f64[]) -> (f64[], f64[]) {
;   %2: f64[] = constant[value=2.0]()
;   %3: f64[] = constant[value=0.0]()
;   return %2, %3
; }
;
; func @b1_jvp_2(%0: f64[], %1: f64[]) -> (f64[], f64[]) {
;   %2: f64[] = mul(%0, %0)
;   %3: f64[] = mul(%1, %0)
;   %4: f64[] = mul(%1, %0)
;   %5: f64[] = add(%3, %4)
;   return %2, %5
; }
;
; func @b2_jvp_2(%0: f64[], %1: f64[]) -> (f64[], f64[]) {
;   return %0, %1
; }

func @acc(%a: f64[], %c: f64[], %x: f64[]) -> (f64[], f64[]) {
  %ax: f64[] = mul(%a, %x)
  %s: f64[] = add(%c, %ax)
  %t: f64[] = sin(%s)
  return %t, %s
}

func @lt3(%i: i32[], %w: f64[], %u: f64[]) -> (bool[]) {
  %three: i32[] = constant[value=3]()
  %b: bool[] = lt(%i, %three)
  return %b
}

func @grow(%i: i32[], %w: f64[], %u: f64[]) -> (i32[], f64[], f64[]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %wu: f64[] = mul(%w, %u)
  %v: f64[] = add(%wu, %u)
  return %j, %v, %u
}

func @b0(%a: f64[]) -> (f64[]) {
  %c: f64[] = constant[value=2.0]()
  return %c
}

func @b1(%a: f64[]) -> (f64[]) {
  %s: f64[] = mul(%a, %a)
  return %s
}

func @b2(%a: f64[]) -> (f64[]) {
  return %a
}
