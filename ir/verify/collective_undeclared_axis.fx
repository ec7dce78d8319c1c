; A collective may only name an axis its Func (or the entry) declares.
func @f(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = psum[axes=["i"]](%x) ; error: names the axis `i`, which neither this Func nor the entry declares
  return %y
}
