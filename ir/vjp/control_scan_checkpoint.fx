; scan[checkpoint=2] of length 5, in reverse: the forward pass keeps only the carry
; entering the remaining step (run first) and each of the 2 segments of 2 steps; the
; backward pass recomputes a segment's residuals, then runs the transposed steps over
; them.
func @f(%c0: f64[2], %xs: f64[5,2]) -> (f64[2]) {
  %c: f64[2] = scan[body=@step, length=5, num_carry=1, reverse=true, checkpoint=2](%c0, %xs)
  return %c
}
; vjp:
; func @f_vjp(%0: f64[2], %1: f64[5,2], %2: f64[2]) -> (f64[2], f64[2], f64[5,2]) {
;   %3: f64[1,2] = slice[start=[4,0], limit=[5,2], strides=[1,1]](%1)
;   %4: f64[2] = scan[body=@step_jvp_scan_known_pruned, length=1, num_consts=0, num_carry=1, reverse=true, checkpoint=none](%0, %3)
;   %5: f64[4,2] = slice[start=[0,0], limit=[4,2], strides=[1,1]](%1)
;   %6: f64[2,2,2] = reshape[shape=[2,2,2]](%5)
;   %7: f64[2], %8: f64[2,2] = scan[body=@step_jvp_scan_segment_known, length=2, num_consts=0, num_carry=1, reverse=true, checkpoint=none](%4, %6)
;   %9: f64[2], %10: f64[2,2,2] = scan[body=@step_jvp_scan_segment_linear_transpose, length=2, num_consts=0, num_carry=1, reverse=false, checkpoint=none](%2, %6, %8)
;   %11: f64[4,2] = reshape[shape=[4,2]](%10)
;   %12: f64[] = constant[value=0.0]()
;   %13: f64[5,2] = pad[low=[0,0], high=[1,0], interior=[0,0]](%11, %12)
;   %14: f64[1,2] = name[name="remat.recompute"](%3)
;   %15: f64[2] = name[name="remat.recompute"](%0)
;   %16: f64[2], %17: f64[1,2], %18: f64[1,2] = scan[body=@step_jvp_scan_known, length=1, num_consts=0, num_carry=1, reverse=true, checkpoint=none](%15, %14)
;   %19: f64[2], %20: f64[1,2] = scan[body=@step_jvp_scan_linear_transpose, length=1, num_consts=0, num_carry=1, reverse=false, checkpoint=none](%9, %17, %14, %18)
;   %21: f64[1,2] = slice[start=[4,0], limit=[5,2], strides=[1,1]](%13)
;   %22: f64[1,2] = add(%21, %20)
;   %23: i32[] = constant[value=4]()
;   %24: i32[] = constant[value=0]()
;   %25: f64[5,2] = dynamic_update_slice(%13, %22, %23, %24)
;   return %7, %19, %25
; }
;
; func @step_jvp_scan_known_pruned(%0: f64[2], %1: f64[2]) -> (f64[2]) {
;   %2: f64[2] = sin(%0)
;   %3: f64[2] = mul(%2, %1)
;   return %3
; }
;
; func @step_jvp_scan_segment_known(%0: f64[2], %1: f64[2,2]) -> (f64[2], f64[2]) {
;   %2: f64[2] = scan[body=@step_jvp_scan_known_2_pruned, length=2, num_consts=0, num_carry=1, reverse=true, checkpoint=none](%0, %1)
;   return %2, %0
; }
;
; func @step_jvp_scan_segment_linear_transpose(%0: f64[2], %1: f64[2,2], %2: f64[2]) -> (f64[2], f64[2,2]) {
;   %3: f64[2,2] = name[name="remat.recompute"](%1)
;   %4: f64[2] = name[name="remat.recompute"](%2)
;   %5: f64[2], %6: f64[2,2], %7: f64[2,2] = scan[body=@step_jvp_scan_known_2, length=2, num_consts=0, num_carry=1, reverse=true, checkpoint=none](%4, %3)
;   %8: f64[2], %9: f64[2,2] = scan[body=@step_jvp_scan_linear_2_transpose, length=2, num_consts=0, num_carry=1, reverse=false, checkpoint=none](%0, %6, %3, %7)
;   return %8, %9
; }
;
; func @step_jvp_scan_known(%0: f64[2], %1: f64[2]) -> (f64[2], f64[2], f64[2]) {
;   %2: f64[2] = sin(%0)
;   %3: f64[2] = cos(%0)
;   %4: f64[2] = mul(%2, %1)
;   return %4, %3, %2
; }
;
; func @step_jvp_scan_linear_transpose(%0: f64[2], %1: f64[2], %2: f64[2], %3: f64[2]) -> (f64[2], f64[2]) {
;   %4: f64[2] = mul(%0, %3)
;   %5: f64[2] = mul(%0, %2)
;   %6: f64[2] = mul(%5, %1)
;   return %6, %4
; }
;
; func @step_jvp_scan_known_2_pruned(%0: f64[2], %1: f64[2]) -> (f64[2]) {
;   %2: f64[2] = sin(%0)
;   %3: f64[2] = mul(%2, %1)
;   return %3
; }
;
; func @step_jvp_scan_known_2(%0: f64[2], %1: f64[2]) -> (f64[2], f64[2], f64[2]) {
;   %2: f64[2] = sin(%0)
;   %3: f64[2] = cos(%0)
;   %4: f64[2] = mul(%2, %1)
;   return %4, %3, %2
; }
;
; func @step_jvp_scan_linear_2_transpose(%0: f64[2], %1: f64[2], %2: f64[2], %3: f64[2]) -> (f64[2], f64[2]) {
;   %4: f64[2] = mul(%0, %3)
;   %5: f64[2] = mul(%0, %2)
;   %6: f64[2] = mul(%5, %1)
;   return %6, %4
; }

func @step(%c: f64[2], %x: f64[2]) -> (f64[2]) {
  %s: f64[2] = sin(%c)
  %n: f64[2] = mul(%s, %x)
  return %n
}
