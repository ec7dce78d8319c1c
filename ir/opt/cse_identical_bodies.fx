; Two scans over structurally identical bodies (under different names) merge: the
; bodies are one Func, then the equations are the same.
func @f(%c: f32[], %xs: f32[4]) -> (f32[], f32[4]) {
  %u1: f32[], %ys1: f32[4] = scan[body=@acc, length=4, num_carry=1](%c, %xs)
  %u2: f32[], %ys2: f32[4] = scan[body=@acc_copy, length=4, num_carry=1](%c, %xs)
  %u: f32[] = add(%u1, %u2)
  %ys: f32[4] = mul(%ys1, %ys2)
  return %u, %ys
}
; opt:
; func @f(%0: f32[], %1: f32[4]) -> (f32[], f32[4]) {
;   %2: f32[], %3: f32[4] = scan[body=@acc, length=4, num_consts=0, num_carry=1, reverse=false, checkpoint=none](%0, %1)
;   %4: f32[] = add(%2, %2)
;   %5: f32[4] = mul(%3, %3)
;   return %4, %5
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

func @acc_copy(%carry: f32[], %elem: f32[]) -> (f32[], f32[]) {
  %sum: f32[] = add(%carry, %elem)
  return %sum, %sum
}
