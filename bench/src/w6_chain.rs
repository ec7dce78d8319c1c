//! W6 compile latency: `f(x, ws) = sum(h_50)` with `h_0 = x` f32[64] and
//! `h_i = tanh(h_{i-1} @ W_i)`, 50 weights f32[64,64]; `compile_latency_grad` is the
//! gradient with respect to `x`, `compile_latency_hvp` its jvp along `v` (the HVP with
//! respect to `x`). The figure that matters is compile latency (trace + transform +
//! compile); the calls are timed too.
//!
//! Arguments: `x` f32[64] (and `v` f32[64] for the HVP), then the 50 weights, stored
//! stacked in one file `deep_ws` f32[50,64,64] and split on loading.

use crate::Result;
use crate::data::{Inputs, Rng, Scale, unstack};
use crate::workloads::{Program, Workload};
use ferrax::{Array, Tensor, grad, transforms};

/// (width, layers) at a scale.
fn sizes(scale: Scale) -> (usize, usize) {
    match scale {
        Scale::Full => (64, 50),
        Scale::Small => (8, 5),
    }
}

pub(crate) fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    let (width, layers) = sizes(scale);
    let mut rng = Rng::for_group("deep");
    Ok(vec![
        ("deep_x".into(), rng.normal_f32(&[width], 1.0)?),
        ("deep_v".into(), rng.normal_f32(&[width], 1.0)?),
        ("deep_ws".into(), rng.normal_f32(&[layers, width, width], 1.0 / (width as f64).sqrt())?),
    ])
}

/// The chain: `sum(tanh(... tanh(x @ W_1) ... @ W_n))`.
pub(crate) fn deep(x: &Tensor, ws: &[Tensor]) -> Tensor {
    let mut h = x.clone();
    for w in ws {
        h = h.matmul(w).tanh();
    }
    h.sum_all()
}

fn grad_program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let ws = &args[1..];
        let g = grad(|x: Tensor| deep(&x, ws));
        vec![g.apply(&args[0])]
    })
}

fn hvp_program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let ws = &args[2..];
        vec![transforms::hvp(|x: Tensor| deep(&x, ws)).apply(&args[0], &args[1])]
    })
}

fn with_weights(inputs: &mut Inputs, first: &[&str]) -> Result<Vec<Array>> {
    let mut args: Vec<Array> = first.iter().map(|s| inputs.get(s)).collect::<Result<_>>()?;
    args.extend(unstack(&inputs.get("deep_ws")?)?);
    Ok(args)
}

pub(crate) fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            name: "compile_latency_grad",
            id: "W6",
            program: grad_program,
            args: |inputs| with_weights(inputs, &["deep_x"]),
            calls: 1000,
            reductions: &[],
            mixed: false,
        },
        Workload {
            name: "compile_latency_hvp",
            id: "W6",
            program: hvp_program,
            args: |inputs| with_weights(inputs, &["deep_x", "deep_v"]),
            calls: 1000,
            reductions: &[],
            mixed: false,
        },
    ]
}
