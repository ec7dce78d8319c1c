//! The cost model (memory-aware reverse mode): per Func, flops,
//! bytes read and written, and the peak live bytes under the schedule, which is the
//! Func's equation order. [`checkpoint`](crate::grad_with_budget) judges its plans by
//! the peak of this model, and `ferrax cost` prints it.
//!
//! Liveness. Parameters are caller-owned: their bytes are [`FuncCost::argument_bytes`],
//! live for the whole call. A value an equation defines is a buffer live from its
//! defining equation to its last use (a result: to the end of the Func); while an
//! equation runs, its inputs and its outputs are live together. The largest sum of
//! live defined values over the schedule is [`FuncCost::temp_peak_bytes`] (results
//! included while they are live, so it is at least the bytes of the defined results);
//! [`FuncCost::peak_live_bytes`] is arguments plus that temp peak. (JAX's
//! `memory_analysis` reports argument, output and temp bytes separately; so does this.)
//!
//! Structured primitives (`call`, `cond`, `while`, `scan`, `remat`, `custom_jvp`,
//! `custom_vjp`) cost their bodies times the trip count: `scan` its `length`, `while`
//! its `max_iters` (body and predicate), or, unbounded, one iteration, which
//! [`FuncCost::unbounded_whiles`] counts so the report can say so; `cond` the most
//! expensive branch; `custom_jvp`/`custom_vjp` and `remat` run their `func` (the
//! forward pass). While the body runs, the body's temp peak is live on top of the
//! caller's live values (its outputs being the equation's outputs, only the part of
//! the body's temp peak beyond them is added; a scan's stacked outputs are separate
//! buffers, so the whole body peak is added).
//!
//! At the peak, the report also splits the Func's own live values (parameters
//! included) by dtype, so that mixed precision's saving shows where it matters; what
//! lives inside the bodies of the equation running at the peak is given as one figure.
//!
//! Offloading: the result of `offload` is kept in the run's spill file, not in memory,
//! so it adds nothing to the live bytes; the bytes `offload` writes there are
//! [`FuncCost::offloaded_bytes`] (times trip counts in bodies). `reload` reads them back
//! into a new buffer, live from there as any other value.
//!
//! Collectives: the bytes of each collective's operand, what one worker hands to the
//! others, are [`FuncCost::communicated_bytes`] (times trip counts in bodies).
//!
//! Kernels (Funcs marked `[kind="fusion"]`): the values inside a kernel are not
//! buffers, so a `call` of a kernel costs the kernel's flops, reads its inputs, writes
//! its outputs and adds nothing to the peak; a kernel's own report counts its
//! arguments read and its results written.
//!
//! The flop weights per primitive are in `cost/flops.rs`.

mod flops;

pub use flops::RANDOM_BITS_FLOPS;

use crate::residuals::{Residual, saved_residuals};
use crate::wrt::Wrt;
use ferrax_ir::prim::Prim;
use ferrax_ir::prim::Trips;
use ferrax_ir::{AttrValue, Error, Func, MAX_NESTING, Module, Type, Value};
use std::collections::HashMap;
use std::fmt;

/// The cost of one Func (bodies of structured primitives included).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FuncCost {
    /// The Func's name, without `@`.
    pub name: String,
    /// Marked `[kind="fusion"]`: a kernel, whose values are not buffers.
    pub kernel: bool,
    /// Floating-point (and integer) operations.
    pub flops: u64,
    /// Elements of transcendental primitives (also counted in `flops`).
    pub transcendentals: u64,
    /// Bytes read by the equations (each equation reads all its inputs).
    pub bytes_read: u64,
    /// Bytes written by the equations.
    pub bytes_written: u64,
    /// Bytes of the parameters (caller-owned, live throughout).
    pub argument_bytes: u64,
    /// Bytes of the results (a result that is a parameter included).
    pub output_bytes: u64,
    /// Peak bytes of live values defined by equations (results included while live).
    pub temp_peak_bytes: u64,
    /// `argument_bytes + temp_peak_bytes`: the peak live bytes of a call.
    pub peak_live_bytes: u64,
    /// `while` loops without `max_iters`, counted as one iteration (nested ones too).
    pub unbounded_whiles: u64,
    /// Bytes `offload` writes to the spill file (kept out of memory until `reload`).
    pub offloaded_bytes: u64,
    /// Bytes the collectives hand to the other workers: each collective's operand,
    /// once per run of it (an engine's algorithm may move a small multiple of that).
    pub communicated_bytes: u64,
    /// At the peak: the bytes of the Func's own live values (parameters included), per
    /// dtype, in dtype order.
    pub live_at_peak_by_dtype: Vec<(ferrax_ir::DType, u64)>,
    /// At the peak: the bytes live inside the bodies of the equation running then (a
    /// loop's or a call's temporaries), which the per-dtype figures leave out.
    pub live_at_peak_in_bodies: u64,
}

/// The cost of every Func of a module, in module order (the entry first), and
/// optionally the residuals of the entry's reverse mode.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cost {
    /// One report per Func.
    pub funcs: Vec<FuncCost>,
    /// The residuals reverse mode keeps (see [`saved_residuals`]), when asked for.
    pub residuals: Option<Vec<Residual>>,
    /// Why the residuals are missing, when they were asked for by default and reverse
    /// mode does not apply to the entry (an unbounded `while`, say).
    pub residuals_unavailable: Option<String>,
}

impl Cost {
    /// The entry's report.
    pub fn entry(&self) -> Option<&FuncCost> {
        self.funcs.first()
    }

    /// A Func's report by name.
    pub fn func(&self, name: &str) -> Option<&FuncCost> {
        self.funcs.iter().find(|f| f.name == name)
    }
}

/// The cost of every Func of `module`.
pub fn cost(module: &Module) -> Result<Cost, Error> {
    let mut memo = Memo { module, done: HashMap::new() };
    let mut funcs = Vec::with_capacity(module.funcs.len());
    for name in module.funcs.keys() {
        funcs.push(memo.func(name, 0)?);
    }
    Ok(Cost { funcs, residuals: None, residuals_unavailable: None })
}

/// [`cost`], plus the residuals of reverse mode through the entry with respect to
/// `wrt`. With an explicit `wrt`, an entry reverse mode cannot go through is an error;
/// with [`Wrt::Default`] (every float parameter), an entry without float parameters
/// has no residuals, and one that reverse mode cannot go through gets the reason in
/// [`Cost::residuals_unavailable`] instead.
pub fn cost_with_residuals(module: &Module, wrt: &Wrt) -> Result<Cost, Error> {
    let mut report = cost(module)?;
    let entry = crate::entry(module)?;
    match wrt {
        Wrt::Params(_) => report.residuals = Some(saved_residuals(module, wrt)?),
        Wrt::Default if entry.params.iter().any(|&p| entry.ty(p).dtype.is_float()) => {
            match saved_residuals(module, wrt) {
                Ok(residuals) => report.residuals = Some(residuals),
                Err(e) => report.residuals_unavailable = Some(e.to_string()),
            }
        }
        Wrt::Default => {}
    }
    Ok(report)
}

/// The peak live bytes of `module`'s entry.
pub fn peak_live_bytes(module: &Module) -> Result<u64, Error> {
    let f = crate::entry(module)?;
    let mut memo = Memo { module, done: HashMap::new() };
    Ok(memo.func(&f.name, 0)?.peak_live_bytes)
}

/// Memoised per-Func costs.
struct Memo<'a> {
    module: &'a Module,
    done: HashMap<String, FuncCost>,
}

/// What running one equation costs.
#[derive(Default)]
struct Step {
    flops: u64,
    transcendentals: u64,
    read: u64,
    written: u64,
    /// Temp bytes live inside the equation beyond its outputs.
    extra_peak: u64,
    unbounded: u64,
    offloaded: u64,
    communicated: u64,
}

impl Step {
    /// `body` run `trips` times.
    fn body(body: &FuncCost, trips: u64) -> Step {
        Step {
            flops: body.flops.saturating_mul(trips),
            transcendentals: body.transcendentals.saturating_mul(trips),
            read: body.bytes_read.saturating_mul(trips),
            written: body.bytes_written.saturating_mul(trips),
            extra_peak: body.temp_peak_bytes,
            unbounded: body.unbounded_whiles,
            offloaded: body.offloaded_bytes.saturating_mul(trips),
            communicated: body.communicated_bytes.saturating_mul(trips),
        }
    }

    /// Both run (the peak is the larger of the two, as they do not overlap).
    fn and(self, other: Step) -> Step {
        Step {
            flops: self.flops.saturating_add(other.flops),
            transcendentals: self.transcendentals.saturating_add(other.transcendentals),
            read: self.read.saturating_add(other.read),
            written: self.written.saturating_add(other.written),
            extra_peak: self.extra_peak.max(other.extra_peak),
            unbounded: self.unbounded.saturating_add(other.unbounded),
            offloaded: self.offloaded.saturating_add(other.offloaded),
            communicated: self.communicated.saturating_add(other.communicated),
        }
    }

    /// The most expensive of the two, field by field (a `cond`).
    fn max(self, other: Step) -> Step {
        Step {
            flops: self.flops.max(other.flops),
            transcendentals: self.transcendentals.max(other.transcendentals),
            read: self.read.max(other.read),
            written: self.written.max(other.written),
            extra_peak: self.extra_peak.max(other.extra_peak),
            unbounded: self.unbounded.max(other.unbounded),
            offloaded: self.offloaded.max(other.offloaded),
            communicated: self.communicated.max(other.communicated),
        }
    }
}

/// The bytes per dtype of `func`'s parameters and of the values defined by step `at`
/// and still live there (`last`: the last step using each value), in dtype order.
fn live_by_dtype(func: &Func, last: &[Option<usize>], at: usize) -> Result<Vec<(ferrax_ir::DType, u64)>, Error> {
    let mut live: Vec<&Type> = func.params.iter().map(|&p| func.ty(p)).collect();
    for (i, eqn) in func.eqns.iter().enumerate().take(at + 1) {
        if !eqn.prim.is_offload() {
            let alive = eqn.outputs.iter().filter(|o| last[o.index()].unwrap_or(i).max(i) >= at);
            live.extend(alive.map(|&o| func.ty(o)));
        }
    }
    let sized: Vec<(ferrax_ir::DType, u64)> =
        live.into_iter().map(|ty| Ok((ty.dtype, bytes(func, ty)?))).collect::<Result<_, Error>>()?;
    Ok(tally(sized))
}

/// The bytes of `items` summed per dtype, in dtype order.
fn tally(items: impl IntoIterator<Item = (ferrax_ir::DType, u64)>) -> Vec<(ferrax_ir::DType, u64)> {
    let mut totals: Vec<(ferrax_ir::DType, u64)> = Vec::new();
    for (dtype, b) in items {
        match totals.iter_mut().find(|(d, _)| *d == dtype) {
            Some((_, total)) => *total = total.saturating_add(b),
            None => totals.push((dtype, b)),
        }
    }
    totals.sort_by_key(|(d, _)| *d);
    totals
}

/// The bytes of a value of type `ty`, or an error naming `func`.
fn bytes(func: &Func, ty: &Type) -> Result<u64, Error> {
    ty.byte_size().map_err(|e| crate::error(&func.name, format!("cost: a value of type {ty}: {e}")))
}

fn sum_bytes(func: &Func, values: &[Value]) -> Result<u64, Error> {
    values.iter().try_fold(0u64, |acc, &v| Ok(acc.saturating_add(bytes(func, func.ty(v))?)))
}

fn is_kernel(func: &Func) -> bool {
    matches!(func.attr("kind"), Some(AttrValue::Str(s)) if s == "fusion")
}

impl Memo<'_> {
    fn func(&mut self, name: &str, depth: usize) -> Result<FuncCost, Error> {
        if let Some(done) = self.done.get(name) {
            return Ok(done.clone());
        }
        if depth > MAX_NESTING {
            return Err(crate::error(name, format!("cost: bodies nest deeper than {MAX_NESTING}")));
        }
        let func = self.module.func(name).ok_or_else(|| crate::error(name, format!("cost: no Func @{name}")))?;
        let kernel = is_kernel(func);
        let mut report = FuncCost {
            name: name.to_string(),
            kernel,
            argument_bytes: sum_bytes(func, &func.params)?,
            output_bytes: sum_bytes(func, &func.results)?,
            ..FuncCost::default()
        };
        // Liveness: the last step (equation index; `n` = the return) that uses each value.
        let n = func.eqns.len();
        let last: Vec<Option<usize>> = func.last_uses().iter().map(|l| l.step(n)).collect();
        // live[i] change: +bytes at the defining step, -bytes after the last use.
        let mut delta = vec![0i128; n + 2];
        let mut extra = vec![0u64; n + 1];
        for (i, eqn) in func.eqns.iter().enumerate() {
            let step = self.step(func, eqn, depth)?;
            report.flops = report.flops.saturating_add(step.flops);
            report.transcendentals = report.transcendentals.saturating_add(step.transcendentals);
            report.bytes_read = report.bytes_read.saturating_add(step.read);
            report.bytes_written = report.bytes_written.saturating_add(step.written);
            report.unbounded_whiles = report.unbounded_whiles.saturating_add(step.unbounded);
            report.offloaded_bytes = report.offloaded_bytes.saturating_add(step.offloaded);
            report.communicated_bytes = report.communicated_bytes.saturating_add(step.communicated);
            let out_bytes = sum_bytes(func, &eqn.outputs)?;
            extra[i] = step.extra_peak.saturating_sub(if eqn.prim.scan_params().is_some() { 0 } else { out_bytes });
            if eqn.prim.is_offload() {
                continue; // in the spill file, not in memory
            }
            for &o in &eqn.outputs {
                let b = i128::from(bytes(func, func.ty(o))?);
                let end = last[o.index()].unwrap_or(i).max(i);
                delta[i] += b;
                delta[end + 1] -= b;
            }
        }
        let mut live: i128 = 0;
        let (mut peak, mut peak_at) = (0u64, 0usize);
        for i in 0..=n {
            live += delta[i];
            let here = u64::try_from(live).unwrap_or(0).saturating_add(extra[i]);
            if here > peak {
                (peak, peak_at) = (here, i);
            }
        }
        report.live_at_peak_by_dtype = live_by_dtype(func, &last, peak_at)?;
        report.live_at_peak_in_bodies = extra[peak_at];
        if kernel {
            report.bytes_read = report.argument_bytes;
            report.bytes_written = report.output_bytes;
        }
        report.temp_peak_bytes = peak;
        report.peak_live_bytes = report.argument_bytes.saturating_add(peak);
        self.done.insert(name.to_string(), report.clone());
        Ok(report)
    }

    /// What one equation costs; structured ones by their bodies.
    fn step(&mut self, func: &Func, eqn: &ferrax_ir::Eqn, depth: usize) -> Result<Step, Error> {
        let read = sum_bytes(func, &eqn.inputs)?;
        let written = sum_bytes(func, &eqn.outputs)?;
        let simple = |(flops, transcendentals): (u64, u64)| Step {
            flops,
            transcendentals,
            read,
            written,
            extra_peak: 0,
            unbounded: 0,
            offloaded: 0,
            communicated: 0,
        };
        let step = match &eqn.prim {
            // Its bodies, times their trip counts; the alternatives of a branch at the
            // most expensive; a loop without a bound counted as one trip, and noted.
            Prim::Control(op) => {
                let (mut step, mut branches) = (Step::default(), Step::default());
                for (callee, trips) in op.runs() {
                    let body = self.func(callee, depth + 1)?;
                    let trips = match trips {
                        // A branch: the dearest alternative.
                        Trips::OneOf => {
                            branches = branches.max(Step::body(&body, 1));
                            continue;
                        }
                        // A launch of a fusion kernel: its traffic is the launch's own
                        // operands and results.
                        Trips::Once if body.kernel && eqn.prim.callee().is_some() => {
                            step = step.and(Step {
                                flops: body.flops,
                                transcendentals: body.transcendentals,
                                ..simple((0, 0))
                            });
                            continue;
                        }
                        Trips::Once => 1,
                        Trips::Times(n) => n,
                        Trips::Loop { max_iters } => max_iters.map_or(1, |k| k as u64),
                    };
                    step = step.and(Step::body(&body, trips));
                }
                let mut step = step.and(branches);
                step.unbounded = step.unbounded.saturating_add(u64::from(op.unbounded()));
                step
            }
            Prim::Unary(_)
            | Prim::Name { .. }
            | Prim::Binary(_)
            | Prim::Compare(_)
            | Prim::Ternary(_)
            | Prim::Shape(_)
            | Prim::Index(_)
            | Prim::Reduction(_)
            | Prim::Linalg(_)
            | Prim::Random(_)
            | Prim::Conv(_)
            | Prim::Window(_) => simple(flops::eqn_flops(func, eqn)),
            prim if prim.is_offload() => Step { written: 0, offloaded: read, ..simple((0, 0)) },
            // `reload` (an `offload` is the arm above): written, not read from memory.
            Prim::Memory(_) => Step { read: 0, ..simple((0, 0)) },
            Prim::Sort(op) => simple((flops::sort_flops(func, eqn, *op), 0)),
            // Data handed to the other workers, not computed here.
            Prim::Collective(_) => Step { communicated: read, ..simple((0, 0)) },
        };
        Ok(step)
    }
}

impl fmt::Display for FuncCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.kernel { " (kernel: its values are not buffers)" } else { "" };
        writeln!(f, "@{}{kind}", self.name)?;
        writeln!(f, "  flops            {} ({} transcendental)", self.flops, self.transcendentals)?;
        writeln!(f, "  bytes read       {}", self.bytes_read)?;
        writeln!(f, "  bytes written    {}", self.bytes_written)?;
        writeln!(f, "  argument bytes   {}", self.argument_bytes)?;
        writeln!(f, "  output bytes     {}", self.output_bytes)?;
        writeln!(f, "  temp peak bytes  {}", self.temp_peak_bytes)?;
        write!(f, "  peak live bytes  {}", self.peak_live_bytes)?;
        if self.offloaded_bytes > 0 {
            write!(f, "\n  offloaded bytes  {}", self.offloaded_bytes)?;
        }
        if self.communicated_bytes > 0 {
            write!(f, "\n  communicated bytes  {}", self.communicated_bytes)?;
        }
        if !self.kernel && !self.live_at_peak_by_dtype.is_empty() {
            let parts: Vec<String> = self.live_at_peak_by_dtype.iter().map(|(d, b)| format!("{d} {b}")).collect();
            write!(f, "\n  live at the peak, by dtype (bytes): {}", parts.join(", "))?;
            if self.live_at_peak_in_bodies > 0 {
                write!(f, "; {} inside bodies", self.live_at_peak_in_bodies)?;
            }
        }
        if self.unbounded_whiles > 0 {
            write!(f, "\n  note: {} while loop(s) without max_iters counted as one iteration", self.unbounded_whiles)?;
        }
        Ok(())
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.funcs.iter().map(FuncCost::to_string).collect();
        write!(f, "{}", parts.join("\n"))?;
        if let Some(residuals) = &self.residuals {
            let name = self.entry().map_or("", |e| e.name.as_str());
            write_residuals(f, name, residuals)?;
        }
        if let Some(why) = &self.residuals_unavailable {
            write!(f, "\nresiduals: reverse mode does not apply ({why})")?;
        }
        Ok(())
    }
}

/// The bytes of the saved residuals that the forward pass computed and keeps in memory
/// (parameters, recomputed and offloaded values excluded), per dtype, in dtype order:
/// what mixed precision shrinks.
pub fn residual_bytes_by_dtype(residuals: &[Residual]) -> Vec<(ferrax_ir::DType, u64)> {
    bytes_by_dtype(residuals.iter().filter(|r| !r.recomputed && !r.parameter && !r.offloaded))
}

/// The bytes of the residuals kept in the spill file instead of memory (a
/// `remat[policy="offload"]` region's), per dtype, in dtype order.
pub fn offloaded_bytes_by_dtype(residuals: &[Residual]) -> Vec<(ferrax_ir::DType, u64)> {
    bytes_by_dtype(residuals.iter().filter(|r| r.offloaded))
}

fn bytes_by_dtype<'r>(residuals: impl Iterator<Item = &'r Residual>) -> Vec<(ferrax_ir::DType, u64)> {
    tally(residuals.map(|r| (r.ty.dtype, r.bytes)))
}

/// The residual section of the report: saved ones with their total, then recomputed ones.
fn write_residuals(f: &mut fmt::Formatter<'_>, name: &str, residuals: &[Residual]) -> fmt::Result {
    let saved: Vec<&Residual> = residuals.iter().filter(|r| !r.recomputed).collect();
    let total: u64 = saved.iter().map(|r| r.bytes).fold(0, u64::saturating_add);
    write!(f, "\nresiduals of reverse mode through @{name}: {} saved, {total} bytes", saved.len())?;
    let list = |totals: Vec<(ferrax_ir::DType, u64)>| -> String {
        totals.iter().map(|(dtype, bytes)| format!("{dtype} {bytes}")).collect::<Vec<_>>().join(", ")
    };
    let (in_memory, offloaded) = (list(residual_bytes_by_dtype(residuals)), list(offloaded_bytes_by_dtype(residuals)));
    if !in_memory.is_empty() {
        write!(f, "\n  forward values saved, by dtype (bytes): {in_memory}")?;
    }
    if !offloaded.is_empty() {
        write!(f, "\n  forward values offloaded to the spill file, by dtype (bytes): {offloaded}")?;
    }
    for r in residuals {
        let mark = match (r.recomputed, r.offloaded) {
            (true, _) => "recomputed",
            (false, true) => "offloaded",
            (false, false) => "saved",
        };
        let loc = r.loc.as_deref().map(|l| format!(" at {l}")).unwrap_or_default();
        write!(f, "\n  {mark:<10} {:<16} {:>10} bytes  {}{loc}", r.ty.to_string(), r.bytes, r.origin)?;
    }
    Ok(())
}
