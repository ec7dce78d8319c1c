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

use crate::Result;
use crate::data::{Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::nn::{cross_entropy, one_hot};
use ferrax::{Array, DType, Tensor, grad};

const STEMS: [&str; 2] = ["xent_logits", "xent_labels"];

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
    Ok(STEMS.iter().map(|s| s.to_string()).zip([logits, labels]).collect())
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
    vec![Workload {
        name: "onehot_xent_grad",
        id: "W12",
        program,
        args: |inputs| load(inputs, &STEMS),
        calls: 200,
        reductions: &[0],
        mixed: false,
    }]
}
