; Attributes with defaults may be omitted; the canonical form prints them all, in
; declared order.
func @f(%x: f32[4,6], %w: f32[6,3], %i: i32[]) -> (f32[4,3], f32[2,3], f32[6,8], i32[4]) {
  %d: f32[4,3] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w)
  %s: f32[2,3] = slice[start=[0,1], limit=[4,4]](%d)
  %z: f32[] = constant[value=0]()
  %p: f32[6,8] = pad[low=[1,-1], high=[1,3]](%x, %z)
  %a: i32[4] = argmax[axis=1](%x)
  %c: f32[4,6] = cumsum[axis=0](%x)
  %j: i32[2] = constant[value=[3, -1]]()
  %g: f32[2,6] = gather[axis=0](%c, %j)
  return %d, %s, %p, %a
}
