//! Differential tests on generated programs (`ferrax_ir::testing::random_module`):
//!
//! - print → parse → print gives the same text, and the parsed module verifies;
//! - the JIT, in the configuration users run (default `JitOptions`: fast math, fma
//!   contraction; two threads), agrees with the interpreter under the differential
//!   oracle (`support::judge`): bit-identical for programs that compute nothing inexact,
//!   otherwise as close to the program's f64 evaluation as the interpreter's own result
//!   and perturbed evaluations are, plus a few ulps (a floor at the smallest normal);
//! - `opt` and `fuse` (of the module and of its `opt`) keep the interpreter's results
//!   bit for bit;
//! - on smooth f64 programs (`GenConfig::smooth`), jvp matches central finite
//!   differences and vjp satisfies `<Jᵀu, v> = <u, Jv>` (`ferrax_transform::check_grads`);
//! - `vmap` over a batch of 3 equals a loop over the examples.
//!
//! In the JIT check one seed in eight (`GenConfig::for_seed`, `FERRAX_GEN_BIG`) has big
//! arrays: innermost extents 64–1100 and now and then a value of 40,000–360,000
//! elements, so vector tiles, chunked reductions, split launches and split GEMMs run.
//!
//! A failure names the check and the seed, and prints the program shrunk by
//! `ferrax_ir::testing::shrink` as IR text, ready to paste into `ir/`. The first seed is
//! printed at the start (`--nocapture` shows it); `FERRAX_SEED=<seed> FERRAX_CASES=1`
//! replays one case.
//!
//! The default case counts keep this file to about two minutes in the dev profile on
//! two cores. CI sets `FERRAX_SEED` to the date, so each day runs new programs. A soak is
//! one command (the counts and sizes come from the environment):
//!
//! ```text
//! FERRAX_CASES=3000 FERRAX_GEN_SIZE=large FERRAX_SEED=1000000 \
//!     cargo test -p ferrax-tests --test suite differential:: -- --nocapture
//! ```
//!
//! `FERRAX_CASES` is the number of seeds per test, `FERRAX_SEED` the first seed,
//! `FERRAX_GEN_SIZE=large` (or `FERRAX_GEN_SCALE=N`) makes programs bigger and deeper,
//! `FERRAX_GEN_BIG=N` gives big arrays to one seed in N (0: none). docs/testing.md
//! describes the oracle and the soaks.

use crate::support::{Report, central, close, eval_options, jit_vs_interpreter, no_panic, same_bits, stack};
use ferrax_ir::testing::{GenConfig, Rng, cases, first_seed, random_inputs, random_module};
use ferrax_ir::{Array, Module, eval_entry, parse, print, verify};
use ferrax_transform::{Modes, Tolerance, check_grads, opt, vmap};

/// Input sets per program in the JIT check.
const INPUTS_PER_PROGRAM: u64 = 2;

/// The seeds of one test: `FERRAX_SEED..FERRAX_SEED + FERRAX_CASES`, `default` cases.
fn seeds(default: usize) -> std::ops::Range<u64> {
    let first = first_seed();
    first..first + cases(default) as u64
}

fn args_for(module: &Module, seed: u64, special: bool) -> Vec<Array> {
    let mut rng = Rng::new(seed ^ 0xA11CE);
    module.entry().map(|f| random_inputs(f, &mut rng, special)).unwrap_or_default()
}

#[test]
fn print_parse_round_trip_is_exact() {
    let config = GenConfig::from_env();
    let mut report = Report::default();
    let round_trip = |m: &Module| -> Result<(), String> {
        let text = print(m);
        let parsed = parse(&text).map_err(|e| format!("does not parse back: {e}"))?;
        verify(&parsed).map_err(|e| format!("parsed module does not verify: {e}"))?;
        let again = print(&parsed);
        if again != text { Err(format!("prints differently after parsing:\n{again}")) } else { Ok(()) }
    };
    for seed in seeds(3000) {
        report.programs += 1;
        let m = random_module(seed, &config);
        let smooth = random_module(seed, &GenConfig { smooth: true, ..config.clone() });
        for m in [m, smooth] {
            if let Err(e) = no_panic(|| round_trip(&m)).and_then(|r| r) {
                report.fail("round trip", seed, &m, &e, &mut |m| no_panic(|| round_trip(m)).is_ok_and(|r| r.is_err()));
            }
        }
    }
    report.finish("print/parse round trip", 1);
}

#[test]
fn jit_agrees_with_the_interpreter() {
    let config = GenConfig::from_env();
    let mut report = Report::default();
    for seed in seeds(1000) {
        report.programs += 1;
        let m = random_module(seed, &config.for_seed(seed));
        let mut ran = false;
        for k in 0..INPUTS_PER_PROGRAM {
            report.inputs += 1;
            let input_seed = seed.wrapping_mul(31).wrapping_add(k);
            let args = args_for(&m, input_seed, true);
            match no_panic(|| jit_vs_interpreter(&m, &args)).and_then(|r| r) {
                Ok(r) => ran |= r,
                Err(e) => {
                    let mut fails = |m: &Module| {
                        let args = args_for(m, input_seed, true);
                        no_panic(|| jit_vs_interpreter(m, &args)).and_then(|r| r).is_err()
                    };
                    report.fail("jit vs interpreter", seed, &m, &e, &mut fails);
                    break;
                }
            }
        }
        report.skipped += !ran as usize;
    }
    report.finish("jit vs interpreter", 1);
}

/// `opt`, `fuse` and `fuse ∘ opt` of `m` against `m` in the interpreter; `Ok(false)`
/// when `m` itself does not run.
fn optimised_agree(m: &Module, args: &[Array]) -> Result<bool, String> {
    let Ok(want) = eval_entry(m, args, &eval_options()) else { return Ok(false) };
    let optimised = opt(m).map_err(|e| format!("opt fails: {e}"))?;
    let fused = ferrax_fuse::fuse(m).map_err(|e| format!("fuse fails: {e}"))?;
    let both = ferrax_fuse::fuse(&optimised).map_err(|e| format!("fuse of opt fails: {e}"))?;
    for (what, module) in [("opt", &optimised), ("fuse", &fused), ("fuse of opt", &both)] {
        verify(module).map_err(|e| format!("{what} does not verify: {e}"))?;
        let got = eval_entry(module, args, &eval_options()).map_err(|e| format!("{what} fails to run: {e}"))?;
        same_bits(&got, &want).map_err(|e| format!("{what} changes results: {e}"))?;
    }
    Ok(true)
}

#[test]
fn opt_and_fuse_keep_results_bit_identical() {
    let config = GenConfig::from_env();
    let mut report = Report::default();
    for seed in seeds(600) {
        report.programs += 1;
        report.inputs += 1;
        let m = random_module(seed, &config);
        let args = args_for(&m, seed, true);
        match no_panic(|| optimised_agree(&m, &args)).and_then(|r| r) {
            Ok(ran) => report.skipped += !ran as usize,
            Err(e) => {
                let mut fails = |m: &Module| {
                    let args = args_for(m, seed, true);
                    no_panic(|| optimised_agree(m, &args)).and_then(|r| r).is_err()
                };
                report.fail("opt/fuse vs unoptimised", seed, &m, &e, &mut fails);
            }
        }
    }
    report.finish("opt/fuse vs unoptimised", 1);
}

/// Smooth inputs: floats in [-1.5, 1.5).
fn smooth_args(m: &Module, seed: u64) -> Vec<Array> {
    args_for(m, seed, false)
        .into_iter()
        .map(|a| {
            let values = a.to_f64_vec().iter().map(|x| x * 0.5).collect();
            Array::from_f64(a.shape(), values).expect("same shape")
        })
        .collect()
}

/// jvp of `m` against central differences at `args` (all params f64), and vjp by the
/// adjoint identity (`check_grads` in reverse mode). Differences are trusted only
/// where two step sizes (1e-5, 1e-6) agree with each other to 1e-6: elsewhere the
/// program is too ill-conditioned (`cos(exp(x))` at large x) for differences to mean
/// anything, and that element is not checked. `Ok(false)` when the program's values
/// are non-finite or beyond 1e4, or no element could be checked.
fn derivatives_agree(m: &Module, args: &[Array]) -> Result<bool, String> {
    let Ok(outs) = eval_entry(m, args, &eval_options()) else { return Ok(false) };
    if outs.iter().any(|o| o.to_f64_vec().iter().any(|x| !x.is_finite() || x.abs() > 1e4)) {
        return Ok(false);
    }
    let mut rng = Rng::new(0xD1FF);
    let v: Vec<Array> = args.iter().map(|a| random_inputs_like(a, &mut rng)).collect();
    let jvp_module = ferrax_transform::jvp(m, &ferrax_transform::Wrt::Default).map_err(|e| format!("jvp: {e}"))?;
    let mut jvp_args = args.to_vec();
    jvp_args.extend(v.iter().cloned());
    let jvp_out = eval_entry(&jvp_module, &jvp_args, &eval_options()).map_err(|e| format!("jvp runs: {e}"))?;
    let n = outs.len();
    let float_outs: Vec<usize> = (0..n).filter(|&i| outs[i].dtype().is_float()).collect();
    let (Some(coarse), Some(fine)) = (central(m, args, &v, 1e-5), central(m, args, &v, 1e-6)) else {
        return Ok(false);
    };
    let mut checked = 0;
    for (k, &o) in float_outs.iter().enumerate() {
        let tangent = jvp_out[n + k].to_f64_vec();
        for (e, &t) in tangent.iter().enumerate() {
            let (c, f) = (coarse[o][e], fine[o][e]);
            if !close(c, f, 1e-6) {
                continue;
            }
            checked += 1;
            if !close(t, f, 1e-5) {
                return Err(format!("jvp of output {o}, element {e}: {t}, central differences give {f} (and {c})"));
            }
        }
    }
    check_grads(m, args, 1, Modes::Rev, Tolerance { eps: 1e-6, atol: 1e-6, rtol: 1e-6 })?;
    Ok(checked > 0 || float_outs.is_empty())
}

/// A direction like `a`: uniform in [-1, 1).
fn random_inputs_like(a: &Array, rng: &mut Rng) -> Array {
    let values = (0..a.len()).map(|_| rng.float(false) / 3.0).collect();
    Array::from_f64(a.shape(), values).expect("same shape")
}

#[test]
fn jvp_and_vjp_match_finite_differences() {
    let config = GenConfig::smooth_from_env();
    let mut report = Report::default();
    for seed in seeds(600) {
        report.programs += 1;
        report.inputs += 1;
        let m = random_module(seed, &config);
        let args = smooth_args(&m, seed);
        match no_panic(|| derivatives_agree(&m, &args)).and_then(|r| r) {
            Ok(ran) => report.skipped += !ran as usize,
            Err(e) => {
                let mut fails = |m: &Module| {
                    let args = smooth_args(m, seed);
                    no_panic(|| derivatives_agree(m, &args)).and_then(|r| r).is_err()
                };
                report.fail("derivatives vs finite differences", seed, &m, &e, &mut fails);
            }
        }
    }
    report.finish("jvp/vjp vs finite differences", 50);
}

/// The examples of a batch of 3.
const BATCH: usize = 3;

/// `vmap(m)` on a batch against `m` on each example; params batched or not at random
/// (by `seed`). `Ok(false)` when an example does not run.
fn vmap_agrees(m: &Module, seed: u64) -> Result<bool, String> {
    let entry = m.entry().ok_or("no entry")?;
    let mut rng = Rng::new(seed ^ 0xBA7C);
    let in_axes: Vec<Option<isize>> =
        entry.params.iter().map(|_| if rng.chance(75) { Some(0) } else { None }).collect();
    let examples: Vec<Vec<Array>> = (0..BATCH as u64).map(|b| args_for(m, seed.wrapping_add(b << 32), true)).collect();
    // Unbatched params take example 0's value everywhere.
    let mut per_example = examples.clone();
    for ex in &mut per_example {
        for (i, axis) in in_axes.iter().enumerate() {
            if axis.is_none() {
                ex[i] = examples[0][i].clone();
            }
        }
    }
    let mut outs = Vec::new();
    for ex in &per_example {
        let Ok(out) = eval_entry(m, ex, &eval_options()) else { return Ok(false) };
        outs.push(out);
    }
    let want: Vec<Array> =
        (0..entry.results.len()).map(|r| stack(&outs.iter().map(|o| o[r].clone()).collect::<Vec<_>>())).collect();
    let batched_args: Vec<Array> = (0..in_axes.len())
        .map(|i| match in_axes[i] {
            Some(_) => stack(&per_example.iter().map(|ex| ex[i].clone()).collect::<Vec<_>>()),
            None => examples[0][i].clone(),
        })
        .collect();
    let batched = vmap(m, &in_axes, &[0], BATCH).map_err(|e| format!("vmap fails: {e}"))?;
    verify(&batched).map_err(|e| format!("vmap's result does not verify: {e}"))?;
    let got = match eval_entry(&batched, &batched_args, &eval_options()) {
        Ok(got) => got,
        Err(e) if e.to_string().contains("allocation budget") || e.to_string().contains("fuel") => return Ok(false),
        Err(e) => return Err(format!("the batched program fails: {e}")),
    };
    if let Err(e) = same_bits(&got, &want) {
        // Batched reductions and dots may sum in another order.
        let entry = batched.entry().map(|f| f.name.clone()).unwrap_or_default();
        ferrax_jit::policy::agree_for(&batched, &entry, &batched_args, &want, &got)
            .map_err(|_| format!("vmap differs from the loop: {e}"))?;
    }
    Ok(true)
}

#[test]
fn vmap_equals_a_loop_over_the_batch() {
    let config = GenConfig::from_env();
    let mut report = Report::default();
    for seed in seeds(600) {
        report.programs += 1;
        report.inputs += BATCH;
        let m = random_module(seed, &config);
        match no_panic(|| vmap_agrees(&m, seed)).and_then(|r| r) {
            Ok(ran) => report.skipped += !ran as usize,
            Err(e) => {
                let mut fails = |m: &Module| no_panic(|| vmap_agrees(m, seed)).and_then(|r| r).is_err();
                report.fail("vmap vs loop", seed, &m, &e, &mut fails);
            }
        }
    }
    report.finish("vmap vs loop", 1);
}
