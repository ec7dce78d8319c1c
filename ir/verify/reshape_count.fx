func @f(%x: f32[2,3]) -> (f32[5]) {
  %y: f32[5] = reshape[shape=[5]](%x) ; error: element counts differ: f32[2,3] has 6 but f32[5] has 5
  return %y
}
