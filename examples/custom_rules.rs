//! Custom differentiation rules: a numerically stable `custom_jvp` and a gradient
//! clipping `custom_vjp`, with the IR they produce.
//!
//! The IR has two equations for rules you write yourself (DESIGN section 3):
//! `custom_jvp[func, jvp]` evaluates `func` and differentiates with the `jvp` Func, and
//! `custom_vjp[func, fwd, bwd]` evaluates `func` and, in reverse mode, runs `fwd` (the
//! outputs and residuals) then `bwd` (residuals and output cotangents to input
//! cotangents). The closure API has no builder for them yet, so this example writes
//! the modules in IR text, transforms them with `ferrax_transform::grad`, prints the
//! gradient modules and runs them.
//!
//! 1. `softplus(x) = log(1 + e^x)` in f32: automatic differentiation of the formula
//!    gives `e^x / (1 + e^x)`, which is `inf / inf = nan` at `x = 100`; the custom jvp
//!    rule `1 − 1 / (1 + e^x)` gives 1.
//! 2. `clip_gradient`: the identity on the way forward, its cotangent clipped to
//!    `[−1, 1]` on the way back; the gradient of `sum(clip_gradient(x)²)` is `2x`
//!    clipped.
//!
//!     cargo run --release --example custom_rules

use ferrax::ir::{Array, EvalOptions, Module, eval_entry, parse, print};
use ferrax_transform::{Wrt, grad};

const SOFTPLUS: &str = "
func @main(%x: f32[3]) -> (f32[]) {
  %naive: f32[3] = call[func=@softplus](%x)
  %custom: f32[3] = custom_jvp[func=@softplus, jvp=@softplus_jvp](%x)
  %which: f32[3] = WHICH
  %s: f32[] = reduce_sum[axes=[0]](%which)
  return %s
}

func @softplus(%x: f32[3]) -> (f32[3]) {
  %e: f32[3] = exp(%x)
  %y: f32[3] = log1p(%e)
  return %y
}

func @softplus_jvp(%x: f32[3], %t: f32[3]) -> (f32[3], f32[3]) {
  %y: f32[3] = call[func=@softplus](%x)
  %e: f32[3] = exp(%x)
  %one: f32[3] = constant[value=1.0]()
  %d: f32[3] = add(%one, %e)
  %r: f32[3] = div(%one, %d)
  %slope: f32[3] = sub(%one, %r)
  %dt: f32[3] = mul(%slope, %t)
  return %y, %dt
}
";

const CLIP: &str = "
func @main(%x: f64[3]) -> (f64[]) {
  %c: f64[3] = CLIPPED
  %sq: f64[3] = mul(%c, %c)
  %s: f64[] = reduce_sum[axes=[0]](%sq)
  return %s
}

func @identity(%x: f64[3]) -> (f64[3]) {
  return %x
}

func @identity_fwd(%x: f64[3]) -> (f64[3]) {
  return %x
}

func @clip_bwd(%g: f64[3]) -> (f64[3]) {
  %lo: f64[3] = constant[value=-1.0]()
  %hi: f64[3] = constant[value=1.0]()
  %c: f64[3] = clamp(%lo, %g, %hi)
  return %c
}
";

/// Parses `text`, differentiates its entry with respect to its parameter, prints the
/// gradient module when `show`, and runs it on `x`.
fn gradient(text: &str, x: &Array, show: bool) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let module: Module = parse(text)?;
    let g = ferrax_transform::dce(&grad(&module, &Wrt::Default, false)?);
    if show {
        println!("{}", print(&g));
    }
    let out = eval_entry(&g, std::slice::from_ref(x), &EvalOptions::default())?;
    Ok(out[0].to_f64_vec())
}

/// Runs both examples; an error if a rule does not change the gradient as it should.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("1. softplus(x) = log(1 + e^x) at x = [0, 10, 100] (f32)");
    let x = Array::from(vec![0.0f32, 10.0, 100.0]);
    let naive = gradient(&SOFTPLUS.replace("WHICH", "add(%naive, %naive)"), &x, false)?;
    let custom = gradient(&SOFTPLUS.replace("WHICH", "add(%custom, %custom)"), &x, true)?;
    println!("   gradient of 2 softplus, by differentiating the formula: {naive:?}");
    println!("   gradient of 2 softplus, with the custom jvp rule:       {custom:?}");
    if !naive[2].is_nan() || (custom[2] - 2.0).abs() > 1e-6 || (custom[0] - 1.0).abs() > 1e-6 {
        return Err(format!("softplus: naive {naive:?}, custom {custom:?}").into());
    }

    println!("\n2. clip_gradient inside sum(clip_gradient(x)^2) at x = [0.2, 3, -5]");
    let x = Array::from(vec![0.2f64, 3.0, -5.0]);
    let plain = gradient(&CLIP.replace("CLIPPED", "call[func=@identity](%x)"), &x, false)?;
    let clipped_eqn = "custom_vjp[func=@identity, fwd=@identity_fwd, bwd=@clip_bwd](%x)";
    let clipped = gradient(&CLIP.replace("CLIPPED", clipped_eqn), &x, true)?;
    println!("   gradient without the rule: {plain:?}");
    println!("   gradient with the rule:    {clipped:?}");
    if plain != [0.4, 6.0, -10.0] || clipped != [0.4, 1.0, -1.0] {
        return Err(format!("clip_gradient: plain {plain:?}, clipped {clipped:?}").into());
    }
    Ok(())
}
