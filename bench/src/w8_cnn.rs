//! W8 `cnn_grad`: a small convolutional network on 32×32×3 images, NHWC, batch 64, f32:
//! conv 3×3 (32 features, SAME) - relu - max pool 2×2 - conv 3×3 (64, SAME) - relu -
//! max pool 2×2 - dense (10), mean softmax cross-entropy; `jit` of the value and the
//! gradient with respect to every weight and bias (JAX: the same with
//! `lax.conv_general_dilated` and `lax.reduce_window`).
//!
//! Arguments: `x` f32[64,32,32,3], one-hot `y` f32[64,10], then the kernels (HWIO) and
//! biases W1[3,3,3,32], b1[32], W2[3,3,32,64], b2[64], W3[4096,10], b3[10]. Results: the
//! loss, then the six gradients.

use crate::Result;
use crate::data::{Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::lax::{ConvSpec, Padding, conv_general_dilated, max_pool};
use ferrax::nn::cross_entropy;
use ferrax::{Array, Tensor, grad};

pub(crate) const STEMS: [&str; 8] = ["cnn_x", "cnn_y", "cnn_w1", "cnn_b1", "cnn_w2", "cnn_b2", "cnn_w3", "cnn_b3"];

/// (batch, image side, channels, features of the two convolutions, classes) at a scale.
fn sizes(scale: Scale) -> (usize, usize, usize, [usize; 2], usize) {
    match scale {
        Scale::Full => (64, 32, 3, [32, 64], 10),
        Scale::Small => (2, 8, 3, [4, 6], 10),
    }
}

/// The inputs: standard normal images, one-hot labels, kernels ~N(0, 1/fan_in) (He-like
/// scale without the 2), biases ~N(0, 0.01).
pub(crate) fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    let (batch, side, channels, [f1, f2], classes) = sizes(scale);
    let mut rng = Rng::for_group("cnn");
    let x = rng.normal_f32(&[batch, side, side, channels], 1.0)?;
    let y = rng.one_hot_f32(batch, classes)?;
    let flat = (side / 4) * (side / 4) * f2;
    let w1 = rng.normal_f32(&[3, 3, channels, f1], 1.0 / ((9 * channels) as f64).sqrt())?;
    let b1 = rng.normal_f32(&[f1], 0.1)?;
    let w2 = rng.normal_f32(&[3, 3, f1, f2], 1.0 / ((9 * f1) as f64).sqrt())?;
    let b2 = rng.normal_f32(&[f2], 0.1)?;
    let w3 = rng.normal_f32(&[flat, classes], 1.0 / (flat as f64).sqrt())?;
    let b3 = rng.normal_f32(&[classes], 0.1)?;
    let arrays = [x, y, w1, b1, w2, b2, w3, b3];
    Ok(STEMS.iter().map(|s| s.to_string()).zip(arrays).collect())
}

/// conv 3×3 SAME + bias, relu, max pool 2×2 stride 2 (NHWC, HWIO).
fn block(x: &Tensor, w: &Tensor, b: &Tensor) -> Tensor {
    let spec = ConvSpec::new().padding(Padding::Same).layout("NHWC", "HWIO", "NHWC");
    let h = (conv_general_dilated(x, w, &spec) + b).relu();
    max_pool(&h, &[2, 2], &[2, 2], Padding::Valid)
}

/// The logits of the network; `p` = [W1, b1, W2, b2, W3, b3].
fn logits(p: &[Tensor], x: &Tensor) -> Tensor {
    let h = block(&block(x, &p[0], &p[1]), &p[2], &p[3]);
    let flat: usize = h.shape()[1..].iter().product();
    h.reshape(&[h.shape()[0], flat]).matmul(&p[4]) + &p[5]
}

/// `jit(value_and_grad(loss))` with respect to the six parameters.
fn program() -> Program {
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
        name: "cnn_grad",
        id: "W8",
        program,
        args: |inputs| load(inputs, &STEMS),
        calls: 20,
        reductions: &[0],
        mixed: false,
    }]
}
