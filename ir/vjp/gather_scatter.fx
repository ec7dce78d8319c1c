; Indexing: gather transposes to scatter_add at the same indices (repeated indices
; accumulate), scatter_add to a gather of the updates' cotangent, dynamic_slice to a
; dynamic_update_slice into zeros, and dynamic_update_slice splits its cotangent
; between the operand (the window zeroed) and the update.
func @f(%x: f64[4,2], %u: f64[3,2], %idx: i32[3], %k: i32[]) -> (f64[3,2], f64[4,2], f64[4,2]) {
  %g: f64[3,2] = gather[axis=0](%x, %idx)
  %s: f64[4,2] = scatter_add[axis=0](%x, %idx, %u)
  %zero: i32[] = constant[value=0]()
  %d: f64[2,2] = dynamic_slice[sizes=[2,2]](%x, %k, %zero)
  %e: f64[2,2] = mul(%d, %d)
  %w: f64[4,2] = dynamic_update_slice(%x, %e, %k, %zero)
  return %g, %s, %w
}
; in: f64[4,2] = [0.5, -1.0, 1.5, 2.0, -0.25, 0.75, 3.0, -2.0]
; in: f64[3,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: i32[3] = [2, 0, 2]
; in: i32[] = [1]
; vjp:
; func @f_vjp(%0: f64[4,2], %1: f64[3,2], %2: i32[3], %3: i32[], %4: f64[3,2], %5: f64[4,2], %6: f64[4,2]) -> (f64[3,2], f64[4,2], f64[4,2], f64[4,2], f64[3,2]) {
;   %7: f64[3,2] = gather[axis=0, batch_dims=0](%0, %2)
;   %8: f64[4,2] = scatter_add[axis=0, batch_dims=0](%0, %2, %1)
;   %9: i32[] = constant[value=0]()
;   %10: f64[2,2] = dynamic_slice[sizes=[2,2]](%0, %3, %9)
;   %11: f64[2,2] = mul(%10, %10)
;   %12: f64[4,2] = dynamic_update_slice(%0, %11, %3, %9)
;   %13: i32[] = constant[value=0]()
;   %14: f64[2,2] = constant[value=0.0]()
;   %15: f64[4,2] = dynamic_update_slice(%6, %14, %3, %13)
;   %16: f64[2,2] = dynamic_slice[sizes=[2,2]](%6, %3, %13)
;   %17: f64[2,2] = mul(%16, %10)
;   %18: f64[2,2] = mul(%16, %10)
;   %19: f64[2,2] = add(%17, %18)
;   %20: f64[2,2] = dynamic_slice[sizes=[2,2]](%15, %3, %13)
;   %21: f64[2,2] = add(%20, %19)
;   %22: f64[4,2] = dynamic_update_slice(%15, %21, %3, %13)
;   %23: f64[3,2] = gather[axis=0, batch_dims=0](%5, %2)
;   %24: f64[4,2] = add(%22, %5)
;   %25: f64[4,2] = scatter_add[axis=0, batch_dims=0](%24, %2, %4)
;   return %7, %8, %12, %25, %23
; }
