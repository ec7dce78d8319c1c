//! Checkpointing to a byte budget: [`grad_with_budget`] and
//! [`value_and_grad_with_budget`] choose which parts of the forward pass the backward
//! pass recomputes so that the gradient's peak live bytes (the [`cost`](crate::cost)
//! model, measured on exactly the module returned) fit a budget.
//!
//! The heuristic. The unconstrained gradient is built first; if it fits, it is the
//! answer. Otherwise the entry (after dead-code elimination) is cut into `s` segments
//! of consecutive equations, each a `remat[func=@<f>_seg<i>, policy="nothing"]`
//! region: reverse mode then saves only each region's inputs and recomputes the
//! region where the backward pass transposes it (`partial/remat.rs`), so the peak is
//! about the saved boundaries plus one segment's residuals. The cut before segment j
//! is chosen near the even position `j·n/s`, within half a segment of it, where the
//! fewest bytes cross it (small live sets make cheap boundaries). Segment counts from
//! 2 up to the number of equations are tried (all up to 16, then growing by a
//! quarter), and with them, when the entry has `scan`s without a checkpoint, the scan
//! checkpoint intervals `K` (`√length` and the powers of two below the length). Among
//! the plans that fit, the few with the most room are then relaxed greedily: from the
//! last segment back (at most [`MAX_RELAX`] of them), a region is unwrapped (its equations run plainly, its residuals
//! saved) whenever the gradient still fits. The plan with the least recomputed flops
//! (the gradient's flops minus the unconstrained gradient's) wins; if none fits, the
//! error names the best peak found.
//!
//! Only dead-code elimination cleans the result (the gradient passes run it), never
//! `cse` or `opt`: the recomputation in the backward pass is the same equations on the
//! same inputs as the forward computation, so `cse` would merge the two and keep the
//! forward values alive until the backward pass, undoing the checkpointing. A caller
//! that runs `opt` on the result gets the unconstrained memory back. The gradient's
//! values are unchanged bit for bit: the recomputation repeats the same primitives on
//! the same inputs, and the transposed equations are the same.

use crate::cost::{cost, peak_live_bytes};
use crate::wrt::Wrt;
use ferrax_ir::prim::{Prim, RematPolicy};
use ferrax_ir::{Eqn, Error, Func, Module, Value};
use std::fmt;

/// At most this many regions of a plan are tried for unwrapping (each try builds and
/// measures a gradient), so that the search stays linear in the module's size.
pub const MAX_RELAX: usize = 64;

/// What [`grad_with_budget`] chose and measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckpointReport {
    /// The budget, in bytes.
    pub budget: u64,
    /// The peak live bytes of the unconstrained gradient.
    pub unconstrained_peak: u64,
    /// The peak live bytes of the returned gradient.
    pub peak: u64,
    /// Segments the forward pass was cut into (1: not cut).
    pub segments: usize,
    /// How many of them are recomputed (`remat` regions).
    pub rematerialized: usize,
    /// The checkpoint interval given to the entry's scans, if any.
    pub scan_checkpoint: Option<usize>,
    /// Flops of the returned gradient minus those of the unconstrained one.
    pub recomputed_flops: u64,
    /// How many plans were built and measured.
    pub plans_tried: usize,
}

impl fmt::Display for CheckpointReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "peak {} bytes (budget {}, unconstrained {}); {} of {} segments recomputed",
            self.peak, self.budget, self.unconstrained_peak, self.rematerialized, self.segments
        )?;
        if let Some(k) = self.scan_checkpoint {
            write!(f, ", scans checkpointed every {k} steps")?;
        }
        write!(f, "; {} recomputed flops; {} plans tried", self.recomputed_flops, self.plans_tried)
    }
}

/// `grad(f, wrt, has_aux)` whose peak live bytes fit `max_bytes` (see the module docs).
pub fn grad_with_budget(
    module: &Module,
    wrt: &Wrt,
    has_aux: bool,
    max_bytes: u64,
) -> Result<(Module, CheckpointReport), Error> {
    budgeted(module, max_bytes, &|m| crate::grad(m, wrt, has_aux))
}

/// `value_and_grad(f, wrt, has_aux)` whose peak live bytes fit `max_bytes`.
pub fn value_and_grad_with_budget(
    module: &Module,
    wrt: &Wrt,
    has_aux: bool,
    max_bytes: u64,
) -> Result<(Module, CheckpointReport), Error> {
    budgeted(module, max_bytes, &|m| crate::value_and_grad(m, wrt, has_aux))
}

/// A way to checkpoint the forward pass.
#[derive(Clone, Debug)]
struct Plan {
    /// Start index of every segment but the first.
    cuts: Vec<usize>,
    /// Which segments are `remat` regions.
    remat: Vec<bool>,
    /// Checkpoint interval for the entry's unchecked scans.
    scan_k: Option<usize>,
}

/// A built and measured plan.
struct Measured {
    plan: Plan,
    module: Module,
    peak: u64,
    flops: u64,
}

type Differentiate<'a> = dyn Fn(&Module) -> Result<Module, Error> + 'a;

fn budgeted(module: &Module, budget: u64, diff: &Differentiate) -> Result<(Module, CheckpointReport), Error> {
    let base = diff(module)?;
    let base_cost = cost(&base)?;
    let base_peak = base_cost.entry().map_or(0, |e| e.peak_live_bytes);
    let base_flops = base_cost.entry().map_or(0, |e| e.flops);
    let mut report = CheckpointReport {
        budget,
        unconstrained_peak: base_peak,
        peak: base_peak,
        segments: 1,
        plans_tried: 1,
        ..CheckpointReport::default()
    };
    if base_peak <= budget {
        return Ok((base, report));
    }
    let f = crate::dce::dce_func(crate::entry(module)?);
    let n = f.eqns.len();
    let crossing = crossing_bytes(&f)?;
    let scan_ks = scan_intervals(&f);
    let mut measured: Vec<Measured> = Vec::new();
    let mut best_peak = base_peak;
    let mut try_plan = |plan: Plan, report: &mut CheckpointReport| -> Result<Measured, Error> {
        let forward = build(module, &f, &plan)?;
        let grad = diff(&forward)?;
        report.plans_tried += 1;
        let c = cost(&grad)?;
        let (peak, flops) = c.entry().map_or((0, 0), |e| (e.peak_live_bytes, e.flops));
        best_peak = best_peak.min(peak);
        Ok(Measured { plan, module: grad, peak, flops })
    };
    for &scan_k in &scan_ks {
        for s in segment_counts(n) {
            let cuts = choose_cuts(n, s, &crossing);
            let plan = Plan { remat: vec![s > 1; cuts.len() + 1], cuts, scan_k };
            measured.push(try_plan(plan, &mut report)?);
        }
    }
    let mut fitting: Vec<Measured> = measured.into_iter().filter(|m| m.peak <= budget).collect();
    if fitting.is_empty() {
        return Err(crate::error(
            &f.name,
            format!(
                "checkpoint: no plan fits the budget of {budget} bytes; the best peak found is {best_peak} bytes \
                 (unconstrained: {base_peak} bytes)"
            ),
        ));
    }
    // Relax the plans with the most room: unwrap regions while the gradient still fits.
    fitting.sort_by_key(|m| (m.peak, m.flops));
    let mut relaxed = Vec::new();
    for m in fitting.iter().take(3) {
        let mut current = Measured { plan: m.plan.clone(), module: m.module.clone(), peak: m.peak, flops: m.flops };
        let regions: Vec<usize> = (0..current.plan.remat.len()).rev().filter(|&i| current.plan.remat[i]).collect();
        for seg in regions.into_iter().take(MAX_RELAX) {
            let mut plan = current.plan.clone();
            plan.remat[seg] = false;
            let candidate = try_plan(plan, &mut report)?;
            if candidate.peak <= budget && candidate.flops <= current.flops {
                current = candidate;
            }
        }
        relaxed.push(current);
    }
    fitting.extend(relaxed);
    let Some(best) = fitting.into_iter().min_by_key(|m| (m.flops, m.peak)) else {
        return Err(crate::error(&f.name, "checkpoint: no plan was measured"));
    };
    report.peak = peak_live_bytes(&best.module)?;
    report.segments = best.plan.cuts.len() + 1;
    report.rematerialized = best.plan.remat.iter().filter(|&&r| r).count();
    report.scan_checkpoint = best.plan.scan_k;
    report.recomputed_flops = best.flops.saturating_sub(base_flops);
    Ok((best.module, report))
}

/// Segment counts to try for `n` equations: every count up to 16, then growing by a
/// quarter, up to `n`.
fn segment_counts(n: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = (2..=n.min(16)).collect();
    let mut s = 16usize;
    while s < n {
        s = (s + s / 4).min(n);
        counts.push(s);
    }
    counts
}

/// The scan checkpoint intervals to try: none alone if the entry has no unchecked scan,
/// else also `√length` and the powers of two below the longest length.
fn scan_intervals(f: &Func) -> Vec<Option<usize>> {
    let longest =
        f.eqns.iter().filter_map(|e| e.prim.scan_params().filter(|p| p.checkpoint.is_none()).map(|p| p.length)).max();
    let mut ks = vec![None];
    if let Some(len) = longest {
        let mut list: Vec<usize> = (1..).map(|i| 1usize << i).take_while(|&k| k < len).collect();
        list.push(len.isqrt().max(2));
        list.sort_unstable();
        list.dedup();
        ks.extend(list.into_iter().filter(|&k| k > 1 && k < len).map(Some));
    }
    ks
}

/// `crossing[k]`: bytes of the values defined by equations before `k` and used by
/// equation `k` or later (or returned), for `k` in `0..=n`.
fn crossing_bytes(f: &Func) -> Result<Vec<u64>, Error> {
    let n = f.eqns.len();
    let last: Vec<Option<usize>> = f.last_uses().iter().map(|l| l.step(n)).collect();
    let mut delta = vec![0i128; n + 2];
    for (i, eqn) in f.eqns.iter().enumerate() {
        for &o in &eqn.outputs {
            let Some(end) = last[o.index()] else { continue };
            if end > i {
                let b = f.ty(o).byte_size().map_err(|e| crate::error(&f.name, format!("checkpoint: {e}")))?;
                delta[i + 1] += i128::from(b);
                delta[end + 1] -= i128::from(b);
            }
        }
    }
    let mut out = Vec::with_capacity(n + 1);
    let mut live = 0i128;
    for d in delta.iter().take(n + 1) {
        live += d;
        out.push(u64::try_from(live).unwrap_or(0));
    }
    Ok(out)
}

/// The start of each of segments `1..s` for `n` equations: near `j·n/s`, where the
/// fewest bytes cross.
fn choose_cuts(n: usize, s: usize, crossing: &[u64]) -> Vec<usize> {
    let half = n / (2 * s.max(1));
    let mut cuts: Vec<usize> = Vec::new();
    for j in 1..s {
        let ideal = j * n / s;
        let lo = ideal.saturating_sub(half).max(cuts.last().map_or(1, |&c| c + 1));
        let hi = (ideal + half).min(n - 1);
        let best = (lo..=hi).min_by_key(|&k| (crossing.get(k).copied().unwrap_or(u64::MAX), k.abs_diff(ideal)));
        if let Some(k) = best {
            cuts.push(k);
        }
    }
    cuts
}

/// `module` with its entry (`f`, dead code removed) checkpointed per `plan`.
fn build(module: &Module, f: &Func, plan: &Plan) -> Result<Module, Error> {
    let mut entry = f.clone();
    if let Some(k) = plan.scan_k {
        for eqn in &mut entry.eqns {
            if let Some(p) = eqn.prim.scan_params_mut()
                && p.checkpoint.is_none()
                && k < p.length
            {
                p.checkpoint = Some(k);
            }
        }
    }
    let mut out = module.clone();
    let n = entry.eqns.len();
    let last: Vec<Option<usize>> = entry.last_uses().iter().map(|l| l.step(n)).collect();
    let mut bounds = vec![0];
    bounds.extend(&plan.cuts);
    bounds.push(n);
    let mut eqns = Vec::with_capacity(n);
    let mut regions = Vec::new();
    for (seg, w) in bounds.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        if a >= b {
            continue;
        }
        if !plan.remat.get(seg).copied().unwrap_or(false) {
            eqns.extend(entry.eqns[a..b].iter().cloned());
            continue;
        }
        let name = crate::fresh_name(&out, &format!("{}_seg{seg}", entry.name));
        let (region, inputs, outputs) = region(&entry, a, b, &last, &name);
        out.push(region);
        regions.push(name.clone());
        eqns.push(Eqn {
            prim: Prim::remat(name, RematPolicy::Nothing),
            inputs: inputs.into_iter().collect(),
            outputs: outputs.into_iter().collect(),
            loc: None,
        });
    }
    entry.eqns = eqns;
    let entry_name = entry.name.clone();
    out.funcs.insert(entry_name.clone(), entry);
    // Keep the entry first.
    if let Some(i) = out.funcs.get_index_of(&entry_name) {
        out.funcs.move_index(i, 0);
    }
    ferrax_ir::verify(&out)?;
    Ok(out)
}

/// Equations `a..b` of `f` as a Func `name`: its params are the values they read from
/// before `a`, its results the values they define that are used from `b` on (`last`
/// gives each value's last use, `n` for a result). Returns the Func, its inputs and
/// outputs as values of `f`.
fn region(f: &Func, a: usize, b: usize, last: &[Option<usize>], name: &str) -> (Func, Vec<Value>, Vec<Value>) {
    let mut g = Func::new(name);
    let mut map: Vec<Option<Value>> = vec![None; f.value_types.len()];
    let mut inputs = Vec::new();
    let mut defined = vec![false; f.value_types.len()];
    for eqn in &f.eqns[a..b] {
        for &v in &eqn.inputs {
            if !defined[v.index()] && map[v.index()].is_none() {
                let p = g.new_value(f.ty(v).clone());
                g.params.push(p);
                map[v.index()] = Some(p);
                inputs.push(v);
            }
        }
        let mut copy = eqn.clone();
        copy.inputs = eqn.inputs.iter().map(|v| map[v.index()].unwrap_or(*v)).collect();
        copy.outputs = eqn
            .outputs
            .iter()
            .map(|&o| {
                defined[o.index()] = true;
                let v = g.new_value(f.ty(o).clone());
                map[o.index()] = Some(v);
                v
            })
            .collect();
        g.eqns.push(copy);
    }
    let mut outputs = Vec::new();
    for eqn in &f.eqns[a..b] {
        for &o in &eqn.outputs {
            if last[o.index()].is_some_and(|l| l >= b)
                && let Some(v) = map[o.index()]
            {
                g.results.push(v);
                g.result_types.push(f.ty(o).clone());
                outputs.push(o);
            }
        }
    }
    (g, inputs, outputs)
}
