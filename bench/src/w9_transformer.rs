//! W9 `transformer_grad`: one pre-LayerNorm decoder block, `h = x + attn(ln1(x))`,
//! `out = h + W2·gelu(W1·ln2(h) + b1) + b2`, with causal self-attention of 4 heads,
//! d_model 256, an MLP of 1024 with GELU in its tanh approximation (JAX's default),
//! over a batch of 8 sequences of 128 positions, f32; loss `mean((out - y)²)`;
//! `jit(value_and_grad)` with respect to every parameter. Written with `ferrax::nn`'s
//! layers (JAX: the same block by hand with `jax.numpy`, flax's conventions: LayerNorm
//! epsilon 1e-6, the query scaled by `1/√head_dim`, projections with biases).
//!
//! The key projection has no bias: a bias on the keys adds the same amount to every
//! logit of a query's row, which the softmax ignores, so its gradient is zero in exact
//! arithmetic and comparing it with JAX's would compare rounding noise.
//!
//! Arguments: `tf_x`, `tf_y` f32[8,128,256], then `ln1_scale`, `ln1_bias` [256], the
//! query, key, value and output kernels [256,256], each but the key's followed by its
//! bias [256], `ln2_scale`, `ln2_bias` [256], `w1` [256,1024], `b1` [1024], `w2`
//! [1024,256], `b2` [256] (all `tf_`-prefixed). Results: the loss, then the 15
//! gradients in the parameters' order.

use crate::Result;
use crate::data::{Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::nn::{
    LayerNorm, LayerNormParams, Linear, LinearParams, MultiHeadAttention, MultiHeadAttentionParams, gelu, mse,
};
use ferrax::{Array, Tensor, value_and_grad};

pub(crate) const STEMS: [&str; 17] = [
    "tf_x",
    "tf_y",
    "tf_ln1_scale",
    "tf_ln1_bias",
    "tf_wq",
    "tf_bq",
    "tf_wk",
    "tf_wv",
    "tf_bv",
    "tf_wo",
    "tf_bo",
    "tf_ln2_scale",
    "tf_ln2_bias",
    "tf_w1",
    "tf_b1",
    "tf_w2",
    "tf_b2",
];

/// Attention heads (at every scale).
const HEADS: usize = 4;

/// (batch, sequence, d_model, mlp) at a scale.
fn sizes(scale: Scale) -> (usize, usize, usize, usize) {
    match scale {
        Scale::Full => (8, 128, 256, 1024),
        Scale::Small => (2, 6, 8, 16),
    }
}

/// The inputs: standard normal `x` and `y`, kernels ~N(0, 1/fan_in), biases
/// ~N(0, 0.02²), LayerNorm scales 1 + N(0, 0.1²) and biases N(0, 0.1²).
pub(crate) fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    let (batch, seq, d, mlp) = sizes(scale);
    let mut rng = Rng::for_group("transformer");
    let mut arrays = vec![rng.normal_f32(&[batch, seq, d], 1.0)?, rng.normal_f32(&[batch, seq, d], 1.0)?];
    let layer_norm = |rng: &mut Rng| -> Result<[Array; 2]> {
        let scale = rng.normal_f32(&[d], 0.1)?;
        let scale = scale.as_f32().unwrap_or_default().iter().map(|v| v + 1.0).collect();
        Ok([Array::from_f32(&[d], scale)?, rng.normal_f32(&[d], 0.1)?])
    };
    let dense = |rng: &mut Rng, fan_in: usize, fan_out: usize| -> Result<[Array; 2]> {
        Ok([rng.normal_f32(&[fan_in, fan_out], 1.0 / (fan_in as f64).sqrt())?, rng.normal_f32(&[fan_out], 0.02)?])
    };
    arrays.extend(layer_norm(&mut rng)?);
    for projection in ["query", "key", "value", "out"] {
        let [kernel, bias] = dense(&mut rng, d, d)?;
        arrays.push(kernel);
        if projection != "key" {
            arrays.push(bias);
        }
    }
    arrays.extend(layer_norm(&mut rng)?);
    arrays.extend(dense(&mut rng, d, mlp)?);
    arrays.extend(dense(&mut rng, mlp, d)?);
    Ok(STEMS.iter().map(|s| s.to_string()).zip(arrays).collect())
}

/// The block's layers for `x`'s d_model and the MLP width of `w1`.
struct Block {
    ln: LayerNorm,
    attention: MultiHeadAttention,
    up: Linear,
    down: Linear,
}

impl Block {
    fn new(d: usize, mlp: usize) -> Block {
        Block {
            ln: LayerNorm::new(d),
            attention: MultiHeadAttention::new(d, HEADS).with_causal(true),
            up: Linear::new(d, mlp),
            down: Linear::new(mlp, d),
        }
    }

    /// The block applied to `x`; `p` = the 15 parameters in [`STEMS`]' order.
    fn apply(&self, p: &[Tensor], x: &Tensor) -> Tensor {
        let norm = |s: &Tensor, b: &Tensor| LayerNormParams { scale: Some(s.clone()), bias: Some(b.clone()) };
        let dense = |w: &Tensor, b: &Tensor| LinearParams { kernel: w.clone(), bias: Some(b.clone()) };
        let attention = MultiHeadAttentionParams {
            query: dense(&p[2], &p[3]),
            key: LinearParams { kernel: p[4].clone(), bias: None },
            value: dense(&p[5], &p[6]),
            out: dense(&p[7], &p[8]),
        };
        let h = x + self.attention.apply(&attention, &self.ln.apply(&norm(&p[0], &p[1]), x), None);
        let hidden = gelu(&self.up.apply(&dense(&p[11], &p[12]), &self.ln.apply(&norm(&p[9], &p[10]), &h)), true);
        &h + self.down.apply(&dense(&p[13], &p[14]), &hidden)
    }
}

fn program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let (x, y) = (&args[0], &args[1]);
        let params = args[2..].to_vec();
        let block = Block::new(x.shape()[2], params[11].shape()[1]);
        let loss = |p: Vec<Tensor>| mse(&block.apply(&p, x), y);
        let (value, grads) = value_and_grad(loss).apply(&params);
        std::iter::once(value).chain(grads).collect()
    })
}

pub(crate) fn workloads() -> Vec<Workload> {
    vec![Workload {
        name: "transformer_grad",
        id: "W9",
        program,
        args: |inputs| load(inputs, &STEMS),
        calls: 20,
        reductions: &[0],
        mixed: false,
    }]
}
