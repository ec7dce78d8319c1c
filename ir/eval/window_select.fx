; select_and_gather_add and select_and_scatter_add (JAX's max-pooling derivative:
; _select_and_gather_add and _select_and_scatter_add with lax.ge_p / lax.le_p): each
; window of x selects its first maximum (minimum); the gather takes t there, the
; scatter adds the window's source there (overlapping windows add up). A window over
; padding alone selects nothing (gather 0).

; overlapping 1-D windows with padding; ties go to the first.
func @select_1d(%t: f32[6], %x: f32[6]) -> (f32[4], f32[4]) {
  %a: f32[4] = select_and_gather_add[select="max", window_dimensions=[3], window_strides=[2], padding=[[1,2]]](%t, %x)
  %b: f32[4] = select_and_gather_add[select="min", window_dimensions=[3], window_strides=[2], padding=[[1,2]]](%t, %x)
  return %a, %b
}
; run
; in: f32[6] = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
; in: f32[6] = [1.0, 3.0, 3.0, 0.0, 2.0, 2.0]
; out0: f32[4] = [20.0, 20.0, 50.0, 60.0]
; out1: f32[4] = [10.0, 40.0, 40.0, 60.0]

func @scatter_1d(%s: f32[4], %x: f32[6]) -> (f32[6], f32[6]) {
  %a: f32[6] = select_and_scatter_add[select="max", window_dimensions=[3], window_strides=[2], padding=[[1,2]]](%s, %x)
  %b: f32[6] = select_and_scatter_add[select="min", window_dimensions=[3], window_strides=[2], padding=[[1,2]]](%s, %x)
  return %a, %b
}
; run
; in: f32[4] = [1.0, 10.0, 100.0, 1000.0]
; in: f32[6] = [1.0, 3.0, 3.0, 0.0, 2.0, 2.0]
; out0: f32[6] = [0.0, 11.0, 0.0, 0.0, 100.0, 1000.0]
; out1: f32[6] = [1.0, 0.0, 0.0, 110.0, 0.0, 1000.0]

; 2-D pooling windows, f64 and i32, and dilation for the gather.
func @select_2d(%t: f64[4,4], %x: f64[4,4], %k: i32[4,4]) -> (f64[2,2], i32[4,4], f64[2,3]) {
  %a: f64[2,2] = select_and_gather_add[select="max", window_dimensions=[2,2], window_strides=[2,2]](%t, %x)
  %ks: i32[2,2] = constant[value=[1, 2, 3, 4]]()
  %b: i32[4,4] = select_and_scatter_add[select="max", window_dimensions=[2,2], window_strides=[2,2]](%ks, %k)
  %c: f64[2,3] = select_and_gather_add[select="min", window_dimensions=[2,2], window_dilation=[2,1], base_dilation=[1,1]](%t, %x)
  return %a, %b, %c
}
; run
; in: f64[4,4] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]
; in: f64[4,4] = [0.5, -1.0, 2.0, 3.5, -0.25, 1.5, 4.0, -2.0, 0.0, 1.0, 2.5, -3.0, 1.25, 0.75, -1.5, 6.0]
; in: i32[4,4] = [5, -3, 2, 4, 9, 1, 0, 7, 3, 3, -8, 6, 2, 1, 6, 6]
; out0: f64[2,2] = [6.0, 7.0, 13.0, 16.0]
; out1: i32[4,4] = [0, 0, 0, 0, 1, 0, 0, 2, 3, 0, 0, 4, 0, 0, 0, 0]
; out2: f64[2,3] = [2.0, 2.0, 12.0, 5.0, 15.0, 8.0]
