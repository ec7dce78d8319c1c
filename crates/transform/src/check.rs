//! Numerical checks of derivatives, like `jax.test_util.check_grads`.
//!
//! Forward mode is checked against central differences: `J v ≈ (f(x + εv) - f(x -
//! εv)) / 2ε`. Reverse mode is checked by the adjoint identity `<u, J v> = <Jᵀ u, v>`
//! (with `J v` from forward mode, checked first). Order 2 repeats both checks on the
//! jvp and on the vjp of the function, so second derivatives are checked as well.
//! Directions are drawn from a fixed-seed generator; the check is meant for f64
//! programs (f32 needs looser tolerances).

use crate::{Wrt, jvp, vjp};
use ferrax_ir::array::Data;
use ferrax_ir::{Array, DType, EvalOptions, Func, Module, eval_entry};

/// Which modes [`check_grads`] checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modes {
    /// Forward mode only.
    Fwd,
    /// Reverse mode only (its identity needs forward mode's `J v`, which is then
    /// computed but not checked separately).
    Rev,
    /// Both.
    Both,
}

/// Tolerances and step of [`check_grads`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Finite-difference step.
    pub eps: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Relative tolerance.
    pub rtol: f64,
}

impl Default for Tolerance {
    fn default() -> Tolerance {
        Tolerance { eps: 1e-6, atol: 1e-6, rtol: 1e-5 }
    }
}

/// Checks the derivatives of `module`'s entry at `args` (all float parameters
/// differentiated), up to `order` (1 or 2), in `modes`. The error says which check
/// failed, where, and both values.
pub fn check_grads(module: &Module, args: &[Array], order: usize, modes: Modes, tol: Tolerance) -> Result<(), String> {
    let mut rng = SplitMix(0x5EED);
    check(module, args, order.max(1), modes, tol, &mut rng, "f")
}

fn check(
    module: &Module,
    args: &[Array],
    order: usize,
    modes: Modes,
    tol: Tolerance,
    rng: &mut SplitMix,
    what: &str,
) -> Result<(), String> {
    let f = module.entry().ok_or("no entry")?;
    let types = f.param_types();
    if args.len() != types.len() {
        return Err(format!("{what}: @{} takes {} arguments, got {}", f.name, types.len(), args.len()));
    }
    for (i, (a, t)) in args.iter().zip(&types).enumerate() {
        if a.dtype() != t.dtype || a.shape() != t.shape.as_slice() {
            return Err(format!("{what}: argument {i} must be {t}, got {}[{:?}]", a.dtype(), a.shape()));
        }
    }
    let float = float_params(f);
    let v: Vec<Array> = float.iter().map(|&i| random_like(&args[i], rng)).collect();
    let jvp_module = jvp(module, &Wrt::Default).map_err(|e| e.to_string())?;
    let mut jvp_args = args.to_vec();
    jvp_args.extend(v.iter().cloned());
    let jvp_out = run(&jvp_module, &jvp_args)?;
    let n_out = f.results.len();
    let (outs, tangents) = jvp_out.split_at(n_out);
    let float_outs: Vec<usize> = (0..n_out).filter(|&i| outs[i].dtype().is_float()).collect();
    if modes != Modes::Rev {
        let plus = run(module, &shifted(args, &float, &v, tol.eps))?;
        let minus = run(module, &shifted(args, &float, &v, -tol.eps))?;
        for (k, &o) in float_outs.iter().enumerate() {
            let fd: Vec<f64> = plus[o]
                .to_f64_vec()
                .iter()
                .zip(minus[o].to_f64_vec())
                .map(|(p, m)| (p - m) / (2.0 * tol.eps))
                .collect();
            compare(&tangents[k].to_f64_vec(), &fd, tol, &format!("{what}: jvp of output {o} vs central differences"))?;
        }
    }
    if modes != Modes::Fwd {
        let u: Vec<Array> = float_outs.iter().map(|&o| random_like(&outs[o], rng)).collect();
        let vjp_module = vjp(module, &Wrt::Default).map_err(|e| e.to_string())?;
        let mut vjp_args = args.to_vec();
        vjp_args.extend(u.iter().cloned());
        let vjp_out = run(&vjp_module, &vjp_args)?;
        let cts = &vjp_out[n_out..];
        let lhs: f64 = u.iter().zip(tangents).map(|(a, b)| dot(a, b)).sum();
        let rhs: f64 = cts.iter().zip(&v).map(|(a, b)| dot(a, b)).sum();
        compare(&[rhs], &[lhs], tol, &format!("{what}: <J^T u, v> vs <u, J v>"))?;
        if order > 1 {
            check(&vjp_module, &vjp_args, order - 1, modes, tol, rng, &format!("vjp({what})"))?;
        }
    }
    if order > 1 && modes != Modes::Rev {
        check(&jvp_module, &jvp_args, order - 1, modes, tol, rng, &format!("jvp({what})"))?;
    }
    Ok(())
}

fn float_params(f: &Func) -> Vec<usize> {
    f.params.iter().enumerate().filter(|(_, p)| f.ty(**p).dtype.is_float()).map(|(i, _)| i).collect()
}

fn run(module: &Module, args: &[Array]) -> Result<Vec<Array>, String> {
    eval_entry(module, args, &EvalOptions::default()).map_err(|e| e.to_string())
}

fn shifted(args: &[Array], float: &[usize], v: &[Array], eps: f64) -> Vec<Array> {
    let mut out = args.to_vec();
    for (&i, d) in float.iter().zip(v) {
        let x = args[i].to_f64_vec();
        let dv = d.to_f64_vec();
        let moved: Vec<f64> = x.iter().zip(&dv).map(|(a, b)| a + eps * b).collect();
        out[i] = from_f64(args[i].dtype(), args[i].shape(), moved);
    }
    out
}

fn from_f64(dtype: DType, shape: &[usize], values: Vec<f64>) -> Array {
    let data = match dtype {
        DType::F32 => Data::F32(values.into_iter().map(|x| x as f32).collect()),
        _ => Data::F64(values),
    };
    Array::new(shape, data).unwrap_or_else(|_| Array::scalar_f64(0.0))
}

fn random_like(a: &Array, rng: &mut SplitMix) -> Array {
    let values: Vec<f64> = (0..a.len()).map(|_| rng.uniform() * 2.0 - 1.0).collect();
    from_f64(a.dtype(), a.shape(), values)
}

fn dot(a: &Array, b: &Array) -> f64 {
    a.to_f64_vec().iter().zip(b.to_f64_vec()).map(|(x, y)| x * y).sum()
}

fn compare(actual: &[f64], expected: &[f64], tol: Tolerance, what: &str) -> Result<(), String> {
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let bound = tol.atol + tol.rtol * e.abs().max(a.abs());
        if (a - e).abs() > bound || a.is_nan() != e.is_nan() {
            return Err(format!("{what}: element {i}: {a} vs {e} (difference {}, allowed {bound})", (a - e).abs()));
        }
    }
    Ok(())
}

/// A small deterministic generator for directions.
struct SplitMix(u64);

impl SplitMix {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}
