; Logistic regression: the mean binary cross-entropy of sigmoid(x·w) against fixed
; labels, and the predicted probabilities.
;   cargo run -p ferrax-cli -- run examples/ir/logistic_regression.fx examples/ir/x.npy examples/ir/w.npy
func @loss(%x: f32[4,3], %w: f32[3]) -> (f32[], f32[4]) {
  %z: f32[4] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w)
  %p: f32[4] = logistic(%z)
  %y: f32[4] = constant[value=[1.0, 0.0, 1.0, 0.0]]()
  %one: f32[4] = constant[value=1.0]()
  %log_p: f32[4] = log(%p)
  %q: f32[4] = sub(%one, %p)
  %log_q: f32[4] = log(%q)
  %a: f32[4] = mul(%y, %log_p)
  %not_y: f32[4] = sub(%one, %y)
  %b: f32[4] = mul(%not_y, %log_q)
  %ll: f32[4] = add(%a, %b)
  %sum: f32[] = reduce_sum[axes=[0]](%ll)
  %scale: f32[] = constant[value=-0.25]()
  %mean: f32[] = mul(%sum, %scale)
  return %mean, %p
}
