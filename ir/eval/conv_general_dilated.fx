; conv_general_dilated as jax.lax's: strides, explicit and negative padding, input and
; kernel dilation, feature groups (depthwise), batch groups, layouts, empty results,
; and 16-bit operands with preferred=f32. Values are small dyadic numbers, so every
; sum is exact in any order.

; 1-D, NWC/WIO: stride 2, one zero of padding in front (padded [0,1,2,3,4,5]).
func @conv1d(%x: f32[1,5,1], %k: f32[2,1,2]) -> (f32[1,3,2]) {
  %y: f32[1,3,2] = conv_general_dilated[window_strides=[2], padding=[[1,0]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=1, preferred=none](%x, %k)
  return %y
}
; run
; in: f32[1,5,1] = [1.0, 2.0, 3.0, 4.0, 5.0]
; in: f32[2,1,2] = [1.0, -1.0, 10.0, 0.5]
; out0: f32[1,3,2] = [10.0, 0.5, 32.0, -0.5, 54.0, -1.5]

; 2-D, NHWC/HWIO, stride 2 with padding after (as SAME for an even input).
func @nhwc_strided(%x: f32[1,3,3,2], %k: f32[2,2,2,1]) -> (f32[1,2,2,1]) {
  %y: f32[1,2,2,1] = conv_general_dilated[window_strides=[2,2], padding=[[0,1],[0,1]], lhs_dilation=[1,1], rhs_dilation=[1,1], dimension_numbers=["NHWC","HWIO","NHWC"], feature_group_count=1, batch_group_count=1, preferred=none](%x, %k)
  return %y
}
; run
; in: f32[1,3,3,2] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0]
; in: f32[2,2,2,1] = [1.0, 0.5, -1.0, 0.25, 2.0, 0.0, 0.5, -0.5]
; out0: f32[1,2,2,1] = [13.5, 30.0, 9.0, 26.0]

; Depthwise, NCHW/OIHW: each of the two features with its own 2x2 kernel.
func @depthwise_nchw(%x: f64[1,2,3,3], %k: f64[2,1,2,2]) -> (f64[1,2,2,2]) {
  %y: f64[1,2,2,2] = conv_general_dilated[window_strides=[1,1], padding=[[0,0],[0,0]], lhs_dilation=[1,1], rhs_dilation=[1,1], dimension_numbers=["NCHW","OIHW","NCHW"], feature_group_count=2, batch_group_count=1, preferred=none](%x, %k)
  return %y
}
; run
; in: f64[1,2,3,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0]
; in: f64[2,1,2,2] = [1.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.25, 0.25]
; out0: f64[1,2,2,2] = [6.0, 8.0, 12.0, 14.0, -3.75, -5.25, -8.25, -9.75]

; Batch groups: the batch of 2 splits in two, output feature b reads batch element b.
func @batch_groups(%x: f32[2,3,1], %k: f32[2,1,2]) -> (f32[1,2,2]) {
  %y: f32[1,2,2] = conv_general_dilated[window_strides=[1], padding=[[0,0]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=2, preferred=none](%x, %k)
  return %y
}
; run
; in: f32[2,3,1] = [1.0, 2.0, 3.0, 10.0, 20.0, 30.0]
; in: f32[2,1,2] = [1.0, 2.0, -1.0, 0.5]
; out0: f32[1,2,2] = [-1.0, 30.0, -1.0, 55.0]

; Input dilation 2 ([1,0,2,0,3,0,4]), kernel dilation 2, one element cropped in front
; and one of padding after.
func @dilated(%x: f32[1,4,1], %k: f32[2,1,1]) -> (f32[1,5,1]) {
  %y: f32[1,5,1] = conv_general_dilated[window_strides=[1], padding=[[-1,1]], lhs_dilation=[2], rhs_dilation=[2], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=1, preferred=none](%x, %k)
  return %y
}
; run
; in: f32[1,4,1] = [1.0, 2.0, 3.0, 4.0]
; in: f32[2,1,1] = [1.0, 10.0]
; out0: f32[1,5,1] = [0.0, 32.0, 0.0, 43.0, 0.0]

; An empty batch, and a kernel longer than the input (no window position).
func @empty(%x: f32[0,4,2], %k: f32[2,2,3], %a: f32[1,2,1], %b: f32[4,1,1]) -> (f32[0,3,3], f32[1,0,1]) {
  %y: f32[0,3,3] = conv_general_dilated[window_strides=[1], padding=[[0,0]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=1, preferred=none](%x, %k)
  %z: f32[1,0,1] = conv_general_dilated[window_strides=[1], padding=[[0,0]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=1, preferred=none](%a, %b)
  return %y, %z
}
; run
; in: f32[0,4,2] = []
; in: f32[2,2,3] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
; in: f32[1,2,1] = [1.0, 2.0]
; in: f32[4,1,1] = [1.0, 2.0, 3.0, 4.0]
; out0: f32[0,3,3] = []
; out1: f32[1,0,1] = []

; bf16 operands: 1 + 2^-9 + 2^-9 = 1 + 2^-8 is kept by preferred=f32 and rounds to
; even (1.0) in bf16 (preferred=none or bf16).
func @bf16_preferred(%x: bf16[1,1,3], %k: bf16[1,3,1]) -> (f32[1,1,1], bf16[1,1,1], bf16[1,1,1]) {
  %p: f32[1,1,1] = conv_general_dilated[window_strides=[1], padding=[[0,0]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=1, preferred=f32](%x, %k)
  %q: bf16[1,1,1] = conv_general_dilated[window_strides=[1], padding=[[0,0]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=1, preferred=none](%x, %k)
  %r: bf16[1,1,1] = conv_general_dilated[window_strides=[1], padding=[[0,0]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=1, preferred=bf16](%x, %k)
  return %p, %q, %r
}
; run
; in: bf16[1,1,3] = [1.0, 0.001953125, 0.001953125]
; in: bf16[1,3,1] = [1.0, 1.0, 1.0]
; out0: f32[1,1,1] = [1.0039063]
; out1: bf16[1,1,1] = [1.0]
; out2: bf16[1,1,1] = [1.0]

; Taps on padding and on dilation holes contribute nothing, not 0·w: an infinite
; weight there gives no NaN (as XLA); on a real zero it does.
func @non_finite_kernel(%x: f32[1,2,1], %k: f32[1,1,1]) -> (f32[1,4,1]) {
  %y: f32[1,4,1] = conv_general_dilated[window_strides=[1], padding=[[1,0]], lhs_dilation=[2], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=1, preferred=none](%x, %k)
  return %y
}
; run
; in: f32[1,2,1] = [0.0, 2.0]
; in: f32[1,1,1] = [inf]
; out0: f32[1,4,1] = [0.0, nan, 0.0, inf]
