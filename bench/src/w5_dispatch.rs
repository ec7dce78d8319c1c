//! W5 `dispatch`: `jit(x * 2 + 1)` on an f32[4]: what one call costs beyond the work.

use crate::Result;
use crate::data::{Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::{Array, Tensor};

pub(crate) fn generate(_scale: Scale) -> Result<Vec<(String, Array)>> {
    let mut rng = Rng::for_group("dispatch");
    Ok(vec![("dispatch_x".into(), rng.normal_f32(&[4], 1.0)?)])
}

fn program() -> Program {
    Box::new(|args: Vec<Tensor>| vec![&args[0] * 2.0f32 + 1.0f32])
}

pub(crate) fn workloads() -> Vec<Workload> {
    vec![Workload {
        name: "dispatch",
        id: "W5",
        program,
        args: |inputs| load(inputs, &["dispatch_x"]),
        calls: 10_000,
        reductions: &[],
        mixed: false,
    }]
}
