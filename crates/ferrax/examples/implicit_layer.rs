//! Implicit differentiation in two models, each checked against finite differences.
//!
//! 1. Ridge regression's regularisation strength tuned by gradient descent: the weights
//!    `w(λ) = (XᵀX + λI)⁻¹Xᵀy` come from conjugate gradients on the matrix-free
//!    operator `v ↦ Xᵀ(Xv) + λv` (`ferrax::solve::cg`, differentiable through
//!    `custom_linear_solve`), and the validation loss is differentiated with respect to
//!    `log λ` without differentiating a single CG iteration.
//! 2. A deep-equilibrium layer `z = tanh(W·z + x)`: its fixed point is found by
//!    iteration inside `custom_root`, and the gradient of a loss of `z` with respect to
//!    `W` comes from the implicit function theorem, its tangent solve done by GMRES on
//!    jvp products.
//!
//! Run with `cargo run --release -p ferrax --example implicit_layer`.

use ferrax::control::fori_loop;
use ferrax::implicit::{custom_linear_solve, custom_root};
use ferrax::solve::{GmresOptions, SolveOptions, cg, gmres};
use ferrax::transforms::jvp;
use ferrax::{Array, Tensor, eval, grad};

/// A deterministic pseudo-random matrix (values in [-1, 1)).
fn noise(shape: &[usize], seed: u64) -> Array {
    let n: usize = shape.iter().product();
    let mut state = seed;
    let values = (0..n)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect();
    Array::from_f64(shape, values).expect("a shape and as many values")
}

/// The validation loss of ridge regression with strength `exp(log_lambda)`.
fn ridge_validation_loss((log_lambda, x, y, xv, yv): (Tensor, Tensor, Tensor, Tensor, Tensor)) -> Tensor {
    let lambda = log_lambda.exp();
    let normal = |v: &Tensor| x.transpose().matmul(&x.matmul(v)) + &lambda * v;
    let rhs = x.transpose().matmul(&y);
    let options = SolveOptions { tol: 1e-12, ..SolveOptions::default() };
    let (w, _) = cg(&normal, &rhs, &options);
    (xv.matmul(&w) - &yv).powi(2).mean_all()
}

fn ridge() -> Result<(), ferrax::Error> {
    let (n, d) = (120, 30);
    let x = noise(&[n, d], 1);
    let xv = noise(&[n, d], 2);
    let w_true = noise(&[d], 3);
    let target = |x: &Array, seed| {
        let clean = eval(|(x, w): (Tensor, Tensor)| x.matmul(&w), &(x.clone(), w_true.clone()))?;
        eval(|(c, e): (Tensor, Tensor)| c + e * 0.8, &(clean, noise(&[n], seed)))
    };
    let (y, yv) = (target(&x, 4)?, target(&xv, 5)?);
    let data = |l: f64| (Array::scalar(l), x.clone(), y.clone(), xv.clone(), yv.clone());

    // The gradient against central finite differences at log λ = 0.
    let g = grad(ridge_validation_loss).argnums(&[0]).call(&data(0.0))?.0.to_f64_vec()[0];
    let h = 1e-5;
    let at = |l| eval(ridge_validation_loss, &data(l)).map(|v| v.to_f64_vec()[0]);
    let fd = (at(h)? - at(-h)?) / (2.0 * h);
    println!("ridge: d loss / d log λ at λ = 1: implicit {g:.9}, finite differences {fd:.9}");
    assert!((g - fd).abs() <= 1e-6 * (1.0 + fd.abs()), "implicit gradient {g} vs finite differences {fd}");

    // Gradient descent on log λ.
    let mut log_lambda = 0.0;
    println!("{:>5} {:>10} {:>14}", "step", "λ", "validation");
    for step in 0..10 {
        let (loss, (dl, ..)) = ferrax::value_and_grad(ridge_validation_loss).call(&data(log_lambda))?;
        println!("{step:>5} {:>10.4} {:>14.6}", f64::exp(log_lambda), loss.to_f64_vec()[0]);
        log_lambda -= 40.0 * dl.to_f64_vec()[0];
    }
    Ok(())
}

/// `sum(z²)` at the fixed point `z = tanh(W·z + x)`, through `custom_root`.
fn equilibrium_loss((w, x): (Tensor, Tensor)) -> Tensor {
    let f = |z: &Tensor| (w.matmul(z) + &x).tanh() - z;
    // Fixed-point iteration: a contraction for the small W below.
    let solve = |f: &dyn Fn(&Tensor) -> Tensor, z0: &Tensor| fori_loop(0, 100, |_, z: Tensor| &z + f(&z), z0);
    // J_z f · dz = rhs, by GMRES on jvp products (never forming J), made differentiable
    // in reverse mode by custom_linear_solve with the transposed system's GMRES.
    let tangent_solve = |g: &dyn Fn(&Tensor) -> Tensor, rhs: &Tensor| {
        let options = GmresOptions { tol: 1e-13, ..GmresOptions::default() };
        let by_gmres = |op: &dyn Fn(&Tensor) -> Tensor, r: &Tensor| gmres(op, r, &options).0;
        custom_linear_solve(g, rhs, &by_gmres, Some(&by_gmres), false)
    };
    let z = custom_root(f, &x.zeros_like(), &solve, &tangent_solve);
    z.powi(2).sum_all()
}

fn equilibrium() -> Result<(), ferrax::Error> {
    let d = 8;
    let w = eval(|w: Tensor| w * 0.3, &noise(&[d, d], 6))?;
    let x = noise(&[d], 7);
    let (gw, _) = grad(equilibrium_loss).call(&(w.clone(), x.clone()))?;
    // One entry of the gradient against central finite differences.
    let h = 1e-6;
    let nudged = |delta: f64| {
        let mut values = w.to_f64_vec();
        values[3] += delta;
        let w = Array::from_f64(&[d, d], values).expect("same shape");
        eval(equilibrium_loss, &(w, x.clone())).map(|v| v.to_f64_vec()[0])
    };
    let fd = (nudged(h)? - nudged(-h)?) / (2.0 * h);
    let g = gw.to_f64_vec()[3];
    println!("equilibrium: d loss / d W[0,3]: implicit {g:.9}, finite differences {fd:.9}");
    assert!((g - fd).abs() <= 1e-6 * (1.0 + fd.abs()), "implicit gradient {g} vs finite differences {fd}");
    // The same tangent computed in forward mode.
    let mut dir = vec![0.0; d * d];
    dir[3] = 1.0;
    let tangent =
        (Array::from_f64(&[d, d], dir).expect("same shape"), Array::from_f64(&[d], vec![0.0; d]).expect("a vector"));
    let (_, t) = jvp(equilibrium_loss).call(&(w, x), &tangent)?;
    println!("equilibrium: the same by forward mode: {:.9}", t.to_f64_vec()[0]);
    Ok(())
}

/// Runs both models (the examples test calls it too).
pub fn main() -> Result<(), ferrax::Error> {
    ridge()?;
    equilibrium()
}
