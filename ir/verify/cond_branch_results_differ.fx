func @f(%i: i32[], %x: f32[2]) -> (f32[2]) {
  %y: f32[2] = cond[branches=[@same, @other]](%i, %x) ; error: branch 1 @other returns (f64[2]) but must return (f32[2])
  return %y
}

func @same(%x: f32[2]) -> (f32[2]) {
  return %x
}

func @other(%x: f32[2]) -> (f64[2]) {
  %y: f64[2] = convert[dtype=f64](%x)
  return %y
}
