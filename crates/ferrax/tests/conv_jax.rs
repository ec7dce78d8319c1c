//! Values and gradients of `ferrax::lax::conv_general_dilated` against JAX's
//! `lax.conv_general_dilated`, from the committed fixture `fixtures/jax_conv.txt` (made
//! by `fixtures/make_jax_conv.py`): SAME, SAME_LOWER, VALID and explicit (negative)
//! padding, strides, input and kernel dilation, feature groups (depthwise), batch
//! groups, 1 to 3 spatial axes, permuted and default layouts. Each case runs through
//! the interpreter (values, and the gradient of a weighted sum) and through the JIT.

use ferrax::lax::{ConvSpec, Padding, conv_general_dilated};
use ferrax::{Array, Tensor, eval, grad, jit};
use std::collections::HashMap;

const FIXTURE: &str = include_str!("fixtures/jax_conv.txt");

/// The fixture's cases, each a map from key to the rest of its line.
fn cases() -> Vec<HashMap<String, String>> {
    let mut out: Vec<HashMap<String, String>> = Vec::new();
    for line in FIXTURE.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        if key == "case" {
            out.push(HashMap::new());
        }
        out.last_mut().expect("a case line first").insert(key.to_string(), rest.to_string());
    }
    out
}

fn numbers<T: std::str::FromStr>(text: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    text.split([' ', ',']).filter(|t| !t.is_empty()).map(|t| t.parse().unwrap()).collect()
}

/// `f(scale·i + phase)` over the elements of `shape`, as the script's `values`.
fn values(shape: &[usize], scale: f64, phase: f64, f: fn(f64) -> f64) -> Array {
    let n: usize = shape.iter().product();
    Array::from_f64(shape, (0..n).map(|i| f(i as f64 * scale + phase)).collect()).unwrap()
}

fn spec(case: &HashMap<String, String>) -> ConvSpec {
    let padding = match case["padding"].as_str() {
        "SAME" => Padding::Same,
        "SAME_LOWER" => Padding::SameLower,
        "VALID" => Padding::Valid,
        pairs => Padding::Explicit(
            pairs
                .split(' ')
                .map(|p| {
                    let (lo, hi) = p.split_once(':').unwrap();
                    (lo.parse().unwrap(), hi.parse().unwrap())
                })
                .collect(),
        ),
    };
    let groups: Vec<usize> = numbers(&case["groups"]);
    let mut spec = ConvSpec::new()
        .strides(&numbers::<usize>(&case["strides"]))
        .padding(padding)
        .lhs_dilation(&numbers::<usize>(&case["lhs_dilation"]))
        .rhs_dilation(&numbers::<usize>(&case["rhs_dilation"]))
        .feature_groups(groups[0])
        .batch_groups(groups[1]);
    if case["layout"] != "default" {
        let dn: Vec<&str> = case["layout"].split(' ').collect();
        spec = spec.layout(dn[0], dn[1], dn[2]);
    }
    spec
}

fn close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: {} elements vs JAX's {}", got.len(), want.len());
    let scale = want.iter().fold(1.0f64, |s, w| s.max(w.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= 1e-12 * scale, "{what}: [{i}] {g} vs JAX {w}");
    }
}

#[test]
fn values_and_gradients_match_jax() {
    let cases = cases();
    assert_eq!(cases.len(), 16);
    for case in &cases {
        let name = &case["case"];
        let spec = spec(case);
        let lhs = values(&numbers::<usize>(&case["lhs_shape"]), 0.37, 0.1, f64::sin);
        let rhs = values(&numbers::<usize>(&case["rhs_shape"]), 0.53, 0.2, f64::cos);
        let out_shape: Vec<usize> = numbers(&case["out_shape"]);
        let weights = values(&out_shape, 0.7, 0.3, f64::sin);
        let conv = |[x, w]: [Tensor; 2]| conv_general_dilated(&x, &w, &spec);
        let out: Array = eval(conv, &[lhs.clone(), rhs.clone()]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out.shape(), out_shape.as_slice(), "{name}");
        close(&format!("{name}: value"), &out.to_f64_vec(), &numbers::<f64>(&case["out"]));
        let jitted: Array = jit(conv).call(&[lhs.clone(), rhs.clone()]).unwrap_or_else(|e| panic!("{name}: {e}"));
        close(&format!("{name}: jit value"), &jitted.to_f64_vec(), &numbers::<f64>(&case["out"]));
        let loss = |[x, w]: [Tensor; 2]| (&conv_general_dilated(&x, &w, &spec) * &Tensor::constant(&weights)).sum_all();
        let [gl, gr] = grad(loss).call(&[lhs.clone(), rhs.clone()]).unwrap_or_else(|e| panic!("{name}: {e}"));
        close(&format!("{name}: gradient of the input"), &gl.to_f64_vec(), &numbers::<f64>(&case["grad_lhs"]));
        close(&format!("{name}: gradient of the kernel"), &gr.to_f64_vec(), &numbers::<f64>(&case["grad_rhs"]));
        let [jl, jr] = jit(grad(loss)).call(&[lhs, rhs]).unwrap_or_else(|e| panic!("{name}: {e}"));
        close(&format!("{name}: jit gradient of the input"), &jl.to_f64_vec(), &numbers::<f64>(&case["grad_lhs"]));
        close(&format!("{name}: jit gradient of the kernel"), &jr.to_f64_vec(), &numbers::<f64>(&case["grad_rhs"]));
    }
}

#[test]
fn mistakes_are_reported_at_the_callers_line() {
    let spec = ConvSpec::new().layout("NHWC", "HWIO", "NHWC");
    let x = Array::from_f64(&[1, 4, 4, 3], vec![0.0; 48]).unwrap();
    let w = Array::from_f64(&[3, 3, 2, 8], vec![0.0; 144]).unwrap();
    let err = eval(|[x, w]: [Tensor; 2]| conv_general_dilated(&x, &w, &spec), &[x, w]).unwrap_err().to_string();
    assert!(err.contains("conv_jax.rs"), "{err}");
    assert!(err.contains("3 input features") && err.contains("2 input features"), "{err}");
    let bad = ConvSpec::new().padding(Padding::Same).layout("NHWC", "HWIO", "NHWQ");
    let x = Array::from_f64(&[1, 4, 4, 3], vec![0.0; 48]).unwrap();
    let w = Array::from_f64(&[3, 3, 3, 8], vec![0.0; 216]).unwrap();
    let err = eval(|[x, w]: [Tensor; 2]| conv_general_dilated(&x, &w, &bad), &[x, w]).unwrap_err().to_string();
    assert!(err.contains("out layout \"NHWQ\""), "{err}");
}
