; Attributes with defaults may be omitted; the canonical form prints them all, in
; declared order.
func @f(%x: f32[4,6], %w: f32[6,3], %i: i32[]) -> (f32[4,3], f32[2,2], f32[6,8], i32[4]) {
  %d: f32[4,3] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w)
  %s: f32[2,2] = slice[start=[2,1], limit=[4,3]](%d)
  %z: f32[] = constant[value=0]()
  %p: f32[6,8] = pad[low=[1,-1], high=[1,3]](%x, %z)
  %a: i32[4] = argmax[axis=1](%x)
  %c: f32[4,6] = cumsum[axis=0](%x)
  %j: i32[2] = constant[value=[3, -1]]()
  %g: f32[2,6] = gather[axis=0](%c, %j)
  return %d, %s, %p, %a
}
; print:
; func @f(%0: f32[4,6], %1: f32[6,3], %2: i32[]) -> (f32[4,3], f32[2,2], f32[6,8], i32[4]) {
;   %3: f32[4,3] = dot_general[lhs_contract=[1], rhs_contract=[0], lhs_batch=[], rhs_batch=[], preferred=none](%0, %1)
;   %4: f32[2,2] = slice[start=[2,1], limit=[4,3], strides=[1,1]](%3)
;   %5: f32[] = constant[value=0.0]()
;   %6: f32[6,8] = pad[low=[1,-1], high=[1,3], interior=[0,0]](%0, %5)
;   %7: i32[4] = argmax[axis=1, index_dtype=i32](%0)
;   %8: f32[4,6] = cumsum[axis=0, reverse=false](%0)
;   %9: i32[2] = constant[value=[3,-1]]()
;   %10: f32[2,6] = gather[axis=0, batch_dims=0](%8, %9)
;   return %3, %4, %6, %7
; }
