//! The empirical neural tangent kernel of an MLP, `Θ(x1, x2) = J(x1)·J(x2)ᵀ` over all
//! of its parameters, computed from vjp and jvp products (`ferrax::ntk::ntk`, compiled
//! by `jit`) and checked against the explicit product of its Jacobians (`jacrev`).
//!
//!     cargo run --release --example ntk

use ferrax::ntk::ntk;
use ferrax::{Array, Tensor, Tree, jacrev, jit};

/// A two-layer MLP's parameters.
#[derive(Tree, Clone, Debug)]
struct Mlp<T> {
    w1: T,
    b1: T,
    w2: T,
    b2: T,
}

/// `tanh(x·w1 + b1)·w2 + b2` on a batch `[N, D]`: `[N, K]`.
fn forward(p: &Mlp<Tensor>, x: &Tensor) -> Tensor {
    (x.matmul(&p.w1) + &p.b1).tanh().matmul(&p.w2) + &p.b2
}

/// Deterministic values in [-1, 1), scaled.
fn values(seed: u64, count: usize, scale: f64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0) * scale
        })
        .collect()
}

fn array(shape: &[usize], seed: u64, scale: f64) -> Result<Array, ferrax::Error> {
    Ok(Array::from_f64(shape, values(seed, shape.iter().product(), scale))?)
}

/// Runs the example; an error if the kernel differs from J(x1)·J(x2)ᵀ.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (d, h, k, n1, n2) = (8, 32, 3, 6, 5);
    let params = Mlp {
        w1: array(&[d, h], 1, 1.0 / (d as f64).sqrt())?,
        b1: array(&[h], 2, 0.1)?,
        w2: array(&[h, k], 3, 1.0 / (h as f64).sqrt())?,
        b2: array(&[k], 4, 0.1)?,
    };
    let (x1, x2) = (array(&[n1, d], 5, 1.0)?, array(&[n2, d], 6, 1.0)?);
    let count: usize = params.leaves().iter().map(|a| a.len()).sum();

    // Θ from products, as one compiled function: [N1, N2, K, K].
    let kernel = jit(|(p, x1, x2): (Mlp<Tensor>, Tensor, Tensor)| ntk(forward, &p, &x1, &x2));
    let theta = kernel.call(&(params.clone(), x1.clone(), x2.clone()))?;
    println!(
        "NTK of an MLP {d} -> {h} -> {k} ({count} parameters) between {n1} and {n2} examples: {:?}",
        theta.shape()
    );

    // The oracle: the Jacobians of both batches with respect to every parameter leaf,
    // [N, K, leaf...] each, contracted over the parameters.
    let jacobian = |x: &Array| jacrev(|p: Mlp<Tensor>| forward(&p, &Tensor::constant(x))).call(&params);
    let (j1, j2) = (jacobian(&x1)?, jacobian(&x2)?);
    let mut explicit = vec![0.0; n1 * k * n2 * k];
    for (a, b) in j1.leaves().into_iter().zip(j2.leaves()) {
        let size = a.len() / (n1 * k);
        let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
        for r in 0..n1 * k {
            for c in 0..n2 * k {
                explicit[r * n2 * k + c] += (0..size).map(|q| a[r * size + q] * b[c * size + q]).sum::<f64>();
            }
        }
    }
    // Θ[i, j, a, b] is explicit[(i, a), (j, b)].
    let got = theta.to_f64_vec();
    let mut difference: f64 = 0.0;
    for (index, value) in got.iter().enumerate() {
        let (i, j, a, b) = (index / (n2 * k * k), index / (k * k) % n2, index / k % k, index % k);
        difference = difference.max((value - explicit[(i * k + a) * n2 * k + j * k + b]).abs());
    }
    println!("Θ[0, 0] =");
    for a in 0..k {
        println!("  {:?}", &got[a * k..(a + 1) * k].iter().map(|v| format!("{v:.5}")).collect::<Vec<_>>());
    }
    println!("max |Θ - J(x1)·J(x2)ᵀ| = {difference:.3e}");
    if difference > 1e-12 {
        return Err(format!("the NTK differs from J·Jᵀ by {difference:e}").into());
    }
    Ok(())
}
