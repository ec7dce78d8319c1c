func @f(%x: f32[2,3]) -> (f32[2]) {
  %y: f32[2] = reduce_sum[axes=[2]](%x) ; error: axis 2 is out of range for rank 2
  return %y
}
