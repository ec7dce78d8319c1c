//! Differentiating through a simulation: fit a projectile's launch to hit a target.
//!
//! A ball with quadratic air drag is integrated for 200 explicit Euler steps with
//! `scan`; the loss is the squared distance from its position at the end to a
//! target. `grad` of the loss through all 200 steps gives the derivative with respect
//! to the launch speed and angle, and gradient descent fits them.
//!
//! Reverse mode keeps, by default, every step's state for the backward pass. With
//! `ScanOptions { checkpoint: Some(K) }` it keeps every K-th state and recomputes the
//! steps in between: the residual report (JAX's `print_saved_residuals`) before and
//! after shows the saved bytes fall, and the fitted launch is the same.
//!
//!     cargo run --release --example physics

use ferrax::{Array, DType, ScanOptions, Tensor, Type, grad, scan_with};

const STEPS: usize = 200;
const DT: f64 = 0.01;
const DRAG: f64 = 0.05;
const GRAVITY: f64 = 9.81;
const TARGET: (f64, f64) = (12.0, 1.0);

/// The squared distance to the target after the flight, for the launch `[speed, angle]`.
fn loss([speed, angle]: [Tensor; 2], checkpoint: Option<usize>) -> Tensor {
    let start = [speed.zeros_like(), speed.zeros_like(), &speed * angle.cos(), &speed * angle.sin()];
    let options = ScanOptions { length: Some(STEPS), checkpoint, ..ScanOptions::default() };
    let (end, ()) = scan_with(
        |([x, y, vx, vy], ()): ([Tensor; 4], ())| {
            let v = (&vx * &vx + &vy * &vy).sqrt();
            let ax = -(&v * &vx) * DRAG;
            let ay = -(&v * &vy) * DRAG - GRAVITY;
            ([&x + &vx * DT, &y + &vy * DT, &vx + ax * DT, &vy + ay * DT], ())
        },
        &start,
        &(),
        &options,
    );
    let [x, y, _, _] = end;
    (x - TARGET.0).powi(2) + (y - TARGET.1).powi(2)
}

/// The saved and the recomputed residual bytes of reverse mode through the loss.
fn residual_bytes(checkpoint: Option<usize>) -> Result<(u64, u64), Box<dyn std::error::Error>> {
    let spec = [Type::scalar(DType::F64), Type::scalar(DType::F64)];
    let module = ferrax::trace(|p: [Tensor; 2]| loss(p, checkpoint), &spec)?;
    let residuals = ferrax_transform::saved_residuals(&module, &ferrax_transform::Wrt::Default)?;
    let saved = residuals.iter().filter(|r| !r.recomputed).map(|r| r.bytes).sum();
    let recomputed = residuals.iter().filter(|r| r.recomputed).map(|r| r.bytes).sum();
    Ok((saved, recomputed))
}

/// Fits the launch by gradient descent; returns the final launch and loss.
fn fit(checkpoint: Option<usize>, verbose: bool) -> Result<([f64; 2], f64), Box<dyn std::error::Error>> {
    let mut launch = [10.0, 0.3];
    let g = grad(|p: [Tensor; 2]| loss(p, checkpoint));
    let value = |l: [f64; 2]| ferrax::eval(|p: [Tensor; 2]| loss(p, checkpoint), &l.map(Array::scalar));
    let mut current = f64::INFINITY;
    for it in 0..60 {
        let args = launch.map(Array::scalar);
        current = value(launch)?.to_f64_vec()[0];
        let d = g.call(&args)?.map(|a| a.to_f64_vec()[0]);
        if verbose && it % 10 == 0 {
            println!(
                "  step {it:>2}: speed {:.4} m/s, angle {:.4} rad, loss {current:.6}, dL = [{:.4}, {:.4}]",
                launch[0], launch[1], d[0], d[1]
            );
        }
        launch = [launch[0] - 0.05 * d[0], launch[1] - 0.002 * d[1]];
    }
    Ok((launch, current))
}

/// Runs the example; an error if the fit fails or checkpointing changes the result.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "fitting the launch of a ball with drag to pass ({}, {}) after {} s",
        TARGET.0,
        TARGET.1,
        STEPS as f64 * DT
    );
    let (launch, final_loss) = fit(None, true)?;
    println!("fitted: speed {:.4} m/s, angle {:.4} rad, loss {final_loss:.2e}", launch[0], launch[1]);
    if final_loss > 1e-3 {
        return Err(format!("the fit did not converge (loss {final_loss})").into());
    }

    let (saved, recomputed) = residual_bytes(None)?;
    println!("\nresiduals of reverse mode, every step kept:  {saved:>6} bytes saved, {recomputed:>6} recomputed");
    let (saved_k, recomputed_k) = residual_bytes(Some(20))?;
    println!("residuals with scan checkpoint=20:          {saved_k:>6} bytes saved, {recomputed_k:>6} recomputed");
    let (launch_k, loss_k) = fit(Some(20), false)?;
    println!("fit with checkpointing: speed {:.4}, angle {:.4}, loss {loss_k:.2e}", launch_k[0], launch_k[1]);
    if saved_k >= saved || (launch_k[0] - launch[0]).abs() > 1e-9 || (launch_k[1] - launch[1]).abs() > 1e-9 {
        return Err("checkpointing should save fewer bytes and give the same fit".into());
    }
    Ok(())
}
