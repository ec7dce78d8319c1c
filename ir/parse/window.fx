; The window family: the window attributes after window_dimensions default to one
; entry per window axis (strides and dilations 1, padding [0,0]); `padding` is a list
; of [low, high] pairs. The canonical form prints them all.
func @f(%x: f32[4,6], %t: f32[2,3]) -> (f32[2,3], f32[5,6], f32[2,3], f32[4,6]) {
  %lo: f32[] = constant[value=-inf]()
  %z: f32[] = constant[value=0]()
  %a: f32[2,3] = reduce_window[op="max", window_dimensions=[2,2], window_strides=[2,2]](%x, %lo)
  %b: f32[5,6] = reduce_window[op="sum", window_dimensions=[2,3], padding=[[1,1],[1,1]], base_dilation=[1,1], window_dilation=[1,1]](%x, %z)
  %c: f32[2,3] = select_and_gather_add[select="max", window_dimensions=[2,2], window_strides=[2,2]](%x, %x)
  %d: f32[4,6] = select_and_scatter_add[select="min", window_dimensions=[2,2], window_strides=[2,2]](%t, %x)
  return %a, %b, %c, %d
}
; print:
; func @f(%0: f32[4,6], %1: f32[2,3]) -> (f32[2,3], f32[5,6], f32[2,3], f32[4,6]) {
;   %2: f32[] = constant[value=-inf]()
;   %3: f32[] = constant[value=0.0]()
;   %4: f32[2,3] = reduce_window[op="max", window_dimensions=[2,2], window_strides=[2,2], padding=[[0,0],[0,0]], base_dilation=[1,1], window_dilation=[1,1]](%0, %2)
;   %5: f32[5,6] = reduce_window[op="sum", window_dimensions=[2,3], window_strides=[1,1], padding=[[1,1],[1,1]], base_dilation=[1,1], window_dilation=[1,1]](%0, %3)
;   %6: f32[2,3] = select_and_gather_add[select="max", window_dimensions=[2,2], window_strides=[2,2], padding=[[0,0],[0,0]], base_dilation=[1,1], window_dilation=[1,1]](%0, %0)
;   %7: f32[4,6] = select_and_scatter_add[select="min", window_dimensions=[2,2], window_strides=[2,2], padding=[[0,0],[0,0]], base_dilation=[1,1], window_dilation=[1,1]](%1, %0)
;   return %4, %5, %6, %7
; }
