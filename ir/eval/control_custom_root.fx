; custom_root[f=@f, solve=@s, tangent_solve=@ts, num_consts=K](consts..., x0...) runs
; @s(consts..., x0...): a root x of @f(consts..., x...). @f and @ts only matter to the
; derivatives (the implicit function theorem), so here only the solver runs.

; the real root of x³ + x - c (increasing in x, so there is one) by 30 Newton steps,
; which converge from any start in [-4, 4]: c = 2 gives 1, c = 10 gives 2, c = 0 gives 0.
func @cubic_root(%c: f64[3], %x0: f64[3]) -> (f64[3]) {
  %x: f64[3] = custom_root[f=@g, solve=@newton, tangent_solve=@ts, num_consts=1](%c, %x0)
  return %x
}
; run
; in: f64[3] = [2.0, 10.0, 0.0]
; in: f64[3] = [0.5, -1.0, 3.0]
; out0: f64[3] = [1.0, 2.0, 0.0]

func @g(%c: f64[3], %x: f64[3]) -> (f64[3]) {
  %x3: f64[3] = integer_pow[y=3](%x)
  %s: f64[3] = add(%x3, %x)
  %r: f64[3] = sub(%s, %c)
  return %r
}

func @newton(%c: f64[3], %x0: f64[3]) -> (f64[3]) {
  %x: f64[3] = scan[body=@step, length=30, num_consts=1, num_carry=1](%c, %x0)
  return %x
}

func @slope(%x: f64[3]) -> (f64[3]) {
  %x2: f64[3] = mul(%x, %x)
  %three: f64[3] = constant[value=3.0]()
  %one: f64[3] = constant[value=1.0]()
  %d3: f64[3] = mul(%x2, %three)
  %d: f64[3] = add(%d3, %one)
  return %d
}

func @step(%c: f64[3], %x: f64[3]) -> (f64[3]) {
  %r: f64[3] = call[func=@g](%c, %x)
  %d: f64[3] = call[func=@slope](%x)
  %q: f64[3] = div(%r, %d)
  %n: f64[3] = sub(%x, %q)
  return %n
}

func @ts(%c: f64[3], %x: f64[3], %rhs: f64[3]) -> (f64[3]) {
  %d: f64[3] = call[func=@slope](%x)
  %dx: f64[3] = div(%rhs, %d)
  return %dx
}
