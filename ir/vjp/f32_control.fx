; Reverse mode in f32 through control flow: a scan with a const (its cotangent is
; accumulated in the transposed scan's carry) and a bounded while, checked by the
; adjoint identity and central differences with f32 tolerances.
func @f(%w: f32[3], %c0: f32[3], %xs: f32[4,3]) -> (f32[3], f32[4,3]) {
  %c: f32[3], %ys: f32[4,3] = scan[body=@step, length=4, num_consts=1, num_carry=1](%w, %c0, %xs)
  %zero: i32[] = constant[value=0]()
  %i: i32[], %d: f32[3] = while[cond=@below3, body=@twice, max_iters=3](%zero, %c)
  return %d, %ys
}
; vjp:
func @step(%w: f32[3], %c: f32[3], %x: f32[3]) -> (f32[3], f32[3]) {
  %a: f32[3] = mul(%c, %w)
  %b: f32[3] = sin(%x)
  %n: f32[3] = add(%a, %b)
  %t: f32[3] = tanh(%n)
  %y: f32[3] = mul(%t, %x)
  return %t, %y
}
func @below3(%i: i32[], %v: f32[3]) -> (bool[]) {
  %n: i32[] = constant[value=3]()
  %p: bool[] = lt(%i, %n)
  return %p
}
func @twice(%i: i32[], %v: f32[3]) -> (i32[], f32[3]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  %s: f32[3] = sin(%v)
  %u: f32[3] = add(%s, %v)
  return %j, %u
}
