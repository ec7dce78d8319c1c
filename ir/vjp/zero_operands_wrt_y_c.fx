; Primitives with some operands differentiated and others not: only %y and %c (wrt
; 1,3) are differentiated. Each transpose rule computes cotangents for the linear
; operands only (the other pieces of a concatenate, the other side of a select, the
; operand or the update of a dynamic_update_slice), and they accumulate with add
; where a parameter fans out.
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
; vjp:
; func @f_vjp(%0: f64[2,3], %1: f64[2,3], %2: f64[3,2,4], %3: f64[2,4,3], %4: i32[], %5: f64[4,3], %6: f64[2,6], %7: f64[2,3], %8: f64[2,3], %9: f64[2,3], %10: f64[3,2], %11: f64[2,3], %12: f64[2,3,3]) -> (f64[4,3], f64[2,6], f64[2,3], f64[2,3], f64[2,3], f64[3,2], f64[2,3], f64[2,3,3], f64[2,3], f64[2,4,3]) {
;   %13: f64[4,3] = concatenate[axis=0](%0, %1)
;   %14: f64[2,6] = concatenate[axis=1](%1, %0)
;   %15: bool[2,3] = gt(%0, %1)
;   %16: f64[2,3] = select(%15, %1, %0)
;   %17: f64[2,3] = constant[value=-0.25]()
;   %18: f64[2,3] = clamp(%17, %1, %0)
;   %19: bool[2,3] = lt(%1, %17)
;   %20: bool[2,3] = lt(%0, %1)
;   %21: bool[2,3] = lt(%0, %17)
;   %22: bool[2,3] = or(%20, %21)
;   %23: i32[] = constant[value=0]()
;   %24: f64[1,2] = slice[start=[0,0], limit=[1,2], strides=[1,1]](%0)
;   %25: f64[2,3] = dynamic_update_slice(%1, %24, %23, %4)
;   %26: f64[3,2] = transpose[perm=[1,0]](%0)
;   %27: i32[2] = constant[value=[1,0]]()
;   %28: f64[3,2] = scatter_add[axis=1, batch_dims=0](%26, %27, %26)
;   %29: f64[2,3] = max(%0, %0)
;   %30: f64[2,3,3] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[1], rhs_batch=[0], preferred=none](%2, %3)
;   %31: i32[] = constant[value=0]()
;   %32: f64[2,3,4] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[0], rhs_batch=[1], preferred=none](%12, %2)
;   %33: f64[2,4,3] = transpose[perm=[0,2,1]](%32)
;   %34: f64[1,2] = constant[value=0.0]()
;   %35: f64[2,3] = dynamic_update_slice(%9, %34, %31, %4)
;   %36: f64[2,3] = constant[value=0.0]()
;   %37: f64[2,3] = select(%22, %36, %8)
;   %38: f64[2,3] = select(%19, %36, %37)
;   %39: f64[2,3] = add(%35, %38)
;   %40: f64[2,3] = select(%15, %7, %36)
;   %41: f64[2,3] = add(%39, %40)
;   %42: f64[2,3] = slice[start=[0,0], limit=[2,3], strides=[1,1]](%6)
;   %43: f64[2,3] = add(%41, %42)
;   %44: f64[2,3] = slice[start=[2,0], limit=[4,3], strides=[1,1]](%5)
;   %45: f64[2,3] = add(%43, %44)
;   return %13, %14, %16, %18, %25, %28, %29, %30, %45, %33
; }
