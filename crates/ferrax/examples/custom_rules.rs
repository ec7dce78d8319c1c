//! Custom differentiation rules: a numerically stable `custom_jvp` and a gradient
//! clipping `custom_vjp`, with the IR they produce.
//!
//! `ferrax::custom_jvp(f, rule)` and `ferrax::custom_vjp(f, fwd, bwd)` take closures
//! over traced tensors, like JAX's decorators; `call` traces them into the IR's
//! `custom_jvp[func, jvp]` and `custom_vjp[func, fwd, bwd]` equations, which every
//! transform understands.
//!
//! 1. `softplus(x) = log(1 + e^x)` in f32: automatic differentiation of the formula
//!    gives `e^x / (1 + e^x)`, which is `inf / inf = nan` at `x = 100`; the custom jvp
//!    rule `1 − 1 / (1 + e^x)` gives 1.
//! 2. `clip_gradient`: the identity on the way forward, its cotangent clipped to
//!    `[−1, 1]` on the way back; the gradient of `sum(clip_gradient(x)²)` is `2x`
//!    clipped.
//!
//!     cargo run --release --example custom_rules

use ferrax::{Array, DType, Tensor, Type, custom_jvp, custom_vjp, grad, make_ir};

/// `log(1 + e^x)` with a jvp rule that stays finite for large `x`.
fn softplus(x: &Tensor) -> Tensor {
    let rule = custom_jvp(
        |x: Tensor| x.exp().log1p(),
        |x: Tensor, t: Tensor| {
            let slope = 1.0 - 1.0 / (x.exp() + 1.0);
            (x.exp().log1p(), slope * t)
        },
    );
    rule.call(x)
}

/// The identity, whose cotangent is clipped to `[-1, 1]` in reverse mode.
fn clip_gradient(x: &Tensor) -> Tensor {
    let rule = custom_vjp(
        |x: Tensor| x,
        |x: Tensor| (x, ()), // outputs, then residuals (none)
        |(): (), g: Tensor| g.clamp(-1.0f64, 1.0f64),
    );
    rule.call(x)
}

/// Runs both examples; an error if a rule does not change the gradient as it should.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("1. softplus(x) = log(1 + e^x) at x = [0, 10, 100] (f32)");
    let x = Array::from(vec![0.0f32, 10.0, 100.0]);
    let naive = grad(|x: Tensor| x.exp().log1p().sum_all()).call(&x)?.to_f64_vec();
    let custom = grad(|x: Tensor| softplus(&x).sum_all()).call(&x)?.to_f64_vec();
    println!("   gradient of sum(softplus), by differentiating the formula: {naive:?}");
    println!("   gradient of sum(softplus), with the custom jvp rule:       {custom:?}");
    if !naive[2].is_nan() || (custom[2] - 1.0).abs() > 1e-6 || (custom[0] - 0.5).abs() > 1e-6 {
        return Err(format!("softplus: naive {naive:?}, custom {custom:?}").into());
    }
    let spec = [Type::new(DType::F32, &[3])];
    println!("{}", make_ir(|[x]: [Tensor; 1]| softplus(&x), &spec)?);

    println!("2. clip_gradient inside sum(clip_gradient(x)^2) at x = [0.2, 3, -5]");
    let x = Array::from(vec![0.2f64, 3.0, -5.0]);
    let plain = grad(|x: Tensor| x.powi(2).sum_all()).call(&x)?.to_f64_vec();
    let clipped = grad(|x: Tensor| clip_gradient(&x).powi(2).sum_all()).call(&x)?.to_f64_vec();
    println!("   gradient without the rule: {plain:?}");
    println!("   gradient with the rule:    {clipped:?}");
    if plain != [0.4, 6.0, -10.0] || clipped != [0.4, 1.0, -1.0] {
        return Err(format!("clip_gradient: plain {plain:?}, clipped {clipped:?}").into());
    }
    let spec = [Type::new(DType::F64, &[3])];
    println!("{}", make_ir(|[x]: [Tensor; 1]| clip_gradient(&x), &spec)?);
    Ok(())
}
