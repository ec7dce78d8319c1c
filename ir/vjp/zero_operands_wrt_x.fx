; Primitives with some operands differentiated and others not: only %x (wrt 0) is
; differentiated. Each transpose rule computes cotangents for the linear operands
; only (the other pieces of a concatenate, the other side of a select, the operand
; or the update of a dynamic_update_slice), and they accumulate with add where a
; parameter fans out.
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
; vjp:
; func @f_vjp(%0: f64[2,3], %1: f64[2,3], %2: f64[3,2,4], %3: f64[2,4,3], %4: i32[], %5: f64[4,3], %6: f64[2,6], %7: f64[2,3], %8: f64[2,3], %9: f64[2,3], %10: f64[3,2], %11: f64[2,3], %12: f64[2,3,3]) -> (f64[4,3], f64[2,6], f64[2,3], f64[2,3], f64[2,3], f64[3,2], f64[2,3], f64[2,3,3], f64[2,3]) {
;   %13: f64[4,3] = concatenate[axis=0](%0, %1)
;   %14: f64[2,3] = constant[value=0.0]()
;   %15: f64[2,6] = concatenate[axis=1](%1, %0)
;   %16: bool[2,3] = gt(%0, %1)
;   %17: f64[2,3] = select(%16, %1, %0)
;   %18: f64[2,3] = constant[value=-0.25]()
;   %19: f64[2,3] = clamp(%18, %1, %0)
;   %20: bool[2,3] = lt(%0, %1)
;   %21: bool[2,3] = lt(%0, %18)
;   %22: bool[2,3] = or(%20, %21)
;   %23: i32[] = constant[value=0]()
;   %24: f64[1,2] = slice[start=[0,0], limit=[1,2], strides=[1,1]](%0)
;   %25: f64[2,3] = dynamic_update_slice(%1, %24, %23, %4)
;   %26: f64[3,2] = transpose[perm=[1,0]](%0)
;   %27: i32[2] = constant[value=[1,0]]()
;   %28: f64[3,2] = scatter_add[axis=1, batch_dims=0](%26, %27, %26)
;   %29: f64[2,3] = max(%0, %0)
;   %30: bool[2,3] = eq(%0, %29)
;   %31: bool[2,3] = eq(%0, %29)
;   %32: f64[2,3] = constant[value=0.5]()
;   %33: f64[2,3] = constant[value=1.0]()
;   %34: f64[2,3] = select(%31, %32, %33)
;   %35: f64[2,3] = select(%30, %34, %14)
;   %36: f64[2,3] = select(%30, %32, %33)
;   %37: f64[2,3] = select(%31, %36, %14)
;   %38: f64[2,3,3] = dot_general[lhs_contract=[2], rhs_contract=[1], lhs_batch=[1], rhs_batch=[0], preferred=none](%2, %3)
;   %39: i32[] = constant[value=0]()
;   %40: i32[2] = constant[value=[1,0]]()
;   %41: f64[2,3] = mul(%11, %37)
;   %42: f64[2,3] = mul(%11, %35)
;   %43: f64[2,3] = add(%41, %42)
;   %44: f64[3,2] = gather[axis=1, batch_dims=0](%10, %40)
;   %45: f64[3,2] = add(%10, %44)
;   %46: f64[2,3] = transpose[perm=[1,0]](%45)
;   %47: f64[2,3] = add(%43, %46)
;   %48: f64[1,2] = dynamic_slice[sizes=[1,2]](%9, %39, %4)
;   %49: f64[1,2] = slice[start=[0,0], limit=[1,2], strides=[1,1]](%47)
;   %50: f64[1,2] = add(%49, %48)
;   %51: i32[] = constant[value=0]()
;   %52: f64[2,3] = dynamic_update_slice(%47, %50, %51, %51)
;   %53: f64[2,3] = constant[value=0.0]()
;   %54: f64[2,3] = select(%22, %8, %53)
;   %55: f64[2,3] = add(%52, %54)
;   %56: f64[2,3] = select(%16, %53, %7)
;   %57: f64[2,3] = add(%55, %56)
;   %58: f64[2,3] = slice[start=[0,3], limit=[2,6], strides=[1,1]](%6)
;   %59: f64[2,3] = add(%57, %58)
;   %60: f64[2,3] = slice[start=[0,0], limit=[2,3], strides=[1,1]](%5)
;   %61: f64[2,3] = add(%59, %60)
;   return %13, %15, %17, %19, %25, %28, %29, %38, %61
; }
