; Elementwise ops with one operand shared: only the batched one varies; the batch axis
; comes in last and goes out first.
func @f(%x: f32[3], %s: f32[]) -> (f32[3]) {
  %b: f32[3] = broadcast_in_dim[shape=[3], dims=[]](%s)
  %y: f32[3] = mul(%x, %b)
  %t: f32[3] = tanh(%y)
  %z: f32[3] = add(%t, %x)
  return %z
}
; in_axes: none,0
; axis_size: 4
; vmap:
; func @f_vmap(%0: f32[3], %1: f32[4]) -> (f32[4,3]) {
;   %2: f32[4,3] = broadcast_in_dim[shape=[4,3], dims=[0]](%1)
;   %3: f32[4,3] = broadcast_in_dim[shape=[4,3], dims=[1]](%0)
;   %4: f32[4,3] = mul(%3, %2)
;   %5: f32[4,3] = tanh(%4)
;   %6: f32[4,3] = broadcast_in_dim[shape=[4,3], dims=[1]](%0)
;   %7: f32[4,3] = add(%5, %6)
;   return %7
; }
