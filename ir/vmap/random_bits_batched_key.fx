; random_bits with one key per example.
func @f(%k: i32[2]) -> (i32[3]) {
  %b: i32[3] = random_bits[shape=[3]](%k)
  return %b
}
; in_axes: 0
; axis_size: 2
; vmap:
; func @f_vmap(%0: i32[2,2]) -> (i32[2,3]) {
;   %1: i32[2,3] = scan[body=@random_bits_batch, length=2, num_consts=0, num_carry=0, reverse=false, checkpoint=none](%0)
;   return %1
; }
;
; func @random_bits_batch(%0: i32[2]) -> (i32[3]) {
;   %1: i32[3] = random_bits[shape=[3]](%0)
;   return %1
; }
