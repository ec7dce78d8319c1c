//! Shared pieces of the reliability suites (`differential`, `fuzz`, `limits`,
//! `concurrency`): bit comparison, batching of arrays, the differential oracle that
//! judges the default JIT against the interpreter ([`judge`]), and the failure report that shrinks a failing module
//! and prints it as IR text ready to paste into the `ir/` corpus.

#![allow(dead_code)]

use ferrax_ir::array::{DType, Data};
use ferrax_ir::testing::{perturb, retype_array, shrink, widen};
use ferrax_ir::{Array, EvalOptions, Module};
use ferrax_jit::policy::{self, smallest_normal, ulp};
use ferrax_jit::{JitOptions, compile};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Loop iterations either backend may take on one run (generated loops are short; a
/// mutated or transformed one may not be).
pub const FUEL: u64 = 5000;

/// The allocation budget of every run here (64 MiB): generated programs are small, so
/// anything near it is a bug, and it keeps a runaway allocation from taking the machine.
pub const MAX_BYTES: u64 = 64 << 20;

/// Interpreter options with [`FUEL`] and [`MAX_BYTES`].
pub fn eval_options() -> EvalOptions {
    EvalOptions { fuel: Some(FUEL), budget: ferrax_ir::array::Budget::new(MAX_BYTES), ..Default::default() }
}

/// The threads of every JIT run here: at least two, so split launches and split GEMMs
/// run as they do for users (the default is the host's cores).
pub const THREADS: usize = 2;

/// The configuration users run (`JitOptions::default()`: fast math, fma contraction)
/// with [`THREADS`] threads, [`FUEL`] and [`MAX_BYTES`].
pub fn jit_options() -> JitOptions {
    JitOptions { fuel: Some(FUEL), max_bytes: Some(MAX_BYTES), threads: THREADS, ..JitOptions::default() }
}

/// Outputs agree bit for bit, except that any two NaNs agree.
pub fn same_bits(got: &[Array], want: &[Array]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} results, expected {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g.shape() != w.shape() || g.dtype() != w.dtype() {
            return Err(format!("out{i}: {}{:?}, expected {}{:?}", g.dtype(), g.shape(), w.dtype(), w.shape()));
        }
        let same = |k: usize| match (g.data(), w.data()) {
            (Data::F32(a), Data::F32(b)) => a[k].to_bits() == b[k].to_bits() || (a[k].is_nan() && b[k].is_nan()),
            (Data::F64(a), Data::F64(b)) => a[k].to_bits() == b[k].to_bits() || (a[k].is_nan() && b[k].is_nan()),
            (Data::I32(a), Data::I32(b)) => a[k] == b[k],
            (Data::Bool(a), Data::Bool(b)) => a[k] == b[k],
            (Data::BF16(a), Data::BF16(b)) => a[k].to_bits() == b[k].to_bits() || (a[k].is_nan() && b[k].is_nan()),
            (Data::F16(a), Data::F16(b)) => a[k].to_bits() == b[k].to_bits() || (a[k].is_nan() && b[k].is_nan()),
            _ => false,
        };
        if let Some(k) = (0..g.len()).find(|&k| !same(k)) {
            return Err(format!("out{i}[{k}]: {}, expected {}", g.format_element(k), w.format_element(k)));
        }
    }
    Ok(())
}

/// Example `i` of `a` along axis 0.
pub fn take(a: &Array, i: usize) -> Array {
    let shape = &a.shape()[1..];
    let n: usize = shape.iter().product();
    let data = a.data().gather(i * n..(i + 1) * n);
    Array::new(shape, data).expect("a slice of a valid array")
}

/// `parts` (all of one type) stacked along a new axis 0.
pub fn stack(parts: &[Array]) -> Array {
    let mut shape = vec![parts.len()];
    shape.extend_from_slice(parts[0].shape());
    let datas: Vec<&Data> = parts.iter().map(Array::data).collect();
    let data = Data::concat(&datas).expect("parts of one type");
    Array::new(shape, data).expect("stacked parts of one type")
}

/// The entry of `module` under the JIT against the interpreter, judged by [`judge`]:
/// `Ok(true)` when both ran and agree, `Ok(false)` when both failed (or only the
/// interpreter ran out of budget: fusion never materialises some views), `Err` with a
/// description otherwise.
pub fn jit_vs_interpreter(module: &Module, args: &[Array]) -> Result<bool, String> {
    let expected = ferrax_ir::eval_entry(module, args, &eval_options());
    let exe = compile(module, &jit_options()).map_err(|e| format!("the JIT does not compile it: {e}"))?;
    match (expected, exe.call(args)) {
        (Ok(e), Ok(a)) => judge(module, args, &e, &a).map(|()| true),
        (Err(_), Err(_)) => Ok(false),
        (Ok(_), Err(e)) => Err(format!("the JIT failed where the interpreter did not: {e}")),
        // Resource limits, not semantics: `opt` may drop a dead loop the interpreter runs
        // out of fuel in, or an intermediate it could not allocate.
        (Err(e), Ok(_)) if e.to_string().contains("allocation budget") || e.to_string().contains("out of fuel") => {
            Ok(false)
        }
        (Err(e), Ok(_)) => Err(format!("the JIT succeeded where the interpreter failed: {e}")),
    }
}

/// How far a float result of the JIT may sit from the f64 reference, in multiples of
/// the farthest plausible evaluation (the interpreter's, or a perturbed one).
pub const SPREAD: f64 = 4.0;

/// Ulps (of the reference, in the result's dtype) every float element is allowed on top
/// of the spread: the JIT's polynomial kernels are within a few ulps of correctly
/// rounded, and an fma contraction or a reassociated sum moves a well-conditioned result
/// by about one.
pub const ULPS: f64 = 8.0;

/// Perturbed evaluations made for a program whose JIT result is not bit-identical.
const SAMPLES: u64 = 2;

/// The size of each perturbation, in ulps per rounding (`ferrax_ir::testing::perturb`).
const PERTURB_ULPS: f64 = 1.0;

/// The interpreter options of the reference evaluations: the f64 program needs twice
/// the bytes of the f32 one, and perturbation adds a constant per rounding.
fn reference_options() -> EvalOptions {
    EvalOptions { fuel: Some(FUEL), budget: ferrax_ir::array::Budget::new(4 * MAX_BYTES), ..Default::default() }
}

/// The differential oracle: does `actual` (the JIT's results of `module` on `args`) agree
/// with `expected` (the interpreter's)?
///
/// - Bit-identical results (NaNs equal to NaNs) always agree; a module that computes
///   nothing inexact by design (`ferrax_jit::policy::inexact_ops` empty) must be
///   bit-identical.
/// - Otherwise the judge evaluates, on the interpreter, a reference `r`: the module
///   widened to f64 (`ferrax_ir::testing::widen`), and plausible evaluations `s`: the
///   interpreter's own result and [`SAMPLES`] evaluations of the module in its own
///   precision with every rounding perturbed by one to four ulps
///   (`ferrax_ir::testing::perturb`). A float element `j` of the JIT agrees when
///   `|j − r| ≤ SPREAD · max_s |s − r| + max(ULPS · ulp(r), smallest normal)`, with the
///   ulp and the smallest normal of the result's dtype: the JIT must be about as close to
///   the exact result as an evaluation in the same precision can be, so an
///   ill-conditioned element (cancellation, a pole, a near-tie decided by rounding) is
///   allowed the error its conditioning implies and a well-conditioned one a few ulps.
///   Infinities and NaNs are at distance 0 from themselves and infinitely far from
///   anything else (so an element that overflows or turns NaN in one plausible f32
///   evaluation but not in the reference cannot be judged, and agrees).
/// - An integer or bool element must equal the interpreter's, unless rounding decides it
///   (the reference or a perturbed evaluation differs there): then it must equal one of
///   those.
pub fn judge(module: &Module, args: &[Array], expected: &[Array], actual: &[Array]) -> Result<(), String> {
    let Err(bits) = same_bits(actual, expected) else { return Ok(()) };
    let same_types = actual.len() == expected.len()
        && actual.iter().zip(expected).all(|(a, e)| a.dtype() == e.dtype() && a.shape() == e.shape());
    if !same_types {
        return Err(bits);
    }
    if policy::inexact_ops(module).is_empty() {
        return Err(format!("{bits} (the program computes nothing inexact)"));
    }
    let wide = widen(module).map_err(|e| format!("{bits}; and widening fails: {e}"))?;
    let wide_args: Vec<Array> = args.iter().map(|a| retype_array(a, DType::F32, DType::F64)).collect();
    let reference = ferrax_ir::eval_entry(&wide, &wide_args, &reference_options())
        .map_err(|e| format!("{bits}; and the f64 reference fails: {e}"))?;
    let mut samples = vec![expected.to_vec()];
    for k in 0..SAMPLES {
        let shaken = perturb(module, 0x5EED + k, PERTURB_ULPS);
        let out = ferrax_ir::eval_entry(&shaken, args, &reference_options())
            .map_err(|e| format!("{bits}; and a perturbed evaluation fails: {e}"))?;
        samples.push(out);
    }
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let (r, a_vals) = (reference[i].to_f64_vec(), a.to_f64_vec());
        let s_vals: Vec<Vec<f64>> = samples.iter().map(|s| s[i].to_f64_vec()).collect();
        for k in 0..a.len() {
            let sample = |n: usize| s_vals[n][k];
            let ok = if e.dtype().is_float() {
                let spread = (0..s_vals.len()).map(|n| distance(sample(n), r[k])).fold(0.0, f64::max);
                let allowed = SPREAD * spread + (ULPS * ulp(r[k], e.dtype())).max(smallest_normal(e.dtype()));
                distance(a_vals[k], r[k]) <= allowed || same(a_vals[k], sample(0))
            } else {
                let others = std::iter::once(r[k]).chain((1..s_vals.len()).map(sample));
                let decided_by_rounding = others.clone().any(|o| o != sample(0));
                a_vals[k] == sample(0) || (decided_by_rounding && others.into_iter().any(|o| o == a_vals[k]))
            };
            if !ok {
                let perturbed: Vec<String> = (1..s_vals.len()).map(|n| format!("{}", sample(n))).collect();
                return Err(format!(
                    "out{i}[{k}]: the JIT gives {}, the interpreter {}, the f64 reference {} (perturbed \
                     evaluations: {})",
                    a.format_element(k),
                    e.format_element(k),
                    r[k],
                    perturbed.join(", ")
                ));
            }
        }
    }
    Ok(())
}

/// Equal, or both NaN.
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// `|a − b|`, 0 between equal values (infinities included) and between NaNs, infinite
/// when only one is non-finite.
fn distance(a: f64, b: f64) -> f64 {
    if same(a, b) {
        0.0
    } else if a.is_finite() && b.is_finite() {
        (a - b).abs()
    } else {
        f64::INFINITY
    }
}

/// `f(args + h·v)` as f64 vectors per output (the interpreter, with [`eval_options`]).
pub fn shifted_outputs(m: &Module, args: &[Array], v: &[Array], h: f64) -> Option<Vec<Vec<f64>>> {
    let moved: Vec<Array> = args
        .iter()
        .zip(v)
        .map(|(a, d)| {
            let x: Vec<f64> = a.to_f64_vec().iter().zip(d.to_f64_vec()).map(|(x, d)| x + h * d).collect();
            Array::from_f64(a.shape(), x).expect("same shape")
        })
        .collect();
    ferrax_ir::eval_entry(m, &moved, &eval_options()).ok().map(|o| o.iter().map(|a| a.to_f64_vec()).collect())
}

/// Central differences of `m` at `args` along `v` with step `h`.
pub fn central(m: &Module, args: &[Array], v: &[Array], h: f64) -> Option<Vec<Vec<f64>>> {
    let plus = shifted_outputs(m, args, v, h)?;
    let minus = shifted_outputs(m, args, v, -h)?;
    Some(plus.iter().zip(&minus).map(|(p, q)| p.iter().zip(q).map(|(a, b)| (a - b) / (2.0 * h)).collect()).collect())
}

/// `a` and `b` agree to `tol`, relative above 1 and absolute below.
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// Runs `f`, turning a panic into an `Err` with the panic message.
pub fn no_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".to_string())
    })
}

/// Failures of one generated-case test, each with its seed and shrunk program.
#[derive(Default)]
pub struct Report {
    failures: Vec<String>,
    /// Programs tried.
    pub programs: usize,
    /// Input sets tried (over all programs).
    pub inputs: usize,
    /// Programs skipped (both sides failed, or out of the check's range).
    pub skipped: usize,
}

/// The most failures a report shrinks and prints (the rest are counted).
const MAX_SHOWN: usize = 4;

impl Report {
    /// Records that `check` fails on `module` (generated from `seed`) with `message`;
    /// shrinks the module while `still_fails` holds (panics count as failing).
    pub fn fail(
        &mut self,
        check: &str,
        seed: u64,
        module: &Module,
        message: &str,
        still_fails: &mut dyn FnMut(&Module) -> bool,
    ) {
        if self.failures.len() >= MAX_SHOWN {
            self.failures.push(format!("{check}: seed {seed}: {message}"));
            return;
        }
        let mut guarded = |m: &Module| no_panic(|| still_fails(m)).unwrap_or(true);
        let small = shrink(module, &mut guarded);
        self.failures.push(format!(
            "{check}: seed {seed} (replay: FERRAX_SEED={seed} FERRAX_CASES=1): {message}\nshrunk program \
             (paste into ir/):\n{}",
            ferrax_ir::print(&small)
        ));
    }

    /// Panics with every failure when there is one; prints the counts either way.
    pub fn finish(&self, what: &str, min_programs: usize) {
        eprintln!(
            "{what}: {} programs, {} input sets, {} skipped, {} failures",
            self.programs,
            self.inputs,
            self.skipped,
            self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "{what}: {} failures:\n\n{}",
            self.failures.len(),
            self.failures.join("\n\n")
        );
        let min = min_programs.min(self.programs / 4);
        assert!(self.programs - self.skipped >= min, "{what}: only {} programs checked", self.programs - self.skipped);
    }
}
