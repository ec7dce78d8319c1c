//! Derivative checks on generated smooth programs (`GenConfig::smooth`: every
//! differentiable primitive with guarded domains, inside `scan`/`while`/`cond`
//! bodies, `custom_jvp`/`custom_vjp` with true rules):
//!
//! - first order: jvp against central differences, vjp against jvp by the adjoint
//!   identity `<Jᵀu, v> = <u, Jv>` (`ferrax_transform::check_grads`);
//! - second order: the same two checks applied to the jvp and to the vjp of each
//!   program (forward over forward, reverse over forward, forward over reverse and
//!   reverse over reverse);
//! - `vmap(grad f)` over a batch of 3, with the batch axis first, last or absent per
//!   parameter, equals `grad f` on each example;
//! - the checks are not vacuous: a custom rule made wrong by a factor fails them.
//!
//! Finite differences are trusted only where two step sizes (1e-5 and 1e-6) agree with
//! each other: elsewhere the program is too ill-conditioned there, or a step crosses a
//! kink (`max`, `select`, a computed `cond`), and the element is not checked. Programs
//! whose values are non-finite or beyond 1e4 are skipped; the report counts them.
//!
//! Seeds start at `FERRAX_SEED` (default 0) and `FERRAX_CASES` sets how many each test
//! runs. A failure names the check and the seed and prints the program shrunk by
//! `ferrax_ir::testing::shrink`. A soak:
//!
//! ```text
//! FERRAX_CASES=5000 FERRAX_SEED=100000 cargo test -p ferrax-tests --test suite ad_generated::
//! ```

use crate::support::{Report, central, close, eval_options, no_panic};
use ferrax_ir::array::Data;
use ferrax_ir::prim::{ControlOp, ShapeOp};
use ferrax_ir::testing::{GenConfig, Rng, cases, first_seed, random_inputs, random_module};
use ferrax_ir::{Array, Module, Prim, eval_entry, verify};
use ferrax_transform::{Modes, Tolerance, Wrt, check_grads, grad, jvp, vjp, vmap};

/// The seeds of one test: `FERRAX_SEED..FERRAX_SEED + FERRAX_CASES`, `default` cases.
fn seeds(default: usize) -> std::ops::Range<u64> {
    let first = first_seed();
    first..first + cases(default) as u64
}

/// Smooth inputs for `m`'s entry: floats in [-1.5, 1.5), drawn from `seed`.
fn smooth_args(m: &Module, seed: u64) -> Vec<Array> {
    let mut rng = Rng::new(seed ^ 0xA11CE);
    let args = m.entry().map(|f| random_inputs(f, &mut rng, false)).unwrap_or_default();
    args.into_iter().map(|a| scaled(&a, 0.5)).collect()
}

fn scaled(a: &Array, k: f64) -> Array {
    let values = a.to_f64_vec().iter().map(|x| x * k).collect();
    Array::from_f64(a.shape(), values).expect("same shape")
}

/// A direction like `a`: uniform in [-1, 1).
fn direction_like(a: &Array, rng: &mut Rng) -> Array {
    let values = (0..a.len()).map(|_| rng.float(false) / 3.0).collect();
    Array::from_f64(a.shape(), values).expect("same shape")
}

/// Outputs that make a program unfit for finite differences: non-finite or large.
fn unfit(outs: &[Array]) -> bool {
    outs.iter().any(|o| o.to_f64_vec().iter().any(|x| !x.is_finite() || x.abs() > 1e4))
}

/// How many elements a derivative check compared.
#[derive(Default)]
struct Checked {
    elements: usize,
}

/// jvp of `m` (all params f64) against central differences at `args`, and vjp by the
/// adjoint identity. `Ok(false)` when the program does not run, its values are unfit
/// or no element could be checked.
fn derivatives_agree(m: &Module, args: &[Array], checked: &mut Checked) -> Result<bool, String> {
    let Ok(outs) = eval_entry(m, args, &eval_options()) else { return Ok(false) };
    if unfit(&outs) {
        return Ok(false);
    }
    let mut rng = Rng::new(0xD1FF);
    let v: Vec<Array> = args.iter().map(|a| direction_like(a, &mut rng)).collect();
    let jvp_module = jvp(m, &Wrt::Default).map_err(|e| format!("jvp: {e}"))?;
    verify(&jvp_module).map_err(|e| format!("jvp's result does not verify: {e}"))?;
    let mut jvp_args = args.to_vec();
    jvp_args.extend(v.iter().cloned());
    let jvp_out = eval_entry(&jvp_module, &jvp_args, &eval_options()).map_err(|e| format!("jvp runs: {e}"))?;
    let n = outs.len();
    // Tangents come for the float outputs only (loop counters and indices are i32).
    let float_outs: Vec<usize> = (0..n).filter(|&i| outs[i].dtype().is_float()).collect();
    let (Some(coarse), Some(fine)) = (central(m, args, &v, 1e-5), central(m, args, &v, 1e-6)) else {
        return Ok(false);
    };
    let before = checked.elements;
    for (k, &o) in float_outs.iter().enumerate() {
        let tangent = jvp_out[n + k].to_f64_vec();
        for (e, &t) in tangent.iter().enumerate() {
            let (c, f) = (coarse[o][e], fine[o][e]);
            if !close(c, f, 1e-6) {
                continue;
            }
            checked.elements += 1;
            if !close(t, f, 1e-5) {
                return Err(format!("jvp of output {o}, element {e}: {t}, central differences give {f} (and {c})"));
            }
        }
    }
    let vjp_module = vjp(m, &Wrt::Default).map_err(|e| format!("vjp: {e}"))?;
    verify(&vjp_module).map_err(|e| format!("vjp's result does not verify: {e}"))?;
    check_grads(m, args, 1, Modes::Rev, Tolerance { eps: 1e-6, atol: 1e-6, rtol: 1e-6 })?;
    Ok(checked.elements > before)
}

/// The programs of the first-order tests: smooth, at the default (or environment) size.
fn smooth_config() -> GenConfig {
    GenConfig::smooth_from_env()
}

/// Runs `check` on the smooth program of every seed, reporting failures with the
/// shrunk program.
fn run_seeds(what: &str, default: usize, min_checked: usize, check: impl Fn(&Module, u64) -> Result<bool, String>) {
    let config = smooth_config();
    let mut report = Report::default();
    for seed in seeds(default) {
        report.programs += 1;
        report.inputs += 1;
        let m = random_module(seed, &config);
        match no_panic(|| check(&m, seed)).and_then(|r| r) {
            Ok(ran) => report.skipped += !ran as usize,
            Err(e) => {
                let mut fails = |m: &Module| no_panic(|| check(m, seed)).and_then(|r| r).is_err();
                report.fail(what, seed, &m, &e, &mut fails);
            }
        }
    }
    report.finish(what, min_checked);
}

#[test]
fn first_order_jvp_and_vjp_match_finite_differences() {
    run_seeds("first-order derivatives", 1500, 300, |m, seed| {
        derivatives_agree(m, &smooth_args(m, seed), &mut Checked::default())
    });
}

/// The same checks on `jvp(f)` and `vjp(f)`: second derivatives in all four
/// combinations of modes.
fn second_order_agrees(m: &Module, seed: u64) -> Result<bool, String> {
    let args = smooth_args(m, seed);
    let Ok(outs) = eval_entry(m, &args, &eval_options()) else { return Ok(false) };
    if unfit(&outs) {
        return Ok(false);
    }
    let mut rng = Rng::new(seed ^ 0x5EC0);
    let mut checked = Checked::default();
    let j = jvp(m, &Wrt::Default).map_err(|e| format!("jvp: {e}"))?;
    let mut jvp_args = args.clone();
    jvp_args.extend(args.iter().map(|a| direction_like(a, &mut rng)));
    let fwd = derivatives_agree(&j, &jvp_args, &mut checked).map_err(|e| format!("of jvp(f): {e}"))?;
    let v = vjp(m, &Wrt::Default).map_err(|e| format!("vjp: {e}"))?;
    let mut vjp_args = args;
    vjp_args.extend(outs.iter().filter(|o| o.dtype().is_float()).map(|o| direction_like(o, &mut rng)));
    let rev = derivatives_agree(&v, &vjp_args, &mut checked).map_err(|e| format!("of vjp(f): {e}"))?;
    Ok(fwd || rev)
}

#[test]
fn second_order_jvp_and_vjp_match_finite_differences() {
    run_seeds("second-order derivatives", 400, 80, second_order_agrees);
}

/// The examples of a batch.
const BATCH: usize = 3;

/// `parts` (all of one shape) stacked along a new axis `axis`.
fn stack_at(parts: &[Array], axis: usize) -> Array {
    let shape = parts[0].shape();
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis..].iter().product();
    let mut values = Vec::with_capacity(outer * inner * parts.len());
    let flat: Vec<Vec<f64>> = parts.iter().map(|p| p.to_f64_vec()).collect();
    for o in 0..outer {
        for p in &flat {
            values.extend_from_slice(&p[o * inner..(o + 1) * inner]);
        }
    }
    let mut out_shape = shape.to_vec();
    out_shape.insert(axis, parts.len());
    Array::from_f64(&out_shape, values).expect("stacked parts of one shape")
}

/// `vmap(grad(sum of f's outputs))` against `grad` per example; each parameter batched
/// along axis 0, along its last axis, or not at all (drawn from `seed`).
fn vmap_of_grad_agrees(m: &Module, seed: u64) -> Result<bool, String> {
    let Some(summed) = ferrax_tests::summed(m) else { return Ok(false) };
    let entry = summed.entry().ok_or("no entry")?;
    let n_params = entry.params.len();
    let g = grad(&summed, &Wrt::Params((0..n_params).collect()), false).map_err(|e| format!("grad: {e}"))?;
    verify(&g).map_err(|e| format!("grad's result does not verify: {e}"))?;
    let mut rng = Rng::new(seed ^ 0xBA7C);
    let axes: Vec<Option<usize>> = entry
        .param_types()
        .iter()
        .map(|t| match rng.below(4) {
            0 => None,
            1 => Some(t.rank()),
            _ => Some(0),
        })
        .collect();
    let examples: Vec<Vec<Array>> =
        (0..BATCH as u64).map(|b| smooth_args(m, seed.wrapping_add(b.wrapping_mul(0x1_0000_0001)))).collect();
    let example = |b: usize, i: usize| if axes[i].is_some() { examples[b][i].clone() } else { examples[0][i].clone() };
    let mut want: Vec<Vec<Array>> = Vec::new();
    for b in 0..BATCH {
        let args: Vec<Array> = (0..n_params).map(|i| example(b, i)).collect();
        let Ok(outs) = eval_entry(m, &args, &eval_options()) else { return Ok(false) };
        if unfit(&outs) {
            return Ok(false);
        }
        want.push(eval_entry(&g, &args, &eval_options()).map_err(|e| format!("grad runs: {e}"))?);
    }
    let batched_args: Vec<Array> = (0..n_params)
        .map(|i| match axes[i] {
            Some(axis) => stack_at(&(0..BATCH).map(|b| example(b, i)).collect::<Vec<_>>(), axis),
            None => examples[0][i].clone(),
        })
        .collect();
    let in_axes: Vec<Option<isize>> = axes.iter().map(|a| a.map(|a| a as isize)).collect();
    let batched = vmap(&g, &in_axes, &[0], BATCH).map_err(|e| format!("vmap of grad: {e}"))?;
    verify(&batched).map_err(|e| format!("vmap of grad does not verify: {e}"))?;
    let got = eval_entry(&batched, &batched_args, &eval_options()).map_err(|e| format!("vmap of grad runs: {e}"))?;
    for (k, got) in got.iter().enumerate() {
        let expected = stack_at(&want.iter().map(|w| w[k].clone()).collect::<Vec<_>>(), 0);
        // A batched dot or reduction may sum in another order.
        got.assert_close(&expected, 1e-9, 1e-9)
            .map_err(|e| format!("gradient {k}: vmap of grad differs from grad per example: {e}"))?;
    }
    Ok(true)
}

#[test]
fn vmap_of_grad_equals_a_loop_over_the_batch() {
    run_seeds("vmap of grad vs loop", 600, 100, vmap_of_grad_agrees);
}

/// `m` with every custom rule's derivative scaled by 1.5: the jvp rules' tangent
/// outputs and the bwd rules' cotangents. `None` when `m` has no custom rule.
fn with_wrong_custom_rules(m: &Module) -> Option<Module> {
    let mut rules: Vec<String> = Vec::new();
    for eqn in m.funcs.values().flat_map(|f| &f.eqns) {
        match &eqn.prim {
            Prim::Control(ControlOp::CustomJvp { jvp, .. }) => rules.push(jvp.clone()),
            Prim::Control(ControlOp::CustomVjp { bwd, .. }) => rules.push(bwd.clone()),
            _ => {}
        }
    }
    if rules.is_empty() {
        return None;
    }
    let mut out = m.clone();
    for name in rules {
        let f = out.funcs.get_mut(&name)?;
        // The derivative outputs: the second half of a jvp rule's, all of a bwd's.
        let first = if name.starts_with("custom_jvp") { f.results.len() / 2 } else { 0 };
        for r in first..f.results.len() {
            let ty = f.result_types[r].clone();
            let k = f.new_value(ty.clone());
            let value = Array::new(ty.shape.clone(), Data::F64(vec![1.5; ty.element_count()?])).ok()?;
            let prim = Prim::Shape(ShapeOp::Constant { value, shape: ty.shape.clone() });
            f.eqns.push(ferrax_ir::Eqn {
                prim,
                inputs: Default::default(),
                outputs: [k].into_iter().collect(),
                loc: None,
            });
            let scaled = f.new_value(ty);
            let prim = Prim::Binary(ferrax_ir::prim::BinaryOp::Mul);
            let inputs = [f.results[r], k].into_iter().collect();
            f.eqns.push(ferrax_ir::Eqn { prim, inputs, outputs: [scaled].into_iter().collect(), loc: None });
            f.results[r] = scaled;
        }
    }
    Some(out)
}

/// A wrong custom rule fails the first-order checks on most programs that use one
/// (not all: a rule may sit in a branch not taken, or behind a zero derivative).
#[test]
fn the_checks_catch_wrong_custom_rules() {
    let config = smooth_config();
    let (mut with_rules, mut caught) = (0, 0);
    for seed in 0..500 {
        // Without dead code, a rule left is one whose result reaches an output.
        let m = ferrax_transform::dce(&random_module(seed, &config));
        let Some(wrong) = with_wrong_custom_rules(&m) else { continue };
        verify(&wrong).unwrap_or_else(|e| panic!("seed {seed}: the altered module does not verify: {e}"));
        let args = smooth_args(&m, seed);
        // Only programs whose true derivatives pass count.
        if !matches!(derivatives_agree(&m, &args, &mut Checked::default()), Ok(true)) {
            continue;
        }
        with_rules += 1;
        caught += derivatives_agree(&wrong, &args, &mut Checked::default()).is_err() as usize;
    }
    eprintln!("wrong custom rules: {caught} of {with_rules} programs caught");
    assert!(with_rules >= 10, "only {with_rules} checked programs use a custom rule");
    assert!(caught * 2 >= with_rules, "wrong custom rules caught in only {caught} of {with_rules} programs");
}
