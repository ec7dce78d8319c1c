//! W2: the Rosenbrock function of n = 1,000,000 f64 variables,
//! `sum(100 (x[1:] - x[:-1]^2)^2 + (1 - x[:-1])^2)`: `rosenbrock_grad` is `jit(grad f)`,
//! `hvp_rosenbrock` is `jit(jvp(grad f))` (forward over reverse) along `v`.
//!
//! Arguments: `x` f64[n] (uniform in [-1.5, 1.5)), and for the HVP `v` f64[n] (normal).

use crate::Result;
use crate::data::{Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::{Array, Tensor, grad, s, transforms};

fn size(scale: Scale) -> usize {
    match scale {
        Scale::Full => 1_000_000,
        Scale::Small => 64,
    }
}

pub(crate) fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    let n = size(scale);
    let mut rng = Rng::for_group("rosen");
    let x = rng.uniform_f64(&[n], -1.5, 1.5)?;
    let v = rng.normal_f64(&[n])?;
    Ok(vec![("rosen_x".into(), x), ("rosen_v".into(), v)])
}

/// The Rosenbrock function of a vector.
pub(crate) fn rosenbrock(x: &Tensor) -> Tensor {
    let n = x.shape()[0] as i64;
    let head = x.slice(&[s(0..n - 1)]);
    let tail = x.slice(&[s(1..n)]);
    ((tail - head.powi(2)).powi(2) * 100.0f64 + (1.0f64 - head).powi(2)).sum_all()
}

pub(crate) fn grad_program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let g = grad(|x: Tensor| rosenbrock(&x));
        vec![g.apply(&args[0])]
    })
}

fn hvp_program() -> Program {
    Box::new(|args: Vec<Tensor>| vec![transforms::hvp(|x: Tensor| rosenbrock(&x)).apply(&args[0], &args[1])])
}

pub(crate) fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            name: "rosenbrock_grad",
            id: "W2",
            program: grad_program,
            args: |inputs| load(inputs, &["rosen_x"]),
            calls: 50,
            reductions: &[],
            mixed: false,
        },
        Workload {
            name: "hvp_rosenbrock",
            id: "W2",
            program: hvp_program,
            args: |inputs| load(inputs, &["rosen_x", "rosen_v"]),
            calls: 50,
            reductions: &[],
            mixed: false,
        },
    ]
}
