//! Partial evaluation of a `scan` that reads a tangent.
//!
//! The body is split with the unknown operands (to a fixpoint over the carries: a
//! carry is unknown when its initial value is, or when one step makes it so). The
//! *known scan* runs the known body: the primal carries and ys, plus the residuals of
//! each iteration as extra ys. Residuals that depend only on known consts are
//! loop-invariant: their computation is hoisted out of the loop and the linear scan
//! reads them once, as consts. Residuals that are known xs slices, or known ys, are
//! read from those stacked arrays rather than stacked again. The *linear scan* runs the linear body over the tangents:
//! `(invariant residuals, tangent consts, tangent carries, stacked residuals, tangent
//! xs)`. Its transpose is the reverse scan of `ferrax_ir::prim::control::transpose_scan`.

use super::{Partial, Rewriter, Save, Slot, known_func, linear_func, or_masks, push_func};
use ferrax_ir::prim::{Prim, ScanParams};
use ferrax_ir::{Func, Value};

/// Rewrites `scan[p](inputs)` into a known and a linear scan; returns its outputs.
pub(super) fn partial_scan(rw: &mut Rewriter, p: &ScanParams, inputs: &[Value]) -> Result<Vec<Value>, String> {
    if let Some(k) = p.checkpoint.filter(|&k| k > 1 && k < p.length) {
        return super::loops::checkpointed(rw, p, k, inputs);
    }
    let body = rw.func(&p.body)?;
    let (part, mask) = fixpoint(rw, p, &body, inputs)?;
    let layout = Layout::new(p, &part, &mask);
    let mut env = vec![None; part.split.func.value_types.len()];
    hoist(rw, &part, &layout, inputs, &mut env)?;
    let known_outs = known_scan(rw, p, &part, &layout, inputs)?;
    let linear_outs = linear_scan(rw, p, &part, &layout, inputs, &env, &known_outs)?;
    let (mut known, mut linear) = (known_outs.iter(), linear_outs.iter());
    let mut outs = Vec::with_capacity(part.out_unknown.len());
    for &unknown in &part.out_unknown {
        let next = if unknown { linear.next() } else { known.next() };
        outs.push(*next.ok_or("scan: an output is missing")?);
    }
    Ok(outs)
}

/// Splits the body with the carries' unknown mask at its fixpoint; returns the split
/// and the operands' unknown mask.
fn fixpoint(rw: &mut Rewriter, p: &ScanParams, body: &Func, inputs: &[Value]) -> Result<(Partial, Vec<bool>), String> {
    let (k, c) = (p.num_consts, p.num_carry);
    let given: Vec<bool> = inputs.iter().map(|&v| rw.is_unknown(v)).collect();
    let mut carry = given[k..k + c].to_vec();
    loop {
        let mut mask = given.clone();
        mask[k..k + c].copy_from_slice(&carry);
        let mut instantiate = carry.clone();
        instantiate.resize(body.results.len(), false);
        let part = rw.partial(body, &mask, &instantiate, Save::All)?;
        let next = or_masks(&carry, &part.out_unknown[..c]);
        if next == carry {
            return Ok((part, mask));
        }
        carry = next;
    }
}

/// Where the residuals of a split scan body go.
struct Layout {
    /// Operand positions of the known (primal) operands.
    known: Vec<usize>,
    /// Operand positions of the unknown (tangent) operands.
    unknown: Vec<usize>,
    /// Residuals that depend only on known consts (read once, as consts).
    invariant: Vec<Value>,
    /// Residuals of each iteration (read as xs).
    per_iteration: Vec<Value>,
    /// Where each per-iteration residual comes from.
    sources: Vec<Stacked>,
}

/// The stacked form of a per-iteration residual.
#[derive(Clone, Copy)]
enum Stacked {
    /// Known xs operand `i` (the residual is its slice).
    Xs(usize),
    /// Output `j` of the known scan (the residual is a known y of the body).
    Ys(usize),
    /// An extra ys of the known scan.
    Extra,
}

impl Layout {
    fn new(p: &ScanParams, part: &Partial, mask: &[bool]) -> Layout {
        let g = &part.split.func;
        let k = p.num_consts;
        let known: Vec<usize> = (0..mask.len()).filter(|&i| !mask[i]).collect();
        let unknown: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
        let mut invariant_value = vec![false; g.value_types.len()];
        for &i in known.iter().filter(|&&i| i < k) {
            invariant_value[g.params[i].index()] = true;
        }
        for eqn in &g.eqns {
            if eqn.inputs.iter().all(|v| invariant_value[v.index()]) {
                eqn.outputs.iter().for_each(|o| invariant_value[o.index()] = true);
            }
        }
        let (invariant, per_iteration): (Vec<Value>, Vec<Value>) =
            part.split.residuals.iter().partition(|v| invariant_value[v.index()]);
        let sources = per_iteration.iter().map(|&v| Layout::source(p, part, &known, v)).collect();
        Layout { known, unknown, invariant, per_iteration, sources }
    }

    /// Where the per-iteration residual `v` is found stacked.
    fn source(p: &ScanParams, part: &Partial, known: &[usize], v: Value) -> Stacked {
        let g = &part.split.func;
        let xs_start = p.num_consts + p.num_carry;
        if let Some(i) = known.iter().copied().find(|&i| i >= xs_start && g.params[i] == v) {
            return Stacked::Xs(i);
        }
        let known_outs = g.results.iter().zip(&part.out_unknown).filter(|(_, u)| !**u).map(|(r, _)| *r);
        let n_carry = (0..p.num_carry).filter(|&j| !part.out_unknown[j]).count();
        match known_outs.enumerate().skip(n_carry).find(|(_, r)| *r == v) {
            Some((j, _)) => Stacked::Ys(j),
            None => Stacked::Extra,
        }
    }
}

/// Emits, before the loop, the equations that compute the invariant residuals from
/// the known consts; `env` maps the body's values to the emitted ones.
fn hoist(
    rw: &mut Rewriter,
    part: &Partial,
    layout: &Layout,
    inputs: &[Value],
    env: &mut [Option<Value>],
) -> Result<(), String> {
    let g = &part.split.func;
    for &i in &layout.known {
        env[g.params[i].index()] = Some(inputs[i]);
    }
    let mut def = vec![None; g.value_types.len()];
    for (i, eqn) in g.eqns.iter().enumerate() {
        eqn.outputs.iter().for_each(|o| def[o.index()] = Some(i));
    }
    let mut needed = vec![false; g.eqns.len()];
    let mut queue: Vec<Value> = layout.invariant.clone();
    while let Some(v) = queue.pop() {
        if let Some(i) = def[v.index()].filter(|&i| !needed[i]) {
            needed[i] = true;
            queue.extend(g.eqns[i].inputs.iter().copied());
        }
    }
    for (eqn, _) in g.eqns.iter().zip(&needed).filter(|(_, n)| **n) {
        rw.copy_known(eqn, env)?;
    }
    Ok(())
}

/// Emits the known scan: `(known carries, known ys, stacked residuals)`.
fn known_scan(
    rw: &mut Rewriter,
    p: &ScanParams,
    part: &Partial,
    layout: &Layout,
    inputs: &[Value],
) -> Result<Vec<Value>, String> {
    let g = &part.split.func;
    let params: Vec<Value> = layout.known.iter().map(|&i| g.params[i]).collect();
    let mut results: Vec<Value> =
        g.results.iter().zip(&part.out_unknown).filter(|(_, u)| !**u).map(|(r, _)| *r).collect();
    let extra = layout.per_iteration.iter().zip(&layout.sources).filter(|(_, s)| matches!(s, Stacked::Extra));
    results.extend(extra.map(|(v, _)| *v));
    let func = known_func(rw.pool, &part.split, &format!("{}_known", p.body), &params, &results)?;
    let name = push_func(rw.pool, func);
    let operands: Vec<Value> = layout.known.iter().map(|&i| inputs[i]).collect();
    let count = |range: std::ops::Range<usize>| layout.known.iter().filter(|i| range.contains(i)).count();
    let params = ScanParams {
        body: name,
        length: p.length,
        num_consts: count(0..p.num_consts),
        num_carry: count(p.num_consts..p.num_consts + p.num_carry),
        reverse: p.reverse,
        checkpoint: None,
    };
    rw.emit(Prim::scan(params), &operands, false)
}

/// Emits the linear scan; returns its outputs (the unknown carries and ys).
fn linear_scan(
    rw: &mut Rewriter,
    p: &ScanParams,
    part: &Partial,
    layout: &Layout,
    inputs: &[Value],
    env: &[Option<Value>],
    known_outs: &[Value],
) -> Result<Vec<Value>, String> {
    let g = &part.split.func;
    let (k, c) = (p.num_consts, p.num_carry);
    let unknown_in = |range: std::ops::Range<usize>| -> Vec<usize> {
        layout.unknown.iter().copied().filter(|i| range.contains(i)).collect()
    };
    let (consts, carry, xs) = (unknown_in(0..k), unknown_in(k..k + c), unknown_in(k + c..inputs.len()));
    let mut slots: Vec<Slot> = layout.invariant.iter().map(|&v| Slot::Value(v)).collect();
    let mut operands = super::lookup(env, &layout.invariant)?;
    for &i in consts.iter().chain(&carry) {
        slots.push(Slot::Value(g.params[i]));
        operands.push(inputs[i]);
    }
    let n_known_outs = part.out_unknown.iter().filter(|u| !**u).count();
    let mut stacked = known_outs[n_known_outs..].iter();
    for (&v, source) in layout.per_iteration.iter().zip(&layout.sources) {
        slots.push(Slot::Value(v));
        operands.push(match source {
            Stacked::Xs(i) => inputs[*i],
            Stacked::Ys(j) => known_outs[*j],
            Stacked::Extra => *stacked.next().ok_or("scan: a stacked residual is missing")?,
        });
    }
    for &i in &xs {
        slots.push(Slot::Value(g.params[i]));
        operands.push(inputs[i]);
    }
    let results: Vec<Value> = g.results.iter().zip(&part.out_unknown).filter(|(_, u)| **u).map(|(r, _)| *r).collect();
    if results.is_empty() {
        return Ok(Vec::new());
    }
    let func = linear_func(rw.pool, &part.split, &format!("{}_linear", p.body), &slots, &results)?;
    let name = push_func(rw.pool, func);
    let params = ScanParams {
        body: name,
        length: p.length,
        num_consts: layout.invariant.len() + consts.len(),
        num_carry: carry.len(),
        reverse: p.reverse,
        checkpoint: None,
    };
    rw.emit(Prim::scan(params), &operands, true)
}
