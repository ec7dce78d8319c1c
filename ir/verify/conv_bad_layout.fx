func @f(%x: f32[1,4,4,3], %k: f32[3,3,3,8]) -> (f32[1,2,2,8]) {
  %y: f32[1,2,2,8] = conv_general_dilated[window_strides=[1,1], padding=[[0,0],[0,0]], lhs_dilation=[1,1], rhs_dilation=[1,1], dimension_numbers=["NHWC","HWIO","NHDC"], feature_group_count=1, batch_group_count=1, preferred=none](%x, %k) ; error: the layouts "NHWC", "HWIO" and "NHDC" must name the same spatial axes
  return %y
}
