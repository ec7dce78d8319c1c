; value_and_grad of sum(tanh(a*b+c)*exp(-a)/(1+b*b)) wrt a, b, c (after opt). Partitioning
; alone makes three kernels over one shape: the first writes tanh, exp and 1/(1+b*b) as
; extra results, the second reads them back, and a third sums the forward values the second
; writes. Launched one after the other, each reading the previous one's results only at the
; loop index, they merge into one kernel: nothing is recomputed (`1 + b*b`, which two of
; them had copied, is computed once), only the gradients are written, and the sum runs in
; the same loop.
func @f(%0: f32[8], %1: f32[8], %2: f32[8]) -> (f32[], f32[8], f32[8], f32[8]) {
  %3: f32[8] = mul(%0, %1)
  %4: f32[8] = add(%3, %2)
  %5: f32[8] = tanh(%4)
  %6: f32[8] = constant[value=1.0]()
  %7: f32[8] = mul(%5, %5)
  %8: f32[8] = sub(%6, %7)
  %9: f32[8] = neg(%0)
  %10: f32[8] = exp(%9)
  %11: f32[8] = mul(%5, %10)
  %12: f32[8] = mul(%1, %1)
  %13: f32[8] = add(%6, %12)
  %14: f32[8] = div(%11, %13)
  %15: f32[] = reduce_sum[axes=[0]](%14)
  %16: f32[8] = div(%6, %13)
  %17: f32[8] = neg(%16)
  %18: f32[8] = mul(%17, %14)
  %19: f32[8] = mul(%18, %1)
  %20: f32[8] = add(%19, %19)
  %21: f32[8] = mul(%16, %5)
  %22: f32[8] = mul(%16, %10)
  %23: f32[8] = mul(%21, %10)
  %24: f32[8] = neg(%23)
  %25: f32[8] = mul(%22, %8)
  %26: f32[8] = mul(%25, %0)
  %27: f32[8] = add(%20, %26)
  %28: f32[8] = mul(%25, %1)
  %29: f32[8] = add(%24, %28)
  return %15, %29, %27, %25
}
; fuse:
; func @f(%0: f32[8], %1: f32[8], %2: f32[8]) -> (f32[], f32[8], f32[8], f32[8]) {
;   %3: f32[8], %4: f32[8], %5: f32[8], %6: f32[] = call[func=@f_k0](%0, %1, %2)
;   return %6, %4, %5, %3
; }
;
; func @f_k0[kind="fusion"](%0: f32[8], %1: f32[8], %2: f32[8]) -> (f32[8], f32[8], f32[8], f32[]) {
;   %3: f32[8] = mul(%0, %1)
;   %4: f32[8] = add(%3, %2)
;   %5: f32[8] = tanh(%4)
;   %6: f32[8] = constant[value=1.0]()
;   %7: f32[8] = mul(%5, %5)
;   %8: f32[8] = sub(%6, %7)
;   %9: f32[8] = neg(%0)
;   %10: f32[8] = exp(%9)
;   %11: f32[8] = mul(%1, %1)
;   %12: f32[8] = add(%6, %11)
;   %13: f32[8] = div(%6, %12)
;   %14: f32[8] = mul(%13, %5)
;   %15: f32[8] = mul(%13, %10)
;   %16: f32[8] = mul(%14, %10)
;   %17: f32[8] = neg(%16)
;   %18: f32[8] = mul(%15, %8)
;   %19: f32[8] = mul(%18, %1)
;   %20: f32[8] = add(%17, %19)
;   %21: f32[8] = mul(%5, %10)
;   %22: f32[8] = div(%21, %12)
;   %23: f32[8] = neg(%13)
;   %24: f32[8] = mul(%23, %22)
;   %25: f32[8] = mul(%24, %1)
;   %26: f32[8] = add(%25, %25)
;   %27: f32[8] = mul(%18, %0)
;   %28: f32[8] = add(%26, %27)
;   %29: f32[] = reduce_sum[axes=[0]](%22)
;   return %18, %20, %28, %29
; }
