; Every collective over one axis gives it the same number of members.
func @f[axis_names=["i"]](%x: f32[3]) -> (f32[2,3], f32[4,3]) {
  %a: f32[2,3] = all_gather[axis_name="i", axis=0, axis_size=2](%x)
  %b: f32[4,3] = all_gather[axis_name="i", axis=0, axis_size=4](%x) ; error: axis_size 4 of the axis `i` differs from 2
  return %a, %b
}
