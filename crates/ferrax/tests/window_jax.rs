//! Values and gradients of `ferrax::lax::reduce_window`, `max_pool` and `avg_pool`
//! against JAX's `lax.reduce_window` and flax's `max_pool`/`avg_pool`, from the
//! committed fixture `fixtures/jax_windows.txt` (made by
//! `fixtures/make_jax_windows.py`, whose lines carry each case's configuration: the
//! same input formula and weighted sum on both sides).

use ferrax::lax::{Padding, WindowReduce, WindowSpec, avg_pool, max_pool, reduce_window};
use ferrax::{Array, Tensor, value_and_grad};
use std::collections::HashMap;

const FIXTURE: &str = include_str!("fixtures/jax_windows.txt");

struct Case {
    name: String,
    keys: HashMap<String, String>,
    value: Vec<f64>,
    grad: Vec<f64>,
}

fn numbers(text: &str) -> Vec<f64> {
    text.split(',').filter(|t| !t.is_empty()).map(|t| t.parse().unwrap()).collect()
}

fn cases() -> Vec<Case> {
    FIXTURE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let parts: Vec<&str> = line.split(" | ").collect();
            let mut head = parts[0].split(' ');
            let name = head.next().unwrap().to_string();
            let keys =
                head.map(|kv| kv.split_once('=').unwrap()).map(|(k, v)| (k.to_string(), v.to_string())).collect();
            let value = numbers(parts[1].strip_prefix("value ").unwrap());
            let grad = numbers(parts[2].strip_prefix("grad ").unwrap());
            Case { name, keys, value, grad }
        })
        .collect()
}

fn usizes(text: &str) -> Vec<usize> {
    text.split(',').map(|t| t.parse().unwrap()).collect()
}

fn padding(text: &str) -> Padding {
    match text {
        "SAME" => Padding::Same,
        "VALID" => Padding::Valid,
        pairs => Padding::Explicit(
            pairs
                .split('/')
                .map(|p| {
                    let (lo, hi) = p.split_once(':').unwrap();
                    (lo.parse().unwrap(), hi.parse().unwrap())
                })
                .collect(),
        ),
    }
}

/// The script's input: `sin(1.3·i + 0.4) + 0.001·i`.
fn input(shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    Array::from_f64(shape, (0..n).map(|i| (1.3 * i as f64 + 0.4).sin() + 0.001 * i as f64).collect()).unwrap()
}

/// The script's objective: `Σ_j cos(0.7·j + 0.2)·y_j`.
fn weighted(y: &Tensor) -> Tensor {
    let n: usize = y.shape().iter().product();
    let w = Array::from_f64(y.shape(), (0..n).map(|j| (0.7 * j as f64 + 0.2).cos()).collect()).unwrap();
    (&Tensor::constant(&w) * y).sum_all()
}

fn apply(keys: &HashMap<String, String>, x: &Tensor) -> Tensor {
    let k = |name: &str| keys[name].as_str();
    let window = usizes(k("window"));
    let strides = usizes(k("strides"));
    match k("fn") {
        "reduce_window" => {
            let (op, init) = match k("op") {
                "sum" => (WindowReduce::Sum, 0.0),
                "max" => (WindowReduce::Max, f64::NEG_INFINITY),
                _ => (WindowReduce::Min, f64::INFINITY),
            };
            let spec = WindowSpec::new(&window)
                .strides(&strides)
                .padding(padding(k("padding")))
                .base_dilation(&usizes(k("base")))
                .window_dilation(&usizes(k("wdil")));
            reduce_window(x, init, op, &spec)
        }
        "max_pool" => max_pool(x, &window, &strides, padding(k("padding"))),
        _ => avg_pool(x, &window, &strides, padding(k("padding")), k("count_include_pad") == "1"),
    }
}

fn close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: {} elements, JAX has {}", got.len(), want.len());
    let scale = want.iter().fold(1.0f64, |s, w| s.max(w.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= 1e-12 * scale, "{what}[{i}]: {g} vs JAX {w}");
    }
}

#[test]
fn values_and_gradients_match_jax() {
    let cases = cases();
    for case in &cases {
        let x = input(&usizes(&case.keys["shape"]));
        let keys = case.keys.clone();
        let value = ferrax::eval(|x: Tensor| apply(&keys, &x), &x).unwrap();
        close(&format!("{} value", case.name), &value.to_f64_vec(), &case.value);
        let (_, grad) = value_and_grad(|x: Tensor| weighted(&apply(&keys, &x))).call(&x).unwrap();
        close(&format!("{} grad", case.name), &grad.to_f64_vec(), &case.grad);
    }
    assert_eq!(cases.len(), 21);
}
