func @f(%x: f32[1,5,2], %k: f32[3,2,4]) -> (f32[1,5,4]) {
  %y: f32[1,5,4] = conv_general_dilated[window_strides=[1], padding=[[0,0]], lhs_dilation=[1], rhs_dilation=[1], dimension_numbers=["NWC","WIO","NWC"], feature_group_count=1, batch_group_count=1, preferred=none](%x, %k) ; error: declared result types (f32[1,5,4]) differ from the type rule's (f32[1,3,4])
  return %y
}
