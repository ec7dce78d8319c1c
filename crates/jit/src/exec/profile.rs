//! Per-step timing of compiled programs (`JitOptions::profile`, or the environment
//! variable `FERRAX_PROFILE` at compile time).
//!
//! When on, every call times each step of every program it runs and adds the time to
//! that step's total; [`Executable::profile`](crate::Executable::profile) formats the
//! totals as a table, longest first: where the time of a call goes, step by step (which
//! GEMM shape, which fused kernel), so a slow product or kernel is found without an
//! external profiler. A control step (`cond`, `while`, `scan`) counts the steps of the
//! programs it runs as well: its body's steps appear again on their own rows.
//!
//! Off (the default), a call pays one branch per step. On, it pays two clock reads per
//! step (tens of nanoseconds) and two relaxed atomic additions.

use super::{Plan, Step};
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that turns profiling on by default (any value but `0`) and
/// makes a dropped executable print its table to stderr.
pub const PROFILE_VAR: &str = "FERRAX_PROFILE";

/// Whether `FERRAX_PROFILE` asks for profiling.
pub(crate) fn from_env() -> bool {
    std::env::var_os(PROFILE_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// One step's totals.
#[derive(Default)]
struct Slot {
    nanos: AtomicU64,
    runs: AtomicU64,
}

/// The totals of every step of every program of a plan.
pub(crate) struct Profile {
    /// Per program, per step.
    slots: Vec<Vec<Slot>>,
    /// Calls of the executable so far.
    calls: AtomicU64,
}

impl Profile {
    /// Empty totals for `plan`'s steps.
    pub(crate) fn new(plan: &Plan) -> Profile {
        let slots = plan.programs.iter().map(|p| p.steps.iter().map(|_| Slot::default()).collect()).collect();
        Profile { slots, calls: AtomicU64::new(0) }
    }

    /// Counts one call.
    pub(crate) fn call(&self) {
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    /// Calls counted so far.
    pub(crate) fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Adds one run of step `step` of program `program`.
    pub(crate) fn add(&self, program: usize, step: usize, nanos: u64) {
        if let Some(slot) = self.slots.get(program).and_then(|p| p.get(step)) {
            slot.nanos.fetch_add(nanos, Ordering::Relaxed);
            slot.runs.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The table: one row per step that ran, longest total first, with its share of the
    /// entry program's time (the sum of its top-level steps).
    pub(crate) fn report(&self, plan: &Plan, entry: &str) -> String {
        let calls = self.calls.load(Ordering::Relaxed);
        let mut rows = Vec::new();
        for (p, (program, slots)) in plan.programs.iter().zip(&self.slots).enumerate() {
            for (s, (step, slot)) in program.steps.iter().zip(slots).enumerate() {
                let runs = slot.runs.load(Ordering::Relaxed);
                if runs > 0 {
                    rows.push((slot.nanos.load(Ordering::Relaxed), runs, p, s, step));
                }
            }
        }
        let entry_nanos: u64 = rows.iter().filter(|r| r.2 == 0).map(|r| r.0).sum();
        rows.sort_by(|a, b| b.0.cmp(&a.0).then((a.2, a.3).cmp(&(b.2, b.3))));
        let per_call = |nanos: u64| nanos as f64 / calls.max(1) as f64 / 1e3;
        let mut out = format!(
            "ferrax profile of @{entry}: {calls} calls, {:.1} us a call in {} steps\n\
             {:>9} {:>6} {:>9}  {:<24} {:<14} what\n",
            per_call(entry_nanos),
            plan.programs.iter().map(|p| p.steps.len()).sum::<usize>(),
            "us/call",
            "share",
            "runs",
            "where",
            "prim",
        );
        for (nanos, runs, p, _, step) in rows {
            let share = 100.0 * nanos as f64 / entry_nanos.max(1) as f64;
            let place = format!("@{} eqn {}", plan.programs[p].name, step.eqn);
            let _ = writeln!(
                out,
                "{:>9.1} {:>5.1}% {:>9}  {:<24} {:<14} {}",
                per_call(nanos),
                share,
                runs,
                place,
                step.prim,
                describe(plan, &step.step)
            );
        }
        out
    }
}

/// What a step does, in a few words (the kernel's Func, the GEMM's shape).
fn describe(plan: &Plan, step: &Step) -> String {
    match step {
        Step::Collective { .. } => "collective".into(),
        Step::ReduceStart { ticket, .. } => format!("reduction bucket {ticket} started"),
        Step::ReduceFinish { ticket } => format!("reduction bucket {ticket} awaited"),
        Step::Kernel { kernel, outer, .. } => {
            let name = plan.kernel_names.get(*kernel).map_or("?", String::as_str);
            format!("kernel @{name} over {outer}")
        }
        Step::Gemm(g) => format!("gemm {}", g.gemm.describe()),
        Step::GemmPair(pair) => format!("gemm pair {} | {}", pair[0].gemm.describe(), pair[1].gemm.describe()),
        Step::Cond { .. } => "cond (with its branch)".into(),
        Step::While { .. } => "while (with its body)".into(),
        Step::Scan(sc) => format!("scan of {} (with its body)", sc.length),
        Step::Opaque { .. } => "native".into(),
        Step::Offload { bytes, .. } => format!("offload of {bytes} bytes"),
        Step::Reload { bytes, .. } => format!("reload of {bytes} bytes"),
        Step::Copy { bytes, .. } => format!("copy of {bytes} bytes"),
    }
}
