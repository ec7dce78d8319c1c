; Common subexpressions merge: the same primitive with the same attributes and inputs
; (sin twice), equal constants (by bits: 0.0 and -0.0 differ), and structured
; primitives naming the same body with the same inputs.
func @f(%x: f32[4]) -> (f32[4], f32[4], f32[], f32[4]) {
  %s1: f32[4] = sin(%x)
  %s2: f32[4] = sin(%x)
  %a: f32[4] = add(%s1, %s2)
  %z1: f32[4] = constant[value=0.0]()
  %z2: f32[4] = constant[value=0.0]()
  %nz: f32[4] = constant[value=-0.0]()
  %p: f32[4] = add(%x, %z1)
  %q: f32[4] = add(%x, %z2)
  %r: f32[4] = add(%x, %nz)
  %pq: f32[4] = mul(%p, %q)
  %t: f32[4] = sub(%pq, %r)
  %c: f32[] = constant[value=0.5]()
  %u1: f32[], %ys1: f32[4] = scan[body=@acc, length=4, num_carry=1](%c, %x)
  %u2: f32[], %ys2: f32[4] = scan[body=@acc, length=4, num_carry=1](%c, %x)
  %u: f32[] = mul(%u1, %u2)
  %ys: f32[4] = sub(%ys1, %ys2)
  return %a, %t, %u, %ys
}
; opt:
; func @f(%0: f32[4]) -> (f32[4], f32[4], f32[], f32[4]) {
;   %1: f32[4] = sin(%0)
;   %2: f32[4] = add(%1, %1)
;   %3: f32[4] = constant[value=0.0]()
;   %4: f32[4] = add(%0, %3)
;   %5: f32[4] = mul(%4, %4)
;   %6: f32[4] = sub(%5, %0)
;   %7: f32[] = constant[value=0.5]()
;   %8: f32[], %9: f32[4] = scan[body=@acc, length=4, num_consts=0, num_carry=1, reverse=false, checkpoint=none](%7, %0)
;   %10: f32[] = mul(%8, %8)
;   %11: f32[4] = sub(%9, %9)
;   return %2, %6, %10, %11
; }
;
; func @acc(%0: f32[], %1: f32[]) -> (f32[], f32[]) {
;   %2: f32[] = add(%0, %1)
;   return %2, %2
; }

func @acc(%c: f32[], %x: f32[]) -> (f32[], f32[]) {
  %s: f32[] = add(%c, %x)
  return %s, %s
}
