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

func @step(%c: f32[3], %x: f32[3]) -> (f32[3], f32[3]) {
  %s: f32[3] = add(%c, %x)
  return %s, %s
}

func @below(%k: i32[], %v: f32[3]) -> (bool[]) {
  %ten: i32[] = constant[value=10]()
  %lt: bool[] = lt(%k, %ten)
  return %lt
}

func @inc(%k: i32[], %v: f32[3]) -> (i32[], f32[3]) {
  %one: i32[] = constant[value=1]()
  %k1: i32[] = add(%k, %one)
  return %k1, %v
}

func @neg(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = neg(%x)
  return %y
}

func @ident(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = name[name="h1"](%x)
  return %y
}

func @ident_jvp(%x: f32[3], %t: f32[3]) -> (f32[3], f32[3]) {
  return %x, %t
}

func @ident_fwd(%x: f32[3]) -> (f32[3], f32[3]) {
  return %x, %x
}

func @ident_bwd[kind="custom", residuals=1](%res: f32[3], %ct: f32[3]) -> (f32[3]) {
  return %ct
}
