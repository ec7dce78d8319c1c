; Primitives with some operands differentiated and others not: only %x (wrt 0) is
; differentiated. concatenate and dynamic_update_slice instantiate zeros for the
; missing pieces; select, clamp, scatter_add, max and dot_general use only the
; tangents that exist; a result that depends on no differentiated value gets a zero
; tangent.
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
; wrt: 0
; jvp:
; func @f_jvp(%0: f64[2,3], %1: f64[2,3], %2: f64[3,2,4], %3: f64[2,4,3], %4: i32[], %5: f64[2,3]) -> (f64[4,3], f64[2,6], f64[2,3], f64[2,3], f64[2,3], f64[3,2], f64[2,3], f64[2,3,3], f64[4,3], f64[2,6], f64[2,3], f64[2,3], f64[2,3], f64[3,2], f64[2,3], f64[2,3,3]) {
;   %6: f64[4,3] = concatenate[axis=0](%0, %1)
;   %7: f64[2,3] = constant[value=0.0]()
;   %8: f64[4,3] = concatenate[axis=0](%5, %7)
;   %9: f64[2,6] = concatenate[axis=1](%1, %0)
;   %10: f64[2,6] = concatenate[axis=1](%7, %5)
;   %11: bool[2,3] = gt(%0, %1)
;   %12: f64[2,3] = select(%11, %1, %0)
;   %13: f64[2,3] = select(%11, %7, %5)
;   %14: f64[2,3] = constant[value=-0.25]()
;   %15: f64[2,3] = clamp(%14, %1, %0)
;   %16: bool[2,3] = lt(%0, %1)
;   %17: bool[2,3] = lt(%0, %14)
;   %18: bool[2,3] = or(%16, %17)
;   %19: f64[2,3] = select(%18, %5, %7)
;   %20: i32[] = constant[value=0]()
;   %21: f64[1,2] = slice[start=[0,0], limit=[1,2], strides=[1,1]](%0)
;   %22: f64[1,2] = slice[start=[0,0], limit=[1,2], strides=[1,1]](%5)
;   %23: f64[2,3] = dynamic_update_slice(%1, %21, %20, %4)
;   %24: f64[2,3] = dynamic_update_slice(%7, %22, %20, %4)
;   %25: f64[3,2] = transpose[perm=[1,0]](%0)
;   %26: f64[3,2] = transpose[perm=[1,0]](%5)
;   %27: i32[2] = constant[value=[1,0]]()
;   %28: f64[3,2] = scatter_add[axis=1, batch_dims=0](%25, %27, %25)
;   %29: f64[3,2] = scatter_add[axis=1, batch_dims=0](%26, %27, %26)
;   %30: f64[2,3] = max(%0, %0)
;   %31: bool[2,3] = eq(%0, %30)
;   %32: bool[2,3] = eq(%0, %30)
;   %33: f64[2,3] = constant[value=0.5]()
;   %34: f64[2,3] = constant[value=1.0]()
;   %35: f64[2,3] = select(%32, %33, %34)
;   %36: f64[2,3] = select(%31, %35, %7)
;   %37: f64[2,3] = mul(%5, %36)
;   %38: f64[2,3] = select(%31, %33, %34)
;   %39: f64[2,3] = select(%32, %38, %7)
;   %40: f64[2,3] = mul(%5, %39)
;   %41: f64[2,3] = add(%37, %40)
;   %42: f64[2,3,3] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[1], rhs_batch=[0], preferred=none](%2, %3)
;   %43: f64[2,3,3] = constant[value=0.0]()
;   return %6, %9, %12, %15, %23, %28, %30, %42, %8, %10, %13, %19, %24, %29, %41, %43
; }
