//! `ferrax::nn`'s layers and functions against JAX: values and gradients from the
//! committed fixture `fixtures/nn_layers.txt` (made by `fixtures/make_nn_fixture.py`,
//! which writes the layers by hand in jax.numpy as flax computes them), all in f64.
//! Inputs are `det(shape, phase, scale, offset)` on both sides and every objective is
//! `wsum(out, phase)`, so only the results are stored.

use ferrax::nn::{
    BatchNorm, BatchNormParams, BatchNormState, Embedding, EmbeddingParams, Layer, LayerNorm, LayerNormParams, Linear,
    LinearParams, MultiHeadAttention, MultiHeadAttentionParams, gelu, masked_softmax, mse, silu, sparse_cross_entropy,
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

/// The directional derivative of the scalar `f` at `args` along fixed directions, by
/// central differences in f64, against the gradient's inner product with them.
fn finite_differences(name: &str, args: Vec<Array>, f: impl Fn(&[Tensor]) -> Tensor + Copy) {
    let g = grad(|a: Vec<Tensor>| f(&a)).call(&args).unwrap();
    let dirs: Vec<Vec<f64>> =
        args.iter().enumerate().map(|(k, a)| det(a.shape(), 3.1 + k as f64, 1.0, 0.0).to_f64_vec()).collect();
    let h = 1e-6;
    let at = |sign: f64| -> f64 {
        let moved: Vec<Array> = args
            .iter()
            .zip(&dirs)
            .map(|(a, d)| {
                let values = a.to_f64_vec().iter().zip(d).map(|(x, d)| x + sign * h * d).collect();
                Array::from_f64(a.shape(), values).unwrap()
            })
            .collect();
        eval(|a: Vec<Tensor>| f(&a), &moved).unwrap().to_f64_vec()[0]
    };
    let numeric = (at(1.0) - at(-1.0)) / (2.0 * h);
    let analytic: f64 =
        g.iter().zip(&dirs).map(|(g, d)| g.to_f64_vec().iter().zip(d).map(|(a, b)| a * b).sum::<f64>()).sum();
    assert!(
        (numeric - analytic).abs() <= 1e-7 * (1.0 + analytic.abs()),
        "{name}: {numeric} by differences, {analytic} by grad"
    );
}

#[test]
fn gradients_match_finite_differences() {
    let x = det(&[7], 0.2, 3.0, 0.0);
    finite_differences("gelu_tanh", vec![x.clone()], |a| wsum(&gelu(&a[0], true), 0.1));
    finite_differences("gelu_exact", vec![x.clone()], |a| wsum(&gelu(&a[0], false), 0.1));
    finite_differences("silu", vec![x], |a| wsum(&silu(&a[0]), 0.1));
    let labels = Array::from_i32(&[3], vec![1, 4, 0]).unwrap();
    finite_differences("sparse_cross_entropy", vec![det(&[3, 5], 0.3, 2.0, 0.0)], |a| {
        sparse_cross_entropy(&a[0], &Tensor::constant(&labels))
    });
    let ln = LayerNorm::new(6);
    let args = vec![det(&[3, 6], 0.8, 2.0, 50.0), det(&[6], 0.9, 0.3, 1.0), det(&[6], 1.0, 0.2, 0.0)];
    finite_differences("layer_norm", args, |a| {
        wsum(&ln.apply(&LayerNormParams { scale: Some(a[1].clone()), bias: Some(a[2].clone()) }, &a[0]), 0.3)
    });
    let bn = BatchNorm::new(3);
    let args = vec![det(&[4, 3], 1.1, 2.0, 1.0), det(&[3], 1.2, 0.3, 1.0), det(&[3], 1.3, 0.2, 0.0)];
    finite_differences("batch_norm", args, |a| {
        let p = BatchNormParams { scale: a[1].clone(), bias: a[2].clone() };
        let s = BatchNormState { mean: a[1].zeros_like(), var: a[1].ones_like() };
        wsum(&bn.apply_train(&p, &s, &a[0]).0, 0.5)
    });
    let mut args = vec![det(&[2, 5, 8], 1.7, 1.0, 0.0)];
    args.extend(attention_args(8, 1.8));
    let attention = MultiHeadAttention::new(8, 2).with_causal(true);
    finite_differences("attention", args, |a| wsum(&attention.apply(&attention_params(&a[1..]), &a[0], None), 0.8));
}

#[test]
fn the_causal_mask_stops_gradient_from_future_positions() {
    let (length, d) = (6, 8);
    let layer = MultiHeadAttention::new(d, 2).with_causal(true);
    let key = ferrax::random::key(3);
    let params =
        ferrax::tree_map(&layer.init(&key).unwrap(), |a: &Array| eval(|t: Tensor| t.cast(DType::F64), a).unwrap());
    let x = det(&[1, length, d], 0.4, 1.0, 0.0);
    for t in 0..length {
        // d (weighted out[t]) / d x, through the interpreter and through the JIT.
        let f = |x: Tensor| {
            wsum(&layer.apply(&params_tensors(&params), &x, None).slice(&[ferrax::s(..), ferrax::i(t as i64)]), 0.2)
        };
        let interpreted = grad(f).call(&x).unwrap().to_f64_vec();
        let compiled = ferrax::jit(grad(f)).call(&x).unwrap().to_f64_vec();
        for g in [interpreted, compiled] {
            for s in 0..length {
                let row = &g[s * d..(s + 1) * d];
                if s > t {
                    assert!(row.iter().all(|&v| v == 0.0), "out[{t}] has gradient {row:?} from x[{s}]");
                } else {
                    assert!(row.iter().any(|&v| v != 0.0), "out[{t}] has no gradient from x[{s}]");
                }
            }
        }
    }
}

/// Host parameters as constants of the current trace.
fn params_tensors(p: &MultiHeadAttentionParams<Array>) -> MultiHeadAttentionParams<Tensor> {
    ferrax::tree_map(p, Tensor::constant)
}

#[test]
fn fully_masked_rows_give_zeros_and_finite_gradients() {
    let logits = det(&[2, 3], 0.1, 5.0, 0.0);
    let mask = Array::from_bool(&[2, 3], vec![false, false, false, true, false, true]).unwrap();
    let f = |z: Tensor| masked_softmax(&z, &Tensor::constant(&mask), 1);
    let p = eval(f, &logits).unwrap().to_f64_vec();
    assert_eq!(&p[..3], &[0.0, 0.0, 0.0]);
    assert!((p[3] + p[5] - 1.0).abs() < 1e-15 && p[4] == 0.0);
    let g = grad(|z: Tensor| wsum(&f(z), 0.3)).call(&logits).unwrap().to_f64_vec();
    assert!(g.iter().all(|v| v.is_finite()), "{g:?}");
    assert_eq!(&g[..3], &[0.0, 0.0, 0.0]);
    // In a layer: a query allowed no key gets the output projection's bias alone.
    let layer = MultiHeadAttention::new(4, 2);
    let params = layer.init(&ferrax::random::key(1)).unwrap();
    let x = Array::from_f32(&[3, 4], (0..12).map(|i| (i as f32 * 0.37).sin()).collect()).unwrap();
    let none = Array::from_bool(&[3, 3], vec![false; 9]).unwrap();
    let out = eval(
        |(p, x): (MultiHeadAttentionParams<Tensor>, Tensor)| layer.apply(&p, &x, Some(&Tensor::constant(&none))),
        &(params.clone(), x),
    )
    .unwrap();
    let bias = params.out.bias.unwrap().to_f64_vec();
    assert_eq!(out.to_f64_vec(), [bias.clone(), bias.clone(), bias].concat());
}

#[test]
fn layer_norm_is_stable_for_a_large_mean_in_f32() {
    // E[x²] - E[x]² loses every digit here in f32 (x² ≈ 1e8, spread² ≈ 1e-4).
    let spread = [0.01, -0.02, 0.015, -0.005];
    let x: Vec<f32> = spread.iter().map(|s| 1e4 + s).collect();
    let xs: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    let mean = xs.iter().sum::<f64>() / 4.0;
    let var = xs.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 4.0;
    let ln = LayerNorm { use_scale: false, use_bias: false, ..LayerNorm::new(4) };
    let y = eval(
        |x: Tensor| ln.apply(&LayerNormParams { scale: None, bias: None }, &x),
        &Array::from_f32(&[4], x).unwrap(),
    )
    .unwrap()
    .to_f64_vec();
    for (y, v) in y.iter().zip(&xs) {
        let want = (v - mean) / (var + 1e-6).sqrt();
        assert!((y - want).abs() < 1e-3, "{y} against {want}");
    }
}

#[test]
fn initialisers_have_their_variances_and_bounds() {
    use ferrax::nn::Init;
    let (fan_in, fan_out) = (200usize, 300usize);
    let cases = [
        (Init::LecunNormal, 1.0 / fan_in as f64, true),
        (Init::LecunUniform, 1.0 / fan_in as f64, false),
        (Init::HeNormal, 2.0 / fan_in as f64, true),
        (Init::HeUniform, 2.0 / fan_in as f64, false),
        (Init::GlorotNormal, 2.0 / (fan_in + fan_out) as f64, true),
        (Init::GlorotUniform, 2.0 / (fan_in + fan_out) as f64, false),
    ];
    for (k, (init, variance, truncated)) in cases.into_iter().enumerate() {
        let key = ferrax::random::key(k as u64);
        let w = eval(|k: Tensor| init.sample(&k, &[fan_in, fan_out], DType::F32), &key).unwrap().to_f64_vec();
        let n = w.len() as f64;
        let mean = w.iter().sum::<f64>() / n;
        let var = w.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        assert!((var / variance - 1.0).abs() < 0.03, "{init:?}: variance {var}, expected {variance}");
        let bound = if truncated { 2.0 * variance.sqrt() / 0.879_625_661 } else { (3.0 * variance).sqrt() };
        let largest = w.iter().fold(0f64, |m, v| m.max(v.abs()));
        assert!(
            largest <= bound * (1.0 + 1e-6) && largest > 0.95 * bound,
            "{init:?}: largest {largest}, bound {bound}"
        );
    }
}

#[test]
fn a_sequential_model_trains_with_adam_under_jit() {
    use ferrax::nn::{Activation, Context, Dropout, Sequential};
    use ferrax::optim::{Adam, AdamState};
    // Learn id -> (id + 1) mod 5 through an embedding, a hidden layer and dropout.
    let model =
        Sequential((Embedding::new(5, 8), Linear::new(8, 16), Activation::Gelu, Dropout::new(0.1), Linear::new(16, 5)));
    let params = model.init(&ferrax::random::key(0)).unwrap();
    assert_eq!(
        ferrax::tree_structure(&params),
        "(EmbeddingParams { embedding: * }, LinearParams { kernel: *, bias: Some(*) }, (), (), \
         LinearParams { kernel: *, bias: Some(*) })"
    );
    assert_eq!(params.4.kernel.shape(), [16, 5]);
    type P = <Sequential<(Embedding, Linear, Activation, Dropout, Linear)> as Layer>::Params<Tensor>;
    let ids = Array::from_i32(&[5], (0..5).collect()).unwrap();
    let labels = Array::from_i32(&[5], (0..5).map(|i| (i + 1) % 5).collect()).unwrap();
    let adam = Adam::new(0.05);
    let step = ferrax::jit(|(p, s, key): (P, AdamState<P, Tensor>, Tensor)| {
        let loss = |p: P| {
            let mut ctx = Context::train(&key);
            sparse_cross_entropy(&model.forward(&p, &Tensor::constant(&ids), &mut ctx), &Tensor::constant(&labels))
        };
        let (value, g) = value_and_grad(loss).apply(&p);
        let (p, s) = adam.update(&g, &s, &p);
        (value, p, s)
    });
    let (mut p, mut s) = (params.clone(), adam.init(&params).unwrap());
    let keys = ferrax::random::split(&ferrax::random::key(9), 60).unwrap();
    let mut losses = Vec::new();
    for key in keys {
        let (value, p2, s2) = step.call(&(p, s, key)).unwrap();
        (p, s) = (p2, s2);
        losses.push(value.to_f64_vec()[0]);
    }
    assert!(losses[59] < 0.1 * losses[0], "{losses:?}");
    // Inference: deterministic, dropout off, every prediction right.
    let predict = |p: P| model.forward(&p, &Tensor::constant(&ids), &mut Context::eval()).argmax(1);
    assert_eq!(eval(predict, &p).unwrap().as_i32().unwrap(), &[1, 2, 3, 4, 0]);
    // Training mode without a key is an error at the call.
    let mut keyless = Context::eval();
    keyless.train = true;
    let err = eval(|p: P| model.forward(&p, &Tensor::constant(&ids), &mut keyless.clone()), &p);
    assert!(err.unwrap_err().to_string().contains("nn::Dropout: training needs a PRNG key"));
}

#[test]
fn a_wrong_feature_count_is_an_error_naming_both_sizes() {
    let layer = Linear::new(4, 2);
    let params = layer.init(&ferrax::random::key(0)).unwrap();
    let x = Array::from_f32(&[2, 3], vec![0.0; 6]).unwrap();
    let err = eval(|(p, x): (LinearParams<Tensor>, Tensor)| layer.apply(&p, &x), &(params, x)).unwrap_err().to_string();
    assert!(err.contains("nn::Linear: input f32[2,3] must have 4 features"), "{err}");
    assert!(err.contains("nn_layers.rs"), "{err}");
}
