//! W4 `per_sample_grads`: `jit(vmap(grad))` of a 100-256-1 tanh MLP's squared error,
//! one gradient per example of a batch of 256; the parameters are shared (not
//! batched), each example's `x` row and `y` are batched along axis 0.
//!
//! Arguments: W1 f32[100,256], b1[256], W2[256,1], b2[1], `x` f32[256,100], `y`
//! f32[256]. Results: the per-example gradients of W1, b1, W2, b2 (a leading axis of
//! 256 each).

use crate::Result;
use crate::data::{Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::{Array, Tensor, grad, vmap};

const STEMS: [&str; 6] = ["ps_w1", "ps_b1", "ps_w2", "ps_b2", "ps_x", "ps_y"];

/// (batch, input, hidden) at a scale.
fn sizes(scale: Scale) -> (usize, usize, usize) {
    match scale {
        Scale::Full => (256, 100, 256),
        Scale::Small => (6, 5, 7),
    }
}

pub(crate) fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    let (batch, input, hidden) = sizes(scale);
    sized(batch, input, hidden)
}

/// The inputs at a batch and layer sizes (the scaling sweep's too).
pub(crate) fn sized(batch: usize, input: usize, hidden: usize) -> Result<Vec<(String, Array)>> {
    let mut rng = Rng::for_group("per_sample");
    let arrays = vec![
        rng.normal_f32(&[input, hidden], 1.0 / (input as f64).sqrt())?,
        rng.normal_f32(&[hidden], 0.1)?,
        rng.normal_f32(&[hidden, 1], 1.0 / (hidden as f64).sqrt())?,
        rng.normal_f32(&[1], 0.1)?,
        rng.normal_f32(&[batch, input], 1.0)?,
        rng.normal_f32(&[batch], 1.0)?,
    ];
    Ok(STEMS.iter().map(|s| s.to_string()).zip(arrays).collect())
}

/// The squared error of one example: `v` = [W1, b1, W2, b2, x (a row), y (a scalar)].
pub(crate) fn loss(v: &[Tensor]) -> Tensor {
    let hidden = (v[4].matmul(&v[0]) + &v[1]).tanh();
    let prediction = hidden.matmul(&v[2]) + &v[3];
    (prediction - &v[5]).powi(2).sum_all()
}

pub(crate) fn program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let g = grad(|v: Vec<Tensor>| loss(&v));
        let per_example =
            vmap(|v: Vec<Tensor>| g.apply(&v)[..4].to_vec()).in_axes(&[None, None, None, None, Some(0), Some(0)]);
        per_example.apply::<Vec<Tensor>, Vec<Tensor>>(&args)
    })
}

pub(crate) fn workloads() -> Vec<Workload> {
    vec![Workload {
        name: "per_sample_grads",
        id: "W4",
        program,
        args: |inputs| load(inputs, &STEMS),
        calls: 50,
        reductions: &[],
        mixed: false,
    }]
}
