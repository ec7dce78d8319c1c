//! W1 `mlp_grad`: an MLP 784-512-512-10 with tanh, mean softmax cross-entropy over a
//! batch of 128, f32; `jit` of the value and the gradient with respect to every weight
//! and bias (JAX: `jit(value_and_grad(loss))`).
//!
//! Arguments: `x` f32[128,784], one-hot `y` f32[128,10], then W1[784,512], b1[512],
//! W2[512,512], b2[512], W3[512,10], b3[10]. Results: the loss, then the six gradients.

use crate::Result;
use crate::data::{Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::nn::cross_entropy;
use ferrax::{Array, Tensor, grad};

pub(crate) const STEMS: [&str; 8] = ["mlp_x", "mlp_y", "mlp_w1", "mlp_b1", "mlp_w2", "mlp_b2", "mlp_w3", "mlp_b3"];

/// (batch, input, hidden, classes) at a scale.
fn sizes(scale: Scale) -> (usize, usize, usize, usize) {
    match scale {
        Scale::Full => (128, 784, 512, 10),
        Scale::Small => (8, 12, 16, 10),
    }
}

/// The inputs: standard normal `x`, one-hot `y`, weights ~N(0, 1/fan_in), biases ~N(0, 0.01).
pub(crate) fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    let (batch, input, hidden, classes) = sizes(scale);
    sized(batch, input, hidden, classes)
}

/// The inputs at a batch and layer sizes (the scaling sweep's too).
pub(crate) fn sized(batch: usize, input: usize, hidden: usize, classes: usize) -> Result<Vec<(String, Array)>> {
    let mut rng = Rng::for_group("mlp");
    let x = rng.normal_f32(&[batch, input], 1.0)?;
    let y = rng.one_hot_f32(batch, classes)?;
    let mut arrays = vec![x, y];
    for (fan_in, fan_out) in [(input, hidden), (hidden, hidden), (hidden, classes)] {
        arrays.push(rng.normal_f32(&[fan_in, fan_out], 1.0 / (fan_in as f64).sqrt())?);
        arrays.push(rng.normal_f32(&[fan_out], 0.1)?);
    }
    Ok(STEMS.iter().map(|s| s.to_string()).zip(arrays).collect())
}

/// The logits of the MLP; `p` = [W1, b1, W2, b2, W3, b3].
pub(crate) fn logits(p: &[Tensor], x: &Tensor) -> Tensor {
    let h1 = (x.matmul(&p[0]) + &p[1]).tanh();
    let h2 = (h1.matmul(&p[2]) + &p[3]).tanh();
    h2.matmul(&p[4]) + &p[5]
}

/// `jit(value_and_grad(loss))` as a user writes it: the loss, and `grad` of the loss
/// with the batch captured from the enclosing trace.
pub(crate) fn program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let (x, y) = (&args[0], &args[1]);
        let params = args[2..].to_vec();
        let loss = |p: Vec<Tensor>| cross_entropy(&logits(&p, x), y);
        let value = loss(params.clone());
        let grads = grad(loss).apply(&params);
        std::iter::once(value).chain(grads).collect()
    })
}

pub(crate) fn workloads() -> Vec<Workload> {
    vec![Workload {
        name: "mlp_grad",
        id: "W1",
        program,
        args: |inputs| load(inputs, &STEMS),
        calls: 100,
        reductions: &[],
        mixed: false,
    }]
}
