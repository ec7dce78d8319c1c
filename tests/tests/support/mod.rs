//! Shared pieces of the reliability suites (`differential`, `fuzz`, `limits`,
//! `concurrency`): bit comparison, batching of arrays, the JIT-vs-interpreter check
//! under the exactness policy, and the failure report that shrinks a failing module
//! and prints it as IR text ready to paste into the `ir/` corpus.

#![allow(dead_code)]

use ferrax_ir::array::Data;
use ferrax_ir::testing::shrink;
use ferrax_ir::{Array, EvalOptions, Module, Prim};
use ferrax_jit::{JitOptions, compile, policy};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Loop iterations either backend may take on one run (generated loops are short; a
/// mutated or transformed one may not be).
pub const FUEL: u64 = 5000;

/// The allocation budget of every run here (64 MiB): generated programs are small, so
/// anything near it is a bug, and it keeps a runaway allocation from taking the machine.
pub const MAX_BYTES: u64 = 64 << 20;

/// Interpreter options with [`FUEL`] and [`MAX_BYTES`].
pub fn eval_options() -> EvalOptions {
    EvalOptions { fuel: Some(FUEL), budget: ferrax_ir::array::Budget::new(MAX_BYTES) }
}

/// JIT options with [`FUEL`] and [`MAX_BYTES`], one thread (the tests run in parallel).
pub fn jit_options() -> JitOptions {
    JitOptions { fuel: Some(FUEL), max_bytes: Some(MAX_BYTES), threads: 1, ..JitOptions::default() }
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
    let data = match parts[0].data() {
        Data::F32(_) => Data::F32(parts.iter().flat_map(|p| p.as_f32().unwrap().to_vec()).collect()),
        Data::F64(_) => Data::F64(parts.iter().flat_map(|p| p.as_f64().unwrap().to_vec()).collect()),
        Data::I32(_) => Data::I32(parts.iter().flat_map(|p| p.as_i32().unwrap().to_vec()).collect()),
        Data::Bool(_) => Data::Bool(parts.iter().flat_map(|p| p.as_bool().unwrap().to_vec()).collect()),
    };
    Array::new(shape, data).expect("stacked parts of one type")
}

/// The entry of `module` under the JIT against the interpreter: `Ok(true)` when both
/// ran and agree under the exactness policy, `Ok(false)` when both failed (or only the
/// interpreter ran out of budget: fusion never materialises some views), `Err` with a
/// description otherwise.
pub fn jit_vs_interpreter(module: &Module, args: &[Array]) -> Result<bool, String> {
    let expected = ferrax_ir::eval_entry(module, args, &eval_options());
    let exe = compile(module, &jit_options()).map_err(|e| format!("the JIT does not compile it: {e}"))?;
    match (expected, exe.call(args)) {
        (Ok(e), Ok(a)) => match policy::agree_for(module, &e, &a) {
            Ok(()) => Ok(true),
            // Chains of ill-conditioned ops (`tan(tan(x))`, `tan` of a GEMM) amplify the
            // last-bit differences the policy allows per op past any fixed tolerance:
            // with the interpreter's own math and no fma contraction, the JIT must agree.
            Err(first) => {
                let precise = JitOptions { precise_math: true, fma: false, ..jit_options() };
                let a = compile(module, &precise).and_then(|exe| exe.call(args)).map_err(|e| e.to_string())?;
                if let Err(again) = policy::agree_for(module, &e, &a) {
                    // A GEMM or a reduction sums in another order; an ill-conditioned op
                    // after it (tan near a pole) can amplify that past the policy. Such
                    // results must still agree to 1%.
                    let reassociates = module
                        .funcs
                        .values()
                        .flat_map(|f| &f.eqns)
                        .any(|q| matches!(q.prim, Prim::DotGeneral(_) | Prim::Reduce { .. } | Prim::Cumsum { .. }));
                    let loose = e.iter().zip(&a).all(|(x, y)| {
                        x.to_f64_vec().iter().zip(y.to_f64_vec()).all(|(p, q)| {
                            p.to_bits() == q.to_bits()
                                || (p.is_nan() && q.is_nan())
                                || (p - q).abs() <= 1e-2 * p.abs().max(q.abs()).max(1.0)
                        })
                    });
                    if !(reassociates && loose) {
                        return Err(format!("{again} (and with precise math: {first})"));
                    }
                }
                Ok(true)
            }
        },
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
            "{check}: seed {seed}: {message}\nshrunk program (paste into ir/):\n{}",
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
