//! W12 kernel shapes outside W1-W11 that a user meets at once: `onehot_xent_grad`, the
//! value and gradient (with respect to the logits) of a mean softmax cross-entropy
//! whose targets are one-hot rows built from integer labels inside the program
//! (`nn::one_hot`: an `eq` of the broadcast labels with an `iota`, then a `convert`),
//! 512 rows of 1000 classes, f32. The comparison, the conversion and the product with
//! the log-softmax fuse into the loss's kernels, so this measures how those kernels
//! vectorise (JAX: `jax.nn.one_hot`, the same pattern).
//!
//! Arguments: `logits` f32[512,1000], `labels` i32[512] (uniform classes). Results: the
//! loss, then its gradient f32[512,1000].
//!
//! `vmap_hvp`: per-example Hessian-vector products of a small function under `vmap`,
//! `f(x) = Σ_ij sin(x_i)·cos(x_j)` for x of 10 elements, over a batch of 4096: its fused
//! kernels reduce over a middle axis with a narrow (10-wide) innermost axis, the shape
//! issue 25 found compiled to scalar loops (JAX: `vmap` of `jvp(grad f)`). Arguments:
//! `vhvp_x`, `vhvp_v` f32[4096,10]; result: the products f32[4096,10].

use crate::Result;
use crate::data::{Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::nn::{cross_entropy, one_hot};
use ferrax::{Array, DType, Tensor, grad, transforms, vmap};

const STEMS: [&str; 2] = ["xent_logits", "xent_labels"];
const VHVP: [&str; 2] = ["vhvp_x", "vhvp_v"];

/// (rows, classes) at a scale.
fn sizes(scale: Scale) -> (usize, usize) {
    match scale {
        Scale::Full => (512, 1000),
        Scale::Small => (6, 11),
    }
}

/// The inputs: standard normal logits, uniform labels.
pub(crate) fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    let (rows, classes) = sizes(scale);
    let mut rng = Rng::for_group("xent");
    let logits = rng.normal_f32(&[rows, classes], 1.0)?;
    let labels = (0..rows).map(|_| (rng.next_u64() % classes as u64) as i32).collect();
    let labels = Array::from_i32(&[rows], labels)?;
    let (batch, width) = if scale == Scale::Full { (4096, 10) } else { (3, 4) };
    let mut rng = Rng::for_group("vhvp");
    let (x, v) = (rng.normal_f32(&[batch, width], 1.0)?, rng.normal_f32(&[batch, width], 1.0)?);
    Ok(STEMS.iter().chain(&VHVP).map(|s| s.to_string()).zip([logits, labels, x, v]).collect())
}

/// `Σ_ij sin(x_i)·cos(x_j)` of a vector `x`.
fn sin_cos(x: &Tensor) -> Tensor {
    let n = x.shape()[0];
    let rows = x.sin().reshape(&[n, 1]).broadcast_to(&[n, n]);
    let cols = x.cos().reshape(&[1, n]).broadcast_to(&[n, n]);
    (&rows * &cols).sum_all()
}

fn vmap_hvp_program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let one = |(x, v): (Tensor, Tensor)| transforms::hvp(|x: Tensor| sin_cos(&x)).apply(&x, &v);
        vec![vmap(one).apply(&(args[0].clone(), args[1].clone()))]
    })
}

fn program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let (logits, labels) = (&args[0], &args[1]);
        let classes = logits.shape()[1];
        let loss = |z: Tensor| cross_entropy(&z, &one_hot(labels, classes, DType::F32));
        vec![loss(logits.clone()), grad(loss).apply(logits)]
    })
}

pub(crate) fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            name: "onehot_xent_grad",
            id: "W12",
            program,
            args: |inputs| load(inputs, &STEMS),
            calls: 200,
            reductions: &[0],
            mixed: false,
        },
        Workload {
            name: "vmap_hvp",
            id: "W12",
            program: vmap_hvp_program,
            args: |inputs| load(inputs, &VHVP),
            calls: 1000,
            reductions: &[],
            mixed: false,
        },
    ]
}
