//! `ferrax::nn`'s layers and functions against JAX: values and gradients from the
//! committed fixture `fixtures/nn_layers.txt` (made by `fixtures/make_nn_fixture.py`,
//! which writes the layers by hand in jax.numpy as flax computes them), all in f64.
//! Inputs are `det(shape, phase, scale, offset)` on both sides and every objective is
//! `wsum(out, phase)`, so only the results are stored.

use ferrax::nn::{
    BatchNorm, BatchNormParams, BatchNormState, Embedding, EmbeddingParams, LayerNorm, LayerNormParams, Linear,
    LinearParams, MultiHeadAttention, MultiHeadAttentionParams, gelu, masked_softmax, mse, silu,
    sparse_cross_entropy,
};
use ferrax::{Array, DType, Tensor, eval, grad, value_and_grad};

const FIXTURE: &str = include_str!("fixtures/nn_layers.txt");

/// The fixture's row `name`.
fn row(name: &str) -> Vec<f64> {
    let line = FIXTURE
        .lines()
        .find(|l| l.split_once(' ').is_some_and(|(n, _)| n == name))
        .unwrap_or_else(|| panic!("no row {name} in the fixture"));
    let (_, rest) = line.split_once(' ').unwrap();
    rest.split([' ', ',']).filter(|t| !t.is_empty()).map(|t| t.parse().unwrap()).collect()
}

/// `sin(0.7 i + phase) * scale + offset` over `shape`, as the script's `det`.
fn det(shape: &[usize], phase: f64, scale: f64, offset: f64) -> Array {
    let n: usize = shape.iter().product();
    Array::from_f64(shape, (0..n).map(|i| (i as f64 * 0.7 + phase).sin() * scale + offset).collect()).unwrap()
}

/// `Σ sin(0.3 i + phase) y_i`, as the script's `wsum`.
fn wsum(y: &Tensor, phase: f64) -> Tensor {
    let n: usize = y.shape().iter().product();
    let w = Array::from_f64(y.shape(), (0..n).map(|i| (i as f64 * 0.3 + phase).sin()).collect()).unwrap();
    (Tensor::constant(&w) * y).sum_all()
}

#[track_caller]
fn assert_row(name: &str, got: &Array) {
    let want = row(name);
    let got = got.to_f64_vec();
    assert_eq!(got.len(), want.len(), "{name}: {} values against JAX's {}", got.len(), want.len());
    // Gradients that are zero in exact arithmetic (the key bias's, which shifts every
    // logit of a row alike) are rounding noise on both sides: the 1e-14 floor.
    let scale = want.iter().fold(0f64, |m, v| m.max(v.abs()));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() <= 1e-10 * w.abs() + 1e-12 * scale + 1e-14, "{name}[{i}]: {g} against JAX's {w}");
    }
}

/// `f(args)` and the gradients of `wsum(f(args), phase)` against the rows
/// `name/out` and `name/grad{i}`.
fn check(name: &str, args: Vec<Array>, phase: f64, f: impl Fn(&[Tensor]) -> Tensor + Copy) {
    let out = eval(|a: Vec<Tensor>| f(&a), &args).unwrap();
    assert_row(&format!("{name}/out"), &out);
    let grads = grad(|a: Vec<Tensor>| wsum(&f(&a), phase)).call(&args).unwrap();
    for (i, g) in grads.iter().enumerate() {
        assert_row(&format!("{name}/grad{i}"), g);
    }
}

fn dense(w: &Tensor, b: &Tensor) -> LinearParams<Tensor> {
    LinearParams { kernel: w.clone(), bias: Some(b.clone()) }
}

fn attention_params(p: &[Tensor]) -> MultiHeadAttentionParams<Tensor> {
    MultiHeadAttentionParams {
        query: dense(&p[0], &p[1]),
        key: dense(&p[2], &p[3]),
        value: dense(&p[4], &p[5]),
        out: dense(&p[6], &p[7]),
    }
}

/// The script's `attention_params(d, phase)`: four kernels and biases.
fn attention_args(d: usize, phase: f64) -> Vec<Array> {
    (0..4)
        .flat_map(|i| {
            let i = f64::from(i);
            [det(&[d, d], phase + i, 1.0 / (d as f64).sqrt(), 0.0), det(&[d], phase + i + 0.5, 0.1, 0.0)]
        })
        .collect()
}

#[test]
fn activations_match_jax() {
    let x = det(&[7], 0.2, 3.0, 0.0);
    check("gelu_tanh", vec![x.clone()], 0.1, |a| gelu(&a[0], true));
    check("gelu_exact", vec![x.clone()], 0.1, |a| gelu(&a[0], false));
    check("silu", vec![x], 0.1, |a| silu(&a[0]));
}

#[test]
fn softmax_forms_and_sparse_cross_entropy_match_jax() {
    let logits = det(&[3, 5], 0.3, 2.0, 0.0);
    let labels = Array::from_i32(&[3], vec![1, 4, 0]).unwrap();
    let loss = |z: Tensor| sparse_cross_entropy(&z, &Tensor::constant(&labels));
    let (value, g) = value_and_grad(loss).call(&logits).unwrap();
    assert_row("sparse_cross_entropy/out", &value);
    assert_row("sparse_cross_entropy/grad0", &g);
    let mask: Vec<bool> = det(&[3, 5], 0.9, 1.0, 0.0).to_f64_vec().iter().map(|&v| v > -0.3).collect();
    let mask = Array::from_bool(&[3, 5], mask).unwrap();
    check("masked_softmax", vec![logits], 0.4, |a| masked_softmax(&a[0], &Tensor::constant(&mask), 1));
}

#[test]
fn linear_matches_jax() {
    let layer = Linear::new(4, 5);
    let args = vec![det(&[2, 3, 4], 0.5, 1.0, 0.0), det(&[4, 5], 0.6, 0.5, 0.0), det(&[5], 0.7, 0.1, 0.0)];
    check("linear", args, 0.2, |a| layer.apply(&dense(&a[1], &a[2]), &a[0]));
}

#[test]
fn layer_norm_matches_jax() {
    let layer = LayerNorm::new(6);
    let args = vec![det(&[3, 6], 0.8, 2.0, 50.0), det(&[6], 0.9, 0.3, 1.0), det(&[6], 1.0, 0.2, 0.0)];
    check("layer_norm", args, 0.3, |a| {
        layer.apply(&LayerNormParams { scale: Some(a[1].clone()), bias: Some(a[2].clone()) }, &a[0])
    });
}

#[test]
fn batch_norm_matches_jax_in_both_modes() {
    let layer = BatchNorm::new(3);
    let args = vec![
        det(&[4, 3], 1.1, 2.0, 1.0),
        det(&[3], 1.2, 0.3, 1.0),
        det(&[3], 1.3, 0.2, 0.0),
        det(&[3], 1.4, 0.5, 0.0),
        det(&[3], 1.5, 0.2, 1.0),
    ];
    let parts = |a: &[Tensor]| {
        (
            BatchNormParams { scale: a[1].clone(), bias: a[2].clone() },
            BatchNormState { mean: a[3].clone(), var: a[4].clone() },
        )
    };
    check("batch_norm_train", args.clone(), 0.5, |a| {
        let (p, s) = parts(a);
        layer.apply_train(&p, &s, &a[0]).0
    });
    let state = eval(
        |a: Vec<Tensor>| {
            let (p, s) = parts(&a);
            let (_, state) = layer.apply_train(&p, &s, &a[0]);
            vec![state.mean, state.var]
        },
        &args,
    )
    .unwrap();
    assert_row("batch_norm_train/mean", &state[0]);
    assert_row("batch_norm_train/var", &state[1]);
    check("batch_norm_eval", args, 0.6, |a| {
        let (p, s) = parts(a);
        layer.apply_eval(&p, &s, &a[0])
    });
}

#[test]
fn embedding_matches_jax() {
    let layer = Embedding::new(7, 4);
    let ids = Array::from_i32(&[2, 3], vec![3, 0, 6, 3, 1, 2]).unwrap();
    check("embedding", vec![det(&[7, 4], 1.6, 1.0, 0.0)], 0.7, |a| {
        layer.apply(&EmbeddingParams { embedding: a[0].clone() }, &Tensor::constant(&ids))
    });
}

#[test]
fn attention_matches_jax_with_and_without_the_causal_mask() {
    let (d, heads) = (8, 2);
    let mut args = vec![det(&[2, 5, d], 1.7, 1.0, 0.0)];
    args.extend(attention_args(d, 1.8));
    for causal in [true, false] {
        let layer = MultiHeadAttention::new(d, heads).with_causal(causal);
        let name = if causal { "attention_causal" } else { "attention" };
        check(name, args.clone(), 0.8, |a| layer.apply(&attention_params(&a[1..]), &a[0], None));
    }
}

/// The fixture's decoder block: pre-LayerNorm, causal attention of 4 heads, tanh-GELU
/// MLP of 16, `p` in the script's leaf order (ln1 scale and bias, the 8 attention
/// arrays, ln2 scale and bias, w1, b1, w2, b2).
fn block(p: &[Tensor], x: &Tensor) -> Tensor {
    let d = x.shape()[2];
    let ln = LayerNorm::new(d);
    let norm = |s: &Tensor, b: &Tensor| LayerNormParams { scale: Some(s.clone()), bias: Some(b.clone()) };
    let attention = MultiHeadAttention::new(d, 4).with_causal(true);
    let h = x + attention.apply(&attention_params(&p[2..10]), &ln.apply(&norm(&p[0], &p[1]), x), None);
    let hidden = gelu(&Linear::new(d, 16).apply(&dense(&p[12], &p[13]), &ln.apply(&norm(&p[10], &p[11]), &h)), true);
    &h + Linear::new(16, d).apply(&dense(&p[14], &p[15]), &hidden)
}

#[test]
fn a_decoder_block_matches_jax() {
    let d = 8;
    let mut p = vec![det(&[d], 2.0, 0.1, 1.0), det(&[d], 2.1, 0.1, 0.0)];
    p.extend(attention_args(d, 2.2));
    p.extend([
        det(&[d], 2.3, 0.1, 1.0),
        det(&[d], 2.4, 0.1, 0.0),
        det(&[d, 16], 2.5, 1.0 / (d as f64).sqrt(), 0.0),
        det(&[16], 2.6, 0.1, 0.0),
        det(&[16, d], 2.7, 0.25, 0.0),
        det(&[d], 2.8, 0.1, 0.0),
    ]);
    let x = det(&[2, 5, d], 1.7, 1.0, 0.0);
    let y = det(&[2, 5, d], 2.9, 1.0, 0.0);
    let loss = |(p, x): (Vec<Tensor>, Tensor)| mse(&block(&p, &x), &Tensor::constant(&y));
    let (value, (gp, gx)) = value_and_grad(loss).call(&(p, x)).unwrap();
    assert_row("block/loss", &value);
    assert_row("block/grad_x", &gx);
    for (i, g) in gp.iter().enumerate() {
        assert_row(&format!("block/grad_p{i}"), g);
    }
    assert_eq!(value.dtype(), DType::F64);
}
