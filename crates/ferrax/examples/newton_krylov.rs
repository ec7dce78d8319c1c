//! The 2-D Bratu problem `-Δu = λ·e^u` on the unit square (zero on the boundary,
//! λ = 1) on a 64x64 grid, solved by Jacobian-free Newton-Krylov.
//!
//! Each Newton step solves `J·dx = -F(u)` by restarted GMRES whose operator is the
//! Jacobian-vector product of forward mode (`transforms::jvp` of the residual at `u`):
//! the 4096 x 4096 Jacobian is never formed. The whole solver (Newton steps, GMRES
//! cycles, line search) is one `while_loop`-structured function, compiled once by
//! `jit`. It prints the residual after every Newton step, with the jvp products each
//! step took, and checks that the convergence is quadratic.
//!
//!     cargo run --release --example newton_krylov

use ferrax::solve::{Forcing, NewtonOptions, newton_krylov};
use ferrax::{Array, Tensor, jit, s};
use std::time::Instant;

/// The residual of the central-difference Bratu equations on the interior points of
/// an `n x n` grid with spacing `h = 1 / (n + 1)`.
fn bratu(u: &Tensor, lambda: f64) -> Tensor {
    let n = u.shape()[0] as i64;
    let h = 1.0 / (n as f64 + 1.0);
    // Zero boundary values around u, then the four neighbours of every point.
    let padded = u.pad(&[1, 1], &[1, 1], &[0, 0], 0.0);
    let at = |rows: std::ops::Range<i64>, cols: std::ops::Range<i64>| padded.slice(&[s(rows), s(cols)]);
    let neighbours = at(0..n, 1..n + 1) + at(2..n + 2, 1..n + 1) + at(1..n + 1, 0..n) + at(1..n + 1, 2..n + 2);
    (u * 4.0 - neighbours) / (h * h) - u.exp() * lambda
}

/// Runs the example; an error if Newton-Krylov does not converge quadratically.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = 64;
    let options = NewtonOptions {
        tol: 1e-10,
        forcing: Forcing::Quadratic { max: 0.1, min: 1e-12 },
        restart: 40,
        ..NewtonOptions::default()
    };
    let solver = jit(|u0: Tensor| newton_krylov(&|u: &Tensor| bratu(u, 1.0), &u0, &options));
    let start = Instant::now();
    let (u, info) = solver.call(&Array::from_f64(&[n, n], vec![0.0; n * n])?)?;
    let elapsed = start.elapsed();

    let steps = info.steps.to_f64_vec()[0] as usize;
    let history = info.residual_history.to_f64_vec();
    let jvps = info.jvp_history.to_f64_vec();
    println!("Bratu problem, {n}x{n} grid, λ = 1: Jacobian-free Newton-Krylov");
    println!("step       ‖F(u)‖   ‖F‖/‖F_0‖   ‖F_k‖/‖F_k-1‖²   jvp products");
    for k in 0..=steps {
        let ratio =
            if k > 0 { format!("{:>14.3e}", history[k] / history[k - 1].powi(2)) } else { format!("{:>14}", "") };
        let products = if k > 0 { jvps[k - 1] } else { 0.0 };
        println!("{k:>4} {:>12.4e} {:>11.3e} {ratio} {products:>14}", history[k], history[k] / history[0]);
    }
    let total = info.jvps.to_f64_vec()[0];
    let u = u.to_f64_vec();
    let peak = u.iter().copied().fold(f64::MIN, f64::max);
    println!("{total} jvp products in {steps} Newton steps; max u = {peak:.6}; {elapsed:.2?} (compile and solve)");

    if info.converged.to_f64_vec() != [1.0] {
        return Err(format!("Newton-Krylov did not converge: residuals {:?}", &history[..=steps]).into());
    }
    // Quadratic convergence: ‖F_k‖ / ‖F_k-1‖² stays bounded once near the root, above
    // the rounding floor.
    let near = history[..=steps].windows(2).filter(|w| w[0] < 1e-2 * history[0] && w[1] > 1e-12 * history[0]);
    if let Some(w) = near.clone().find(|w| w[1] / (w[0] * w[0]) > 1.0) {
        return Err(format!("not quadratic: {:e} after {:e}", w[1], w[0]).into());
    }
    if near.count() < 2 {
        return Err(format!("too few steps near the root to see the rate: {:?}", &history[..=steps]).into());
    }
    // The solution of λ = 1 peaks at about 0.078 at the centre.
    if !(0.075..0.082).contains(&peak) {
        return Err(format!("max u = {peak}, expected about 0.078").into());
    }
    Ok(())
}
