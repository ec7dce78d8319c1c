//! W3: the elementwise chain `sum(tanh(a*b + c) * exp(-a) / (1 + b*b))` over
//! n = 4,000,000 f32: `elementwise_chain` is `jit(f)`, `elementwise_chain_grad` is `jit`
//! of the value and the gradient with respect to `a`, `b` and `c`.
//!
//! Arguments: `a`, `b`, `c` f32[n], standard normal. Results: the value (and the
//! three gradients).

use crate::Result;
use crate::data::{Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::{Array, Tensor, grad};

const STEMS: [&str; 3] = ["chain_a", "chain_b", "chain_c"];

fn size(scale: Scale) -> usize {
    match scale {
        Scale::Full => 4_000_000,
        Scale::Small => 1000,
    }
}

pub(crate) fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    sized(size(scale))
}

/// The inputs at `n` (the scaling sweep's too).
pub(crate) fn sized(n: usize) -> Result<Vec<(String, Array)>> {
    let mut rng = Rng::for_group("chain");
    let mut out = Vec::new();
    for stem in STEMS {
        out.push((stem.to_string(), rng.normal_f32(&[n], 1.0)?));
    }
    Ok(out)
}

/// The chain on `[a, b, c]`.
pub(crate) fn chain(v: &[Tensor]) -> Tensor {
    let (a, b, c) = (&v[0], &v[1], &v[2]);
    ((a * b + c).tanh() * (-a).exp() / (b * b + 1.0f32)).sum_all()
}

pub(crate) fn forward_program() -> Program {
    Box::new(|args: Vec<Tensor>| vec![chain(&args)])
}

pub(crate) fn grad_program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let value = chain(&args);
        let grads = grad(|v: Vec<Tensor>| chain(&v)).apply(&args);
        std::iter::once(value).chain(grads).collect()
    })
}

pub(crate) fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            name: "elementwise_chain",
            id: "W3",
            program: forward_program,
            args: |inputs| load(inputs, &STEMS),
            calls: 30,
            reductions: &[0],
            mixed: false,
        },
        Workload {
            name: "elementwise_chain_grad",
            id: "W3",
            program: grad_program,
            args: |inputs| load(inputs, &STEMS),
            calls: 30,
            reductions: &[0],
            mixed: false,
        },
    ]
}
