func @f(%x: f32[1,4,4,3], %k: f32[3,3,2,8]) -> (f32[1,2,2,8]) {
  %y: f32[1,2,2,8] = conv_general_dilated[window_strides=[1,1], padding=[[0,0],[0,0]], lhs_dilation=[1,1], rhs_dilation=[1,1], dimension_numbers=["NHWC","HWIO","NHWC"], feature_group_count=1, batch_group_count=1, preferred=none](%x, %k) ; error: the lhs f32[1,4,4,3] has 3 input features, which must be the rhs f32[3,3,2,8]'s 2 input features times feature_group_count 1
  return %y
}
