//! The textbook worked examples of automatic differentiation, with their numbers.
//!
//! 1. `f(x) = x² sin x` at `x = 3`: the value and `grad`, against the derivative by
//!    hand, `2x sin x + x² cos x`.
//! 2. `g(x1, x2) = (x1 x2 + sin x1, x1 − x2²)` at `(2, 3)`: forward mode (`jvp`) gives
//!    the Jacobian a column at a time, reverse mode (`vjp`) a row at a time; both are
//!    printed side by side with the Jacobian by hand.
//! 3. `vmap(f)` over a batch, and the IR of `grad(f)`.
//!
//!     cargo run --release --example quickstart

use ferrax::{Array, DType, Tensor, Type, grad, jvp, make_ir, vjp, vmap};

/// `g(x1, x2) = (x1 x2 + sin x1, x1 − x2²)`.
fn g([x1, x2]: [Tensor; 2]) -> (Tensor, Tensor) {
    (&x1 * &x2 + x1.sin(), &x1 - x2.powi(2))
}

fn scalar(a: &Array) -> f64 {
    a.to_f64_vec()[0]
}

/// Runs the examples; an error if a derivative disagrees with the one by hand.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("1. f(x) = x^2 sin x at x = 3");
    let f = |x: Tensor| x.powi(2) * x.sin();
    let x = Array::scalar(3.0f64);
    let value = scalar(&ferrax::eval(f, &x)?);
    let slope = scalar(&grad(f).call(&x)?);
    let by_hand = 2.0 * 3.0 * 3f64.sin() + 9.0 * 3f64.cos();
    println!("   f(3)  = {value:.6}  (9 sin 3 = {:.6})", 9.0 * 3f64.sin());
    println!("   f'(3) = {slope:.6}  (6 sin 3 + 9 cos 3 = {by_hand:.6})");
    if (slope - by_hand).abs() > 1e-12 {
        return Err(format!("grad gave {slope}, by hand {by_hand}").into());
    }

    println!("\n2. g(x1, x2) = (x1 x2 + sin x1, x1 - x2^2) at (2, 3)");
    let primals = [Array::scalar(2.0f64), Array::scalar(3.0f64)];
    let unit = |i: usize| [Array::scalar(f64::from(u8::from(i == 0))), Array::scalar(f64::from(u8::from(i == 1)))];
    let by_hand = [[3.0 + 2f64.cos(), 2.0], [1.0, -6.0]];
    println!("   forward mode, jvp along e_j: column j  |  reverse mode, vjp of e_i: row i");
    let mut jacobian_fwd = [[0.0; 2]; 2];
    let mut jacobian_rev = [[0.0; 2]; 2];
    for k in 0..2 {
        let ((y1, y2), (t1, t2)) = jvp(g, &primals, &unit(k))?;
        let [c1, c2] = unit(k);
        let (_, row) = vjp(g, &primals, &(c1, c2))?;
        (jacobian_fwd[0][k], jacobian_fwd[1][k]) = (scalar(&t1), scalar(&t2));
        jacobian_rev[k] = [scalar(&row[0]), scalar(&row[1])];
        if k == 0 {
            println!("   g(2, 3) = ({:.6}, {:.6})", scalar(&y1), scalar(&y2));
        }
        println!(
            "   column {k}: ({:>9.6}, {:>9.6})        |  row {k}: ({:>9.6}, {:>9.6})",
            jacobian_fwd[0][k], jacobian_fwd[1][k], jacobian_rev[k][0], jacobian_rev[k][1]
        );
    }
    println!("   by hand: [[x2 + cos x1, x1], [1, -2 x2]] = {by_hand:.6?}");
    for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        if (jacobian_fwd[i][j] - by_hand[i][j]).abs() > 1e-12 || (jacobian_rev[i][j] - by_hand[i][j]).abs() > 1e-12 {
            return Err(format!("Jacobian entry ({i}, {j}) disagrees with the one by hand").into());
        }
    }

    println!("\n3. vmap(f) over a batch, and the IR of grad(f)");
    let xs = Array::from(vec![0.0f64, 1.0, 2.0, 3.0]);
    let ys: Array = vmap(f).call(&xs)?;
    println!("   xs       = {xs}\n   vmap(f)  = {ys}");
    println!("{}", make_ir(grad(f), &Type::scalar(DType::F64))?);
    Ok(())
}
