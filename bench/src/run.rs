//! `ferrax-bench run`: for each workload, compile latency, the correctness gate, then
//! steady-state calls and buffer bytes.
//!
//! What each figure is (also in README.md's "Benchmarks" section):
//! - `compile` (ms, median over `--rounds`): a fresh closure traced with its
//!   transforms applied (`ferrax::trace_with_consts`) and compiled ahead of time
//!   (`ferrax::jit_module`: opt, fuse, Cranelift, the buffer plan). This is JAX's
//!   `jit(f).lower(*args).compile()`: no data is touched. `first_call` (ms) is the first
//!   `Jit::call` of a fresh `ferrax::jit(f)`: the same work plus one execution.
//! - `call_median`/`call_min`/`call_max` (µs): later `Jit::call`s, what a user's program
//!   does (note: it copies the argument arrays into the call, see the report); after
//!   `calls / 10` (at least 3) warm-up calls, each call timed on its own.
//! - `exec_median`/`exec_min`/`exec_max` (µs): the same executable called through
//!   `Executable::call_raw` on borrowed slices with preallocated results (no copies),
//!   the floor of the call.
//! - `peak_bytes`: argument + `Executable::workspace_bytes()` (the planned intermediate
//!   buffers after reuse), the counterpart of JAX's temp + argument bytes (what
//!   the peak-memory target compares): neither side counts its results there, which are the caller's
//!   (ferrax writes them straight into the arrays it returns). `total_bytes` adds the
//!   results on both sides (JAX: temp + argument + output); the parts are printed as
//!   `arg_bytes`, `result_bytes` and `workspace_bytes`.

use crate::data::{Inputs, read_npy};
use crate::gate::{Comparison, compare_all};
use crate::report::{Stats, call_figures, figure};
use crate::workloads::{Workload, select};
use crate::{Error, Result};
use ferrax::{Array, Tensor, Type};
use ferrax_ir::array::Data;
use ferrax_jit::{ArgRef, Executable, OutRef};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Options of `ferrax-bench run`.
#[derive(Clone, Debug)]
pub struct Options {
    /// The directory `gen` wrote (and `jax_out/` under it, if the JAX side ran).
    pub data: PathBuf,
    /// Workload names or ids (`W1`); empty for all.
    pub only: Vec<String>,
    /// Compile measurements per workload (the median is reported).
    pub rounds: usize,
    /// Timed calls per workload, overriding each workload's default.
    pub calls: Option<usize>,
}

/// Runs the selected workloads; `Ok(false)` when any failed its gate or errored (their
/// times are not reported, the others are).
pub fn run(options: &Options) -> Result<bool> {
    // W11 runs on workers, outside the registry of single-program workloads.
    let is_w11 = |w: &str| w.eq_ignore_ascii_case("W11") || w == "data_parallel";
    let wanted: Vec<&str> = options.only.iter().flat_map(|s| s.split(',')).map(str::trim).collect();
    let w11 = wanted.is_empty() || wanted.iter().any(|w| is_w11(w));
    let rest: Vec<String> = wanted.iter().filter(|w| !is_w11(w) && !w.is_empty()).map(|w| w.to_string()).collect();
    if !wanted.is_empty() && rest.is_empty() {
        let mut inputs = Inputs::from_dir(&options.data);
        return crate::w11_data_parallel::run(&mut inputs, options.calls);
    }
    let workloads = select(&rest)?;
    let mut inputs = Inputs::from_dir(&options.data);
    let jax_dir = options.data.join("jax_out");
    let jax_dir = jax_dir.is_dir().then_some(jax_dir);
    if jax_dir.is_none() {
        eprintln!(
            "note: {} has no jax_out/ (run bench/jax/bench.py first); checking against ferrax's interpreter only",
            options.data.display()
        );
    }
    let level = ferrax_jit::vector_isa().map_err(Error)?;
    eprintln!("note: vector level {} (host {})", level.name(), ferrax_jit::isa::host_isa().name());
    let mut all_passed = true;
    for w in &workloads {
        match run_one(w, &mut inputs, options, jax_dir.as_deref()) {
            Ok(true) => {}
            Ok(false) => all_passed = false,
            Err(e) => {
                eprintln!("{}: error: {e}", w.name);
                all_passed = false;
            }
        }
    }
    #[cfg(feature = "candle")]
    {
        all_passed &= crate::candle::run(options, &mut inputs, jax_dir.as_deref());
    }
    if w11 {
        match crate::w11_data_parallel::run(&mut inputs, options.calls) {
            Ok(passed) => all_passed &= passed,
            Err(e) => {
                eprintln!("data_parallel: error: {e}");
                all_passed = false;
            }
        }
    }
    Ok(all_passed)
}

/// The types of `args`.
pub fn types_of(args: &[Array]) -> Vec<Type> {
    args.iter().map(|a| Type::new(a.dtype(), a.shape())).collect()
}

/// The workload's results through `ferrax::jit` (traced and compiled on this call).
pub fn jit_results(w: &Workload, args: &[Array]) -> Result<Vec<Array>> {
    let f = ferrax::jit((w.program)());
    Ok(f.call::<Vec<Array>, Vec<Tensor>>(&args.to_vec())?)
}

/// The workload's results by ferrax's reference interpreter.
pub fn interp_results(w: &Workload, args: &[Array]) -> Result<Vec<Array>> {
    Ok(ferrax::eval::<Vec<Array>, Vec<Tensor>>((w.program)(), &args.to_vec())?)
}

/// Traces and compiles the workload ahead of time: the executable and how long it took.
pub fn compile(w: &Workload, types: &[Type]) -> Result<(Executable, Vec<Array>, Duration)> {
    let program = (w.program)();
    let start = Instant::now();
    let traced = ferrax::trace_with_consts(program, &types.to_vec())?;
    let exe = ferrax::jit_module(&traced.module)?;
    Ok((exe, traced.consts, start.elapsed()))
}

/// The work of one call by `ferrax_transform::cost` on the program as the JIT runs it
/// (optimised and fused): its FLOPs, and the bytes its steps read and write outside
/// the kernels (a kernel's temporaries live in registers and are not counted), which
/// is the memory traffic a memory-bound workload is held to.
pub fn work(w: &Workload, types: &[Type]) -> Result<(u64, u64)> {
    let traced = ferrax::trace_with_consts((w.program)(), &types.to_vec())?;
    let fused = ferrax_fuse::fuse(&ferrax_transform::opt(&traced.module)?)?;
    let cost = ferrax_transform::cost(&fused)?;
    let entry = cost.entry().ok_or_else(|| Error::at(w.name, "cost: no entry"))?;
    Ok((entry.flops, entry.bytes_read + entry.bytes_written))
}

/// JAX's saved results `DIR/<name>_<i>.npy` for `count` results.
pub fn jax_results(dir: &Path, name: &str, count: usize) -> Result<Vec<Array>> {
    (0..count).map(|i| read_npy(&dir.join(format!("{name}_{i}.npy")))).collect()
}

/// Checks `got` against JAX's results (or the interpreter's without them); prints the
/// worst error on stderr; whether every result passed.
pub fn gate(name: &str, got: &[Array], reference: &[Array], reductions: &[usize], against: &str) -> bool {
    gate_with(name, got, reference, reductions, false, against)
}

/// [`gate`], with every result checked at the bf16 tolerance when `mixed`.
pub fn gate_with(
    name: &str,
    got: &[Array],
    reference: &[Array],
    reductions: &[usize],
    mixed: bool,
    against: &str,
) -> bool {
    let comparisons = match mixed {
        true => got
            .iter()
            .zip(reference)
            .map(|(g, w)| crate::gate::compare(g, w, crate::gate::Tolerance::for_dtype(ferrax::DType::BF16)))
            .collect(),
        false => compare_all(got, reference, reductions),
    };
    let passed = comparisons.iter().all(Comparison::passed);
    let worst = comparisons.iter().enumerate().max_by(|a, b| a.1.worst.total_cmp(&b.1.worst));
    for (i, c) in comparisons.iter().enumerate().filter(|(_, c)| !c.passed()) {
        eprintln!("{name}: FAILED the gate against {against}: result {i}: {c}");
    }
    if let Some((i, c)) = worst {
        eprintln!("{name}: gate against {against}: {} (worst: result {i}: {c})", if passed { "ok" } else { "FAILED" });
    }
    passed
}

fn run_one(w: &Workload, inputs: &mut Inputs, options: &Options, jax_dir: Option<&Path>) -> Result<bool> {
    let args = (w.args)(inputs)?;
    let types = types_of(&args);

    // The correctness gate first: the first call of a fresh `jit` (timed as `first_call`).
    let jitted = ferrax::jit((w.program)());
    let start = Instant::now();
    let got = jitted.call::<Vec<Array>, Vec<Tensor>>(&args)?;
    let first_call = start.elapsed();
    let (reference, against) = match jax_dir {
        Some(dir) => (jax_results(dir, w.name, got.len())?, "JAX"),
        None => (interp_results(w, &args)?, "ferrax's interpreter"),
    };
    if !gate_with(w.name, &got, &reference, w.reductions, w.mixed, against) {
        eprintln!("{}: no times reported", w.name);
        return Ok(false);
    }

    let mut compiles = Vec::new();
    let mut compiled = None;
    for _ in 0..options.rounds.max(1) {
        let (exe, consts, took) = compile(w, &types)?;
        compiles.push(took);
        compiled = Some((exe, consts));
    }
    let (exe, consts) = compiled.ok_or_else(|| Error::at(w.name, "no compile round"))?;
    let compile = Stats::of(&compiles).ok_or_else(|| Error::at(w.name, "no compile round"))?;
    figure(w.name, "compile", compile.median.as_secs_f64() * 1e3, "ms");
    let (flops, moved) = work(w, &types)?;
    figure(w.name, "flops", flops as f64, "flop");
    figure(w.name, "moved_bytes", moved as f64, "bytes");
    figure(w.name, "first_call", first_call.as_secs_f64() * 1e3, "ms");

    let calls = options.calls.unwrap_or(w.calls).max(1);
    let warmup = Workload::warmup(calls);
    let user = time_calls(warmup, calls, || Ok(jitted.call::<Vec<Array>, Vec<Tensor>>(&args).map(drop)?))?;
    call_figures(w.name, "call", &user);

    let mut all_args = args.clone();
    all_args.extend(consts);
    let mut outs: Vec<Data> =
        exe.result_types().iter().map(|t| Data::zeros(t.dtype, t.element_count().unwrap_or(0))).collect();
    let arg_refs: Vec<ArgRef<'_>> = all_args.iter().map(arg_ref).collect();
    let exec = time_calls(warmup, calls, || {
        let mut out_refs: Vec<OutRef<'_>> = outs.iter_mut().map(out_ref).collect();
        Ok(exe.call_raw(&arg_refs, &mut out_refs)?)
    })?;
    call_figures(w.name, "exec", &exec);

    let arg_bytes: u64 = all_args.iter().map(Array::byte_len).sum();
    let result_bytes: u64 = got.iter().map(Array::byte_len).sum();
    let workspace = exe.workspace_bytes() as u64;
    figure(w.name, "peak_bytes", (arg_bytes + workspace) as f64, "bytes");
    figure(w.name, "total_bytes", (arg_bytes + result_bytes + workspace) as f64, "bytes");
    figure(w.name, "arg_bytes", arg_bytes as f64, "bytes");
    figure(w.name, "result_bytes", result_bytes as f64, "bytes");
    figure(w.name, "workspace_bytes", workspace as f64, "bytes");
    Ok(true)
}

/// `warmup` untimed calls, then `calls` calls timed one by one.
pub fn time_calls(warmup: usize, calls: usize, mut f: impl FnMut() -> Result<()>) -> Result<Stats> {
    for _ in 0..warmup {
        f()?;
    }
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed());
    }
    Stats::of(&times).ok_or_else(|| Error::at("time_calls", "no calls"))
}

fn arg_ref(a: &Array) -> ArgRef<'_> {
    match a.data() {
        Data::F32(v) => ArgRef::F32(v),
        Data::F64(v) => ArgRef::F64(v),
        Data::I32(v) => ArgRef::I32(v),
        Data::Bool(v) => ArgRef::Bool(v),
        Data::BF16(v) => ArgRef::BF16(v),
        Data::F16(v) => ArgRef::F16(v),
    }
}

fn out_ref(d: &mut Data) -> OutRef<'_> {
    match d {
        Data::F32(v) => OutRef::F32(v),
        Data::F64(v) => OutRef::F64(v),
        Data::I32(v) => OutRef::I32(v),
        Data::Bool(v) => OutRef::Bool(v),
        Data::BF16(v) => OutRef::BF16(v),
        Data::F16(v) => OutRef::F16(v),
    }
}
