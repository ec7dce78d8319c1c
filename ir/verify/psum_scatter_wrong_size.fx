; psum_scatter without tiling scatters an axis as long as the axis size.
func @f[axis_names=["i"]](%x: f32[3,2]) -> (f32[2]) {
  %y: f32[2] = psum_scatter[axis_name="i", scatter_dimension=0, axis_size=2](%x) ; error: axis 0 of f32[3,2] has size 3 but axis_size is 2
  return %y
}
