func @f(%x: f32[2,3]) -> (f32[]) {
  %y: f32[] = reduce_max[axes=[1,1]](%x) ; error: axis 1 is repeated
  return %y
}
