//! Newton-CG on the (extended) Rosenbrock function in 10,000 dimensions, with
//! jit-compiled gradients and Hessian-vector products.
//!
//! Each Newton step solves `H p = -g` approximately by conjugate gradients, which needs
//! only products `H v`: forward mode over reverse mode (`jvp` of `grad`), compiled once
//! with `jit` and called for every CG iteration. The Hessian (10^8 entries) is never
//! formed. A backtracking line search keeps each step a descent step.
//!
//!     cargo run --release --example newton_cg

use ferrax::transforms::hvp;
use ferrax::{Array, Tensor, grad, i, jit, s};

/// The extended Rosenbrock function (Moré, Garbow and Hillstrom): over the pairs
/// `(u, v) = (x[2i], x[2i+1])`, `sum(100 (v - u^2)^2 + (1 - u)^2)`; minimum 0 at all ones.
fn rosenbrock(x: Tensor) -> Tensor {
    let n = x.shape()[0];
    let pairs = x.reshape(&[n / 2, 2]);
    let u = pairs.slice(&[s(..), i(0)]);
    let v = pairs.slice(&[s(..), i(1)]);
    let a: Tensor = (v - u.powi(2)).powi(2) * 100.0;
    let one_minus: Tensor = -u + 1.0;
    let b: Tensor = one_minus.powi(2);
    (a + b).sum_all()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// Runs the example; an error if Newton-CG does not reach the minimum at all ones.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = 10_000;
    let value = jit(rosenbrock);
    let gradient = jit(grad(rosenbrock));
    // H·v = the directional derivative of the gradient along v (the jvp of grad), compiled.
    let hessian_vector = jit(hvp(rosenbrock));

    // The classic start: every pair at (-1.2, 1).
    let mut x: Vec<f64> = (0..n).map(|k| if k % 2 == 0 { -1.2 } else { 1.0 }).collect();
    println!("Newton-CG on Rosenbrock, n = {n}");
    println!("step        f(x)      |grad f|   CG iterations");
    for step in 0..100 {
        let xa = Array::from(x.clone());
        let f = value.call(&xa)?.to_f64_vec()[0];
        let gv = gradient.call(&xa)?.to_f64_vec();
        let gnorm = norm(&gv);
        if gnorm < 1e-8 {
            println!("{step:>4} {f:>14.6e} {gnorm:>10.3e}   converged");
            break;
        }
        // Conjugate gradients on H p = -g, truncated at negative curvature or when the
        // residual is small relative to |g| (the Eisenstat–Walker-style forcing term).
        let tol = (0.5f64).min(gnorm.sqrt()) * gnorm;
        let mut p = vec![0.0; n];
        let mut r: Vec<f64> = gv.iter().map(|v| -v).collect();
        let mut d = r.clone();
        let mut rr = dot(&r, &r);
        let mut iterations = 0;
        for _ in 0..200 {
            let hd = hessian_vector.call(&(xa.clone(), Array::from(d.clone())))?.to_f64_vec();
            let curvature = dot(&d, &hd);
            iterations += 1;
            if curvature <= 0.0 {
                if iterations == 1 {
                    p.clone_from(&r);
                }
                break;
            }
            let alpha = rr / curvature;
            p.iter_mut().zip(&d).for_each(|(pi, di)| *pi += alpha * di);
            r.iter_mut().zip(&hd).for_each(|(ri, hi)| *ri -= alpha * hi);
            let rr_next = dot(&r, &r);
            if rr_next.sqrt() < tol {
                break;
            }
            d = r.iter().zip(&d).map(|(ri, di)| ri + (rr_next / rr) * di).collect();
            rr = rr_next;
        }
        // Backtracking line search (Armijo).
        let slope = dot(&gv, &p);
        let mut t = 1.0;
        loop {
            let trial: Vec<f64> = x.iter().zip(&p).map(|(xi, pi)| xi + t * pi).collect();
            let ft = value.call(&Array::from(trial.clone()))?.to_f64_vec()[0];
            if ft <= f + 1e-4 * t * slope || t < 1e-10 {
                x = trial;
                break;
            }
            t *= 0.5;
        }
        println!("{step:>4} {f:>14.6e} {gnorm:>10.3e} {iterations:>8}   step length {t}");
    }
    let error = x.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
    println!(
        "max |x_i - 1| = {error:.3e}; compiled: f {}x, grad {}x, hvp {}x",
        value.compiles(),
        gradient.compiles(),
        hessian_vector.compiles()
    );
    if error > 1e-6 {
        return Err(format!("Newton-CG did not reach the minimum (max error {error})").into());
    }
    Ok(())
}
