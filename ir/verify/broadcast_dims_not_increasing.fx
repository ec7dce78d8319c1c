func @f(%x: f32[2,2]) -> (f32[2,2,3]) {
  %y: f32[2,2,3] = broadcast_in_dim[shape=[2,2,3], dims=[1,0]](%x) ; error: dims must be strictly increasing
  return %y
}
