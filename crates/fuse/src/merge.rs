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
//! holds; the size caps of the partition hold for the merged kernel too.

use crate::classify::{Class, class, is_elementwise};
use crate::partition::{MAX_KERNEL_EQNS, MAX_KERNEL_PARAMS};
use ferrax_ir::prim::Prim;
use ferrax_ir::{Eqn, Func, Value};
use std::collections::HashMap;

fn is_reduction(prim: &Prim) -> bool {
    matches!(prim, Prim::Reduce { .. } | Prim::ArgReduce { .. })
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

/// Merges kernel calls `fused.eqns[i]` and `fused.eqns[i + 1]` where allowed (module
/// docs), repeatedly; `kernels` holds the kernel Funcs by name. Merged-away kernels are
/// removed from `kernels`.
pub(crate) fn merge_elementwise(fused: &mut Func, kernels: &mut Vec<Func>) {
    let mut i = 0;
    while i + 1 < fused.eqns.len() {
        match try_merge(fused, kernels, i) {
            Some(()) => {} // try the merged kernel with its new successor
            None => i += 1,
        }
    }
}

fn kernel_index(kernels: &[Func], eqn: &Eqn) -> Option<usize> {
    let Prim::Call { func } = &eqn.prim else { return None };
    kernels.iter().position(|k| &k.name == func)
}

fn try_merge(fused: &mut Func, kernels: &mut Vec<Func>, i: usize) -> Option<()> {
    let (ea, eb) = (&fused.eqns[i], &fused.eqns[i + 1]);
    let (ka, kb) = (kernel_index(kernels, ea)?, kernel_index(kernels, eb)?);
    let (a, b) = (&kernels[ka], &kernels[kb]);
    let shape = elementwise_shape(a)?;
    if loop_shape(b)? != shape || computing(a) + computing(b) > MAX_KERNEL_EQNS {
        return None;
    }
    // B's parameters that are A's results: read only at the loop index.
    let from_a: HashMap<Value, usize> = ea.outputs.iter().enumerate().map(|(k, &v)| (v, k)).collect();
    for (p, outer) in b.params.iter().zip(&eb.inputs) {
        if !from_a.contains_key(outer) {
            continue;
        }
        let at_index = b.eqns.iter().filter(|e| e.inputs.contains(p)).all(|e| {
            // A reduction reading it directly reads it at the loop index too.
            is_reduction(&e.prim)
                || is_elementwise(&e.prim) && e.outputs.iter().all(|o| b.ty(*o).shape[..] == shape[..])
        });
        if !at_index {
            return None;
        }
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
    // A's results still needed after B (by later launches or as the Func's results).
    let later = |v: Value| fused.results.contains(&v) || fused.eqns[i + 2..].iter().any(|e| e.inputs.contains(&v));
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
        prim: Prim::Call { func: k.name.clone() },
        inputs: params.into_iter().collect(),
        outputs: outs.into_iter().collect(),
        loc: ea.loc.clone(),
    };
    fused.eqns.splice(i..i + 2, [call]);
    kernels[ka] = k;
    kernels.remove(kb);
    Some(())
}

/// Appends `src`'s equations to `dst`, mapping values through `map` (params pre-mapped).
fn copy_eqns(src: &Func, dst: &mut Func, map: &mut HashMap<Value, Value>) {
    for eqn in &src.eqns {
        let mut copy = eqn.clone();
        copy.inputs = eqn.inputs.iter().map(|v| map[v]).collect();
        copy.outputs = eqn
            .outputs
            .iter()
            .map(|&o| {
                let nv = dst.new_value(src.ty(o).clone());
                map.insert(o, nv);
                nv
            })
            .collect();
        dst.eqns.push(copy);
    }
}
