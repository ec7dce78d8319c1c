; conv_general_dilated's attribute kinds: a list of [lo,hi] pairs (negative amounts
; crop) and a list of layout strings; the group counts and `preferred` may be omitted.
func @f(%x: f32[2,3,5,5], %w: f32[4,3,3,2]) -> (f32[2,4,3,1]) {
  %y: f32[2,4,3,1] = conv_general_dilated[window_strides=[2,2], padding=[[1, 1], [0,-1]], lhs_dilation=[1,1], rhs_dilation=[1,2], dimension_numbers=["NCHW", "OIHW", "NCHW"]](%x, %w)
  return %y
}
; print:
; func @f(%0: f32[2,3,5,5], %1: f32[4,3,3,2]) -> (f32[2,4,3,1]) {
;   %2: f32[2,4,3,1] = conv_general_dilated[window_strides=[2,2], padding=[[1,1],[0,-1]], lhs_dilation=[1,1], rhs_dilation=[1,2], dimension_numbers=["NCHW","OIHW","NCHW"], feature_group_count=1, batch_group_count=1, preferred=none](%0, %1)
;   return %2
; }
