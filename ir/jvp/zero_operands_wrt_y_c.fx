; Primitives with some operands differentiated and others not: only %y and %c (wrt
; 1,3) are differentiated. concatenate and dynamic_update_slice instantiate zeros
; for the missing pieces; select, clamp, scatter_add, max and dot_general use only
; the tangents that exist; a result that depends on no differentiated value gets a
; zero tangent.
func @f(%x: f64[2,3], %y: f64[2,3], %b: f64[3,2,4], %c: f64[2,4,3], %k: i32[]) -> (f64[4,3], f64[2,6], f64[2,3], f64[2,3], f64[2,3], f64[3,2], f64[2,3], f64[2,3,3]) {
  %cat: f64[4,3] = concatenate[axis=0](%x, %y)
  %cat2: f64[2,6] = concatenate[axis=1](%y, %x)
  %p: bool[2,3] = gt(%x, %y)
  %sel: f64[2,3] = select(%p, %y, %x)
  %lo: f64[2,3] = constant[value=-0.25]()
  %cl: f64[2,3] = clamp(%lo, %y, %x)
  %zero: i32[] = constant[value=0]()
  %upd: f64[1,2] = slice[start=[0,0], limit=[1,2]](%x)
  %dus: f64[2,3] = dynamic_update_slice(%y, %upd, %zero, %k)
  %xt: f64[3,2] = transpose[perm=[1,0]](%x)
  %idx: i32[2] = constant[value=[1, 0]]()
  %sc: f64[3,2] = scatter_add[axis=1](%xt, %idx, %xt)
  %m: f64[2,3] = max(%x, %x)
  %d: f64[2,3,3] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[1], rhs_batch=[0]](%b, %c)
  return %cat, %cat2, %sel, %cl, %dus, %sc, %m, %d
}
; in: f64[2,3] = [0.5, -1.0, 0.1, 2.0, -0.1, 0.2]
; in: f64[2,3] = [0.25, -0.5, 1.5, -2.0, 0.3, -0.3]
; in: f64[3,2,4] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]
; in: f64[2,4,3] = [1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16, 17, -18, 19, -20, 21, -22, 23, -24]
; in: i32[] = [1]
; wrt: 1,3
; jvp:
; func @f_jvp(%0: f64[2,3], %1: f64[2,3], %2: f64[3,2,4], %3: f64[2,4,3], %4: i32[], %5: f64[2,3], %6: f64[2,4,3]) -> (f64[4,3], f64[2,6], f64[2,3], f64[2,3], f64[2,3], f64[3,2], f64[2,3], f64[2,3,3], f64[4,3], f64[2,6], f64[2,3], f64[2,3], f64[2,3], f64[3,2], f64[2,3], f64[2,3,3]) {
;   %7: f64[4,3] = concatenate[axis=0](%0, %1)
;   %8: f64[2,3] = constant[value=0.0]()
;   %9: f64[4,3] = concatenate[axis=0](%8, %5)
;   %10: f64[2,6] = concatenate[axis=1](%1, %0)
;   %11: f64[2,6] = concatenate[axis=1](%5, %8)
;   %12: bool[2,3] = gt(%0, %1)
;   %13: f64[2,3] = select(%12, %1, %0)
;   %14: f64[2,3] = select(%12, %5, %8)
;   %15: f64[2,3] = constant[value=-0.25]()
;   %16: f64[2,3] = clamp(%15, %1, %0)
;   %17: bool[2,3] = lt(%1, %15)
;   %18: f64[2,3] = select(%17, %8, %5)
;   %19: bool[2,3] = lt(%0, %1)
;   %20: bool[2,3] = lt(%0, %15)
;   %21: bool[2,3] = or(%19, %20)
;   %22: f64[2,3] = select(%21, %8, %18)
;   %23: i32[] = constant[value=0]()
;   %24: f64[1,2] = slice[start=[0,0], limit=[1,2], strides=[1,1]](%0)
;   %25: f64[2,3] = dynamic_update_slice(%1, %24, %23, %4)
;   %26: f64[1,2] = constant[value=0.0]()
;   %27: f64[2,3] = dynamic_update_slice(%5, %26, %23, %4)
;   %28: f64[3,2] = transpose[perm=[1,0]](%0)
;   %29: i32[2] = constant[value=[1,0]]()
;   %30: f64[3,2] = scatter_add[axis=1, batch_dims=0](%28, %29, %28)
;   %31: f64[2,3] = max(%0, %0)
;   %32: f64[2,3,3] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[1], rhs_batch=[0], preferred=none](%2, %3)
;   %33: f64[2,3,3] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[1], rhs_batch=[0], preferred=none](%2, %6)
;   %34: f64[3,2] = constant[value=0.0]()
;   return %7, %10, %13, %16, %25, %30, %31, %32, %9, %11, %14, %22, %27, %34, %8, %33
; }
