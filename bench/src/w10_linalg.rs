//! W10 `linalg_grad`: the gradient of `Σ_batch log det A + bᵀA⁻¹b` through the Cholesky
//! factor and a triangular solve, A a batch of 16 symmetric positive definite 256×256
//! f64 matrices, b 16 vectors: `jit(value_and_grad)` with respect to A and b (JAX: the
//! same with `jnp.linalg.cholesky` and `jax.scipy.linalg.solve_triangular`).
//!
//! W10's second half, `linalg_cg_grad`: the gradient of `Σ_batch |x|²` where `A·x = b`
//! is solved by exactly 50 conjugate-gradient iterations (tolerances zero) on the
//! matrix-free operator `v ↦ A·v`, per matrix of the batch (`vmap`), differentiated
//! implicitly through `custom_linear_solve` (JAX: `jax.scipy.sparse.linalg.cg`, which
//! does the same).
//!
//! Arguments: `la_a` f64[16,256,256] (`M·Mᵀ/n + I`, M standard normal), `la_b`
//! f64[16,256]. Results: the value, then the gradients with respect to A and b.

use crate::Result;
use crate::data::{Inputs, Rng, Scale};
use crate::workloads::{Program, Workload, load};
use ferrax::solve::{SolveOptions, cg};
use ferrax::{Array, Tensor, linalg, value_and_grad, vmap};

/// (batch, n) at a scale.
fn sizes(scale: Scale) -> (usize, usize) {
    match scale {
        Scale::Full => (16, 256),
        Scale::Small => (2, 6),
    }
}

pub(crate) fn generate(scale: Scale) -> Result<Vec<(String, Array)>> {
    let (batch, n) = sizes(scale);
    let mut rng = Rng::for_group("linalg");
    let m = rng.normal_f64(&[batch, n, n])?.to_f64_vec();
    let mut a = vec![0.0; batch * n * n];
    for k in 0..batch {
        let mk = &m[k * n * n..(k + 1) * n * n];
        for i in 0..n {
            for j in 0..=i {
                let dot: f64 = (0..n).map(|t| mk[i * n + t] * mk[j * n + t]).sum::<f64>() / n as f64;
                let v = dot + f64::from(u8::from(i == j));
                a[k * n * n + i * n + j] = v;
                a[k * n * n + j * n + i] = v;
            }
        }
    }
    let b = rng.normal_f64(&[batch, n])?;
    Ok(vec![("la_a".into(), Array::from_f64(&[batch, n, n], a)?), ("la_b".into(), b)])
}

/// `Σ log det A + bᵀA⁻¹b` over the batch.
fn objective((a, b): (Tensor, Tensor)) -> Tensor {
    let l = linalg::cholesky(&a);
    let n = a.shape()[a.rank() - 1];
    let eye = Array::from_f64(&[n, n], (0..n * n).map(|i| f64::from(u8::from(i % (n + 1) == 0))).collect());
    let diagonal = (&l * &Tensor::constant(&eye.expect("an n×n identity"))).sum([2usize]);
    let y = linalg::solve_triangular(&l, &b, true);
    diagonal.log().sum_all() * 2.0 + (&y * &y).sum_all()
}

fn program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let (value, (ga, gb)) = value_and_grad(objective).apply(&(args[0].clone(), args[1].clone()));
        vec![value, ga, gb]
    })
}

/// `|x|²` for `A·x = b` by 50 CG iterations.
fn cg_objective((a, b): (Tensor, Tensor)) -> Tensor {
    let options = SolveOptions { tol: 0.0, atol: 0.0, maxiter: Some(50), x0: None };
    let (x, _) = cg(&|v: &Tensor| a.matmul(v), &b, &options);
    (&x * &x).sum_all()
}

fn cg_program() -> Program {
    Box::new(|args: Vec<Tensor>| {
        let batched = |ab: (Tensor, Tensor)| vmap(cg_objective).apply(&ab).sum_all();
        let (value, (ga, gb)) = value_and_grad(batched).apply(&(args[0].clone(), args[1].clone()));
        vec![value, ga, gb]
    })
}

pub(crate) fn workloads() -> Vec<Workload> {
    fn args(inputs: &mut Inputs) -> Result<Vec<Array>> {
        load(inputs, &["la_a", "la_b"])
    }
    vec![
        Workload { name: "linalg_grad", id: "W10", program, args, calls: 20, reductions: &[], mixed: false },
        Workload {
            name: "linalg_cg_grad",
            id: "W10",
            program: cg_program,
            args,
            calls: 20,
            reductions: &[],
            mixed: false,
        },
    ]
}
