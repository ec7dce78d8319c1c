func @f(%x: f32[3]) -> (f32[2,4]) {
  %y: f32[2,4] = broadcast_in_dim[shape=[2,4], dims=[1]](%x) ; error: operand axis 0 has size 3 but output axis 1 has size 4
  return %y
}
