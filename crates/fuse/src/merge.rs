//! Merging consecutive kernels of one loop shape (after scheduling).
//!
//! Partitioning grows groups consumer-first, so a producer read by two groups (say
//! `tanh(x)`, read by two gradients) becomes an extra result of one kernel and a
//! parameter of the next: written to memory by one and read back by the other. When two
//! kernels launched one after the other loop over one shape, the first without a
//! reduction and the second with at most one (over that shape), and the second reads
//! the first's results only at the loop index (in elementwise equations of the loop
//! shape, or as its reduction's input), the two are one kernel (the first's results it
//! keeps are written during the reduction loop): the first's values are
//! computed once per element and used in registers, and those no one else reads are no
//! longer written. Nothing is recomputed, so the "no duplicated expensive work" rule
//! holds; the size caps of the partition hold for the merged kernel too. Equations
//! both kernels had copied (a cheap producer such as `1 + x*x` read by a gradient and
//! its sum) are merged, so the merged loop computes them once.

use crate::classify::{Class, class, is_elementwise};
use crate::partition::{MAX_KERNEL_EQNS, MAX_KERNEL_PARAMS};
use ferrax_ir::prim::Prim;
use ferrax_ir::{Eqn, Func, Value};
use std::collections::HashMap;

fn is_reduction(prim: &Prim) -> bool {
    class(prim) == Class::Reduction
}

/// The loop shape of kernel `k` when it has no reduction (its results' common shape).
fn elementwise_shape(k: &Func) -> Option<Vec<usize>> {
    if k.eqns.iter().any(|e| is_reduction(&e.prim)) {
        return None;
    }
    let first = k.results.first()?;
    let shape = k.ty(*first).shape.to_vec();
    k.results.iter().all(|r| k.ty(*r).shape[..] == shape[..]).then_some(shape)
}

/// The shape kernel `k` loops over: its results' shape without a reduction, the
/// reduction's input shape with one.
fn loop_shape(k: &Func) -> Option<Vec<usize>> {
    match k.eqns.iter().find(|e| is_reduction(&e.prim)) {
        Some(red) => Some(k.ty(*red.inputs.first()?).shape.to_vec()),
        None => elementwise_shape(k),
    }
}

/// Computing equations (sources are copied freely and not counted).
fn computing(k: &Func) -> usize {
    k.eqns.iter().filter(|e| class(&e.prim) != Class::Source).count()
}

/// Merges consecutive kernel calls of `fused` where allowed (module docs), each merged
/// kernel tried again with its new successor; `kernels` holds the kernel Funcs.
/// Merged-away kernels are removed from `kernels`.
///
/// One pass over the launches, with the readers of every value counted up front, so the
/// work is linear in the number of launches (a search of the later launches, or a
/// splice of the launch list, per merge is quadratic in a long program).
pub(crate) fn merge_elementwise(fused: &mut Func, kernels: &mut Vec<Func>) {
    let mut by_name: HashMap<String, Func> = HashMap::with_capacity(kernels.len());
    let order: Vec<String> = kernels.iter().map(|k| k.name.clone()).collect();
    for k in kernels.drain(..) {
        by_name.insert(k.name.clone(), k);
    }
    // Readers of each value among the launches not yet passed, plus the Func's results.
    let mut readers: HashMap<Value, usize> = HashMap::new();
    for e in &fused.eqns {
        for v in &e.inputs {
            *readers.entry(*v).or_default() += 1;
        }
    }
    for r in &fused.results {
        *readers.entry(*r).or_default() += 1;
    }
    let eqns = std::mem::take(&mut fused.eqns);
    let mut out: Vec<Eqn> = Vec::with_capacity(eqns.len());
    let mut pending: Option<Eqn> = None;
    for eb in eqns {
        let Some(ea) = pending.take() else {
            pending = Some(eb);
            continue;
        };
        match try_merge(fused, &mut by_name, &readers, &ea, &eb) {
            Some(call) => {
                // The merged call reads A's and B's outside inputs: B no longer reads
                // A's results, and what both read counts once.
                for v in ea.inputs.iter().chain(&eb.inputs) {
                    if let Some(n) = readers.get_mut(v) {
                        *n -= 1;
                    }
                }
                for v in &call.inputs {
                    *readers.entry(*v).or_default() += 1;
                }
                pending = Some(call);
            }
            None => {
                out.push(ea);
                pending = Some(eb);
            }
        }
    }
    out.extend(pending);
    fused.eqns = out;
    kernels.extend(order.into_iter().filter_map(|name| by_name.remove(&name)));
}

/// The merge of kernel calls `ea` and `eb` (launched one after the other), if allowed:
/// the call of the merged kernel, which replaces A's Func in `kernels` (B's is removed).
/// `readers` counts the readers of each value among `ea`, `eb`, the later launches and
/// the Func's results.
fn try_merge(
    fused: &Func,
    kernels: &mut HashMap<String, Func>,
    readers: &HashMap<Value, usize>,
    ea: &Eqn,
    eb: &Eqn,
) -> Option<Eqn> {
    let (na, nb) = (ea.prim.callee()?, eb.prim.callee()?);
    let (a, b) = (kernels.get(na)?, kernels.get(nb)?);
    let shape = elementwise_shape(a)?;
    if loop_shape(b)? != shape || computing(a) + computing(b) > MAX_KERNEL_EQNS {
        return None;
    }
    let from_a: HashMap<Value, usize> = ea.outputs.iter().enumerate().map(|(k, &v)| (v, k)).collect();
    if !reads_at_index(b, eb, &from_a, &shape) {
        return None;
    }
    // The merged kernel's parameters: A's, then B's not computed by A (deduplicated).
    let mut params: Vec<Value> = ea.inputs.to_vec();
    for outer in &eb.inputs {
        if !from_a.contains_key(outer) && !params.contains(outer) {
            params.push(*outer);
        }
    }
    if params.len() > MAX_KERNEL_PARAMS {
        return None;
    }
    // A's results still needed after B (by later launches or as the Func's results):
    // read more often than B reads them.
    let in_b = |v: Value| eb.inputs.iter().filter(|&&u| u == v).count();
    let later = |v: Value| readers.get(&v).copied().unwrap_or(0) > in_b(v);
    let kept_a: Vec<usize> = (0..ea.outputs.len()).filter(|&k| later(ea.outputs[k])).collect();

    let mut k = Func::new(&a.name);
    k.attrs = a.attrs.clone();
    let mut outer_to_inner: HashMap<Value, Value> = HashMap::new();
    for &outer in &params {
        let ty = fused.ty(outer).clone();
        let nv = k.new_value(ty);
        k.params.push(nv);
        outer_to_inner.insert(outer, nv);
    }
    // Copy A, then B, renaming values.
    let mut a_map: HashMap<Value, Value> = HashMap::new();
    for (p, outer) in a.params.iter().zip(&ea.inputs) {
        a_map.insert(*p, outer_to_inner[outer]);
    }
    copy_eqns(a, &mut k, &mut a_map);
    let a_results: Vec<Value> = a.results.iter().map(|r| a_map[r]).collect();
    let mut b_map: HashMap<Value, Value> = HashMap::new();
    for (p, outer) in b.params.iter().zip(&eb.inputs) {
        let inner = match from_a.get(outer) {
            Some(&r) => a_results[r],
            None => outer_to_inner[outer],
        };
        b_map.insert(*p, inner);
    }
    copy_eqns(b, &mut k, &mut b_map);
    let mut outs: Vec<Value> = kept_a.iter().map(|&r| ea.outputs[r]).collect();
    outs.extend(eb.outputs.iter().copied());
    k.results = kept_a.iter().map(|&r| a_results[r]).chain(b.results.iter().map(|r| b_map[r])).collect();
    k.result_types = outs.iter().map(|&o| fused.ty(o).clone()).collect();

    let call = Eqn {
        prim: Prim::call(k.name.clone()),
        inputs: params.into_iter().collect(),
        outputs: outs.into_iter().collect(),
        loc: ea.loc.clone(),
    };
    // A and B may each have copied the same producer (an index constant, a cheap
    // shared value): computed once in the merged loop.
    let k = ferrax_transform::cse_func(&k);
    let nb = nb.to_string();
    kernels.insert(k.name.clone(), k);
    kernels.remove(&nb);
    Some(call)
}

/// Whether kernel `b` (called by `eb`) reads each parameter that A computes (`from_a`:
/// A's results by position) only at the loop index of `shape`, so that the merged loop
/// can hand it over in the same iteration.
fn reads_at_index(b: &Func, eb: &Eqn, from_a: &HashMap<Value, usize>, shape: &[usize]) -> bool {
    b.params.iter().zip(&eb.inputs).filter(|(_, outer)| from_a.contains_key(outer)).all(|(p, _)| {
        b.eqns.iter().filter(|e| e.inputs.contains(p)).all(|e| {
            // A reduction reading it directly reads it at the loop index too.
            is_reduction(&e.prim)
                || is_elementwise(&e.prim) && e.outputs.iter().all(|o| b.ty(*o).shape[..] == shape[..])
        })
    })
}

/// Appends `src`'s equations to `dst`, mapping values through `map` (params pre-mapped).
fn copy_eqns(src: &Func, dst: &mut Func, map: &mut HashMap<Value, Value>) {
    for eqn in &src.eqns {
        let copy = dst.copy_eqn(src, eqn, map);
        dst.eqns.push(copy);
    }
}
