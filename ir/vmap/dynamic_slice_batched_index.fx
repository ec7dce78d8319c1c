; dynamic_slice with a batched start index becomes a gather.
func @f(%x: f64[5], %i: i32[]) -> (f64[2]) {
  %y: f64[2] = dynamic_slice[sizes=[2]](%x, %i)
  return %y
}
; in_axes: none,0
; axis_size: 3
; in: f64[5] = [1.0, 2.0, 3.0, 4.0, 5.0]
; in: i32[3] = [0, 4, -1]
; vmap:
; func @f_vmap(%0: f64[5], %1: i32[3]) -> (f64[3,2]) {
;   %2: f64[3,5] = broadcast_in_dim[shape=[3,5], dims=[1]](%0)
;   %3: i32[3] = constant[value=0]()
;   %4: i32[3] = constant[value=3]()
;   %5: i32[3] = clamp(%3, %1, %4)
;   %6: i32[3,2] = iota[dtype=i32, shape=[3,2], dim=1]()
;   %7: i32[3,2] = broadcast_in_dim[shape=[3,2], dims=[0]](%5)
;   %8: i32[3,2] = add(%6, %7)
;   %9: f64[3,2] = gather[axis=1, batch_dims=1](%2, %8)
;   return %9
; }
