; A scan batched in its carry only: the consts and xs stay unbatched, the ys become
; batched because they depend on the carry.
func @f(%w: f64[], %c: f64[], %xs: f64[4]) -> (f64[], f64[4]) {
  %cf: f64[], %ys: f64[4] = scan[body=@body, length=4, num_consts=1, num_carry=1](%w, %c, %xs)
  return %cf, %ys
}
; in_axes: none,0,none
; axis_size: 3
; vmap:
; func @f_vmap(%0: f64[], %1: f64[3], %2: f64[4]) -> (f64[3], f64[3,4]) {
;   %3: f64[3], %4: f64[4,3] = scan[body=@body_vmap, length=4, num_consts=1, num_carry=1, reverse=false, checkpoint=none](%0, %1, %2)
;   %5: f64[3,4] = transpose[perm=[1,0]](%4)
;   return %3, %5
; }
;
; func @body_vmap(%0: f64[], %1: f64[3], %2: f64[]) -> (f64[3], f64[3]) {
;   %3: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%0)
;   %4: f64[3] = mul(%1, %3)
;   %5: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%2)
;   %6: f64[3] = add(%4, %5)
;   %7: f64[3] = sin(%6)
;   return %6, %7
; }
func @body(%w: f64[], %c: f64[], %x: f64[]) -> (f64[], f64[]) {
  %a: f64[] = mul(%c, %w)
  %n: f64[] = add(%a, %x)
  %y: f64[] = sin(%n)
  return %n, %y
}
