; Indexing: the tangents are gathered, scattered and sliced at the same (integer)
; indices, which never carry tangents.
func @f(%x: f64[4,2], %u: f64[3,2], %idx: i32[3], %k: i32[]) -> (f64[3,2], f64[4,2], f64[2,2], f64[4,2]) {
  %g: f64[3,2] = gather[axis=0](%x, %idx)
  %s: f64[4,2] = scatter_add[axis=0](%x, %idx, %u)
  %zero: i32[] = constant[value=0]()
  %d: f64[2,2] = dynamic_slice[sizes=[2,2]](%x, %k, %zero)
  %e: f64[2,2] = mul(%d, %d)
  %w: f64[4,2] = dynamic_update_slice(%x, %e, %k, %zero)
  return %g, %s, %e, %w
}
; in: f64[4,2] = [0.5, -1.0, 1.5, 2.0, -0.25, 0.75, 3.0, -2.0]
; in: f64[3,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
; in: i32[3] = [2, 0, 2]
; in: i32[] = [1]
; jvp:
; func @f_jvp(%0: f64[4,2], %1: f64[3,2], %2: i32[3], %3: i32[], %4: f64[4,2], %5: f64[3,2]) -> (f64[3,2], f64[4,2], f64[2,2], f64[4,2], f64[3,2], f64[4,2], f64[2,2], f64[4,2]) {
;   %6: f64[3,2] = gather[axis=0, batch_dims=0](%0, %2)
;   %7: f64[3,2] = gather[axis=0, batch_dims=0](%4, %2)
;   %8: f64[4,2] = scatter_add[axis=0, batch_dims=0](%0, %2, %1)
;   %9: f64[4,2] = scatter_add[axis=0, batch_dims=0](%4, %2, %5)
;   %10: i32[] = constant[value=0]()
;   %11: f64[2,2] = dynamic_slice[sizes=[2,2]](%0, %3, %10)
;   %12: f64[2,2] = dynamic_slice[sizes=[2,2]](%4, %3, %10)
;   %13: f64[2,2] = mul(%11, %11)
;   %14: f64[2,2] = mul(%12, %11)
;   %15: f64[2,2] = mul(%12, %11)
;   %16: f64[2,2] = add(%14, %15)
;   %17: f64[4,2] = dynamic_update_slice(%0, %13, %3, %10)
;   %18: f64[4,2] = dynamic_update_slice(%4, %16, %3, %10)
;   return %6, %8, %13, %17, %7, %9, %16, %18
; }
