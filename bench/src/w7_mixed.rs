//! W7 `mlp_grad_bf16`: W1's MLP and data with f32 master parameters and bf16 compute
//! (the parameters and the batch cast to bf16, the loss returned in f32; the gradients
//! come back in f32 through the casts' transposes). JAX: the same casts inside
//! `jit(value_and_grad(loss))`.

use crate::w1_mlp::{STEMS, logits};
use crate::workloads::{Program, Workload, load};
use ferrax::mixed::Policy;
use ferrax::nn::cross_entropy;
use ferrax::{Tensor, grad};

/// `jit(value_and_grad(loss))` under `params=f32,compute=bf16,output=f32`.
fn program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let policy = Policy { params: ferrax::DType::F32, compute: ferrax::DType::BF16, output: ferrax::DType::F32 };
        let (x, y) = policy.cast_to_compute(&(args[0].clone(), args[1].clone()));
        let params = args[2..].to_vec();
        let loss = |p: Vec<Tensor>| policy.cast_to_output(&cross_entropy(&logits(&policy.cast_to_compute(&p), &x), &y));
        let value = loss(params.clone());
        let grads = grad(loss).apply(&params);
        std::iter::once(value).chain(grads).collect()
    })
}

pub(crate) fn workloads() -> Vec<Workload> {
    vec![Workload {
        name: "mlp_grad_bf16",
        id: "W7",
        program,
        args: |inputs| load(inputs, &STEMS),
        calls: 100,
        reductions: &[],
        mixed: true,
    }]
}
