func @f(%x: f32[2,4,4], %k: f32[3,2,4]) -> (f32[1,2,4]) {
  %y: f32[1,2,4] = conv_general_dilated[window_strides=[1], padding=[[0,0]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=2, batch_group_count=2, preferred=none](%x, %k) ; error: at most one of feature_group_count (2) and batch_group_count (2) may exceed 1
  return %y
}
