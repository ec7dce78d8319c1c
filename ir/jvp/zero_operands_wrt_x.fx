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
;   %10: f64[2,3] = constant[value=0.0]()
;   %11: f64[2,6] = concatenate[axis=1](%10, %5)
;   %12: bool[2,3] = gt(%0, %1)
;   %13: f64[2,3] = select(%12, %1, %0)
;   %14: f64[2,3] = constant[value=0.0]()
;   %15: f64[2,3] = select(%12, %14, %5)
;   %16: f64[2,3] = constant[value=-0.25]()
;   %17: f64[2,3] = clamp(%16, %1, %0)
;   %18: bool[2,3] = lt(%0, %1)
;   %19: bool[2,3] = lt(%0, %16)
;   %20: bool[2,3] = or(%18, %19)
;   %21: f64[2,3] = constant[value=0.0]()
;   %22: f64[2,3] = select(%20, %5, %21)
;   %23: i32[] = constant[value=0]()
;   %24: f64[1,2] = slice[start=[0,0], limit=[1,2], strides=[1,1]](%0)
;   %25: f64[1,2] = slice[start=[0,0], limit=[1,2], strides=[1,1]](%5)
;   %26: f64[2,3] = dynamic_update_slice(%1, %24, %23, %4)
;   %27: f64[2,3] = constant[value=0.0]()
;   %28: f64[2,3] = dynamic_update_slice(%27, %25, %23, %4)
;   %29: f64[3,2] = transpose[perm=[1,0]](%0)
;   %30: f64[3,2] = transpose[perm=[1,0]](%5)
;   %31: i32[2] = constant[value=[1,0]]()
;   %32: f64[3,2] = scatter_add[axis=1, batch_dims=0](%29, %31, %29)
;   %33: f64[3,2] = scatter_add[axis=1, batch_dims=0](%30, %31, %30)
;   %34: f64[2,3] = max(%0, %0)
;   %35: bool[2,3] = eq(%0, %34)
;   %36: bool[2,3] = eq(%0, %34)
;   %37: f64[2,3] = constant[value=0.5]()
;   %38: f64[2,3] = constant[value=1.0]()
;   %39: f64[2,3] = select(%36, %37, %38)
;   %40: f64[2,3] = constant[value=0.0]()
;   %41: f64[2,3] = select(%35, %39, %40)
;   %42: f64[2,3] = mul(%5, %41)
;   %43: f64[2,3] = constant[value=0.5]()
;   %44: f64[2,3] = constant[value=1.0]()
;   %45: f64[2,3] = select(%35, %43, %44)
;   %46: f64[2,3] = constant[value=0.0]()
;   %47: f64[2,3] = select(%36, %45, %46)
;   %48: f64[2,3] = mul(%5, %47)
;   %49: f64[2,3] = add(%42, %48)
;   %50: f64[2,3,3] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[1], rhs_batch=[0]](%2, %3)
;   %51: f64[2,3,3] = constant[value=0.0]()
;   return %6, %9, %13, %17, %26, %32, %34, %50, %8, %11, %15, %22, %28, %33, %49, %51
; }
