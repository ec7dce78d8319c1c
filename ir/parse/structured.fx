; Structured primitives refer to other Funcs by name; Func attributes and multi-result
; equations round-trip.
func @main(%x: f32[3], %n: i32[], %xs: f32[5,3]) -> (f32[3], f32[5,3], i32[], f32[3]) {
  %c: f32[3], %ys: f32[5,3] = scan[body=@step, length=5, num_carry=1, reverse=true, checkpoint=2](%x, %xs)
  %k: i32[], %v: f32[3] = while[cond=@below, body=@inc, max_iters=10](%n, %c)
  %p: bool[] = constant[value=true]()
  %b: f32[3] = cond[branches=[@neg, @ident]](%p, %v)
  %r: f32[3] = remat[func=@ident, policy="names:h1,h2"](%b)
  %j: f32[3] = custom_jvp[func=@ident, jvp=@ident_jvp](%r)
  %q: f32[3] = custom_vjp[func=@ident, fwd=@ident_fwd, bwd=@ident_bwd](%j)
  return %q, %ys, %k, %c
}
; print:
; func @main(%0: f32[3], %1: i32[], %2: f32[5,3]) -> (f32[3], f32[5,3], i32[], f32[3]) {
;   %3: f32[3], %4: f32[5,3] = scan[body=@step, length=5, num_consts=0, num_carry=1, reverse=true, checkpoint=2](%0, %2)
;   %5: i32[], %6: f32[3] = while[cond=@below, body=@inc, max_iters=10](%1, %3)
;   %7: bool[] = constant[value=true]()
;   %8: f32[3] = cond[branches=[@neg,@ident]](%7, %6)
;   %9: f32[3] = remat[func=@ident, policy="names:h1,h2"](%8)
;   %10: f32[3] = custom_jvp[func=@ident, jvp=@ident_jvp](%9)
;   %11: f32[3] = custom_vjp[func=@ident, fwd=@ident_fwd, bwd=@ident_bwd](%10)
;   return %11, %4, %5, %3
; }

func @step(%c: f32[3], %x: f32[3]) -> (f32[3], f32[3]) {
  %s: f32[3] = add(%c, %x)
  return %s, %s
}
; print:
; func @step(%0: f32[3], %1: f32[3]) -> (f32[3], f32[3]) {
;   %2: f32[3] = add(%0, %1)
;   return %2, %2
; }

func @below(%k: i32[], %v: f32[3]) -> (bool[]) {
  %ten: i32[] = constant[value=10]()
  %lt: bool[] = lt(%k, %ten)
  return %lt
}
; print:
; func @below(%0: i32[], %1: f32[3]) -> (bool[]) {
;   %2: i32[] = constant[value=10]()
;   %3: bool[] = lt(%0, %2)
;   return %3
; }

func @inc(%k: i32[], %v: f32[3]) -> (i32[], f32[3]) {
  %one: i32[] = constant[value=1]()
  %k1: i32[] = add(%k, %one)
  return %k1, %v
}
; print:
; func @inc(%0: i32[], %1: f32[3]) -> (i32[], f32[3]) {
;   %2: i32[] = constant[value=1]()
;   %3: i32[] = add(%0, %2)
;   return %3, %1
; }

func @neg(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = neg(%x)
  return %y
}
; print:
; func @neg(%0: f32[3]) -> (f32[3]) {
;   %1: f32[3] = neg(%0)
;   return %1
; }

func @ident(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = name[name="h1"](%x)
  return %y
}
; print:
; func @ident(%0: f32[3]) -> (f32[3]) {
;   %1: f32[3] = name[name="h1"](%0)
;   return %1
; }

func @ident_jvp(%x: f32[3], %t: f32[3]) -> (f32[3], f32[3]) {
  return %x, %t
}
; print:
; func @ident_jvp(%0: f32[3], %1: f32[3]) -> (f32[3], f32[3]) {
;   return %0, %1
; }

func @ident_fwd(%x: f32[3]) -> (f32[3], f32[3]) {
  return %x, %x
}
; print:
; func @ident_fwd(%0: f32[3]) -> (f32[3], f32[3]) {
;   return %0, %0
; }

func @ident_bwd[kind="custom", residuals=1](%res: f32[3], %ct: f32[3]) -> (f32[3]) {
  return %ct
}
; print:
; func @ident_bwd[kind="custom", residuals=1](%0: f32[3], %1: f32[3]) -> (f32[3]) {
;   return %1
; }
