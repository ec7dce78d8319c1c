; loss(w, x) = sum(tanh(w * x)): the function whose gradient graph the guide shows.
func @loss(%w: f32[3], %x: f32[3]) -> (f32[]) {
  %wx: f32[3] = mul(%w, %x)
  %h: f32[3] = tanh(%wx)
  %l: f32[] = reduce_sum[axes=[0]](%h)
  return %l
}
