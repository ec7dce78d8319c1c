//! Batching of the structured primitives: their bodies are batched through the pass's
//! context, with batched parameters and outputs at axis 0.

use super::n_results;
use crate::prim::ScanParams;

use crate::prim::batch::{BatchContext, Batched};
use crate::prim::{RematPolicy, TernaryOp};
use crate::{Emitter, Prim, Value};

/// Moves every batched input to axis 0 (and, where `all`, broadcasts the unbatched
/// ones there too); returns the inputs and which are batched.
pub(super) fn inputs_at_front(
    em: &mut Emitter,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
    all: bool,
) -> Result<(Vec<Value>, Vec<bool>), String> {
    let mut out = Vec::with_capacity(inputs.len());
    let mut batched = Vec::with_capacity(inputs.len());
    for (&x, &d) in inputs.iter().zip(dims) {
        match (d, all) {
            (Some(d), _) => out.push(em.move_axis(x, d, 0)?),
            (None, true) => out.push(em.add_batch_axis(x, size, 0)?),
            (None, false) => out.push(x),
        }
        batched.push(d.is_some() || all);
    }
    Ok((out, batched))
}

fn front_dims(batched: &[bool]) -> Vec<Option<usize>> {
    batched.iter().map(|&b| b.then_some(0)).collect()
}

/// `call` and `remat` (with `policy`): the same op over the batched `func`.
pub(super) fn batch_call(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    func: &str,
    remat: Option<&RematPolicy>,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let (ins, batched) = inputs_at_front(em, cx.axis_size(), inputs, dims, false)?;
    let n_out = n_results(cx.module(), func)?;
    let bf = cx.batch_func(func, &batched, &vec![false; n_out])?;
    let new = match remat {
        Some(policy) => Prim::remat(bf.name, policy.clone()),
        None => Prim::call(bf.name),
    };
    let outs = em.eqn(cx.module(), new, &ins)?;
    Ok((outs.to_vec(), front_dims(&bf.out_batched)))
}

/// `custom_jvp`: every input and output batched, so that the rule's signature still fits.
pub(super) fn batch_custom_jvp(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    [func, jvp]: [&str; 2],
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let (ins, batched) = inputs_at_front(em, cx.axis_size(), inputs, dims, true)?;
    let n_out = n_results(cx.module(), func)?;
    let f = cx.batch_func(func, &batched, &vec![true; n_out])?;
    let j = cx.batch_func(jvp, &[batched.clone(), batched].concat(), &vec![true; 2 * n_out])?;
    let outs = em.eqn(cx.module(), Prim::custom_jvp(f.name, j.name), &ins)?;
    Ok((outs.to_vec(), vec![Some(0); n_out]))
}

/// `custom_vjp`: every input and output batched, as for `custom_jvp`.
pub(super) fn batch_custom_vjp(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    [func, fwd, bwd]: [&str; 3],
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let (ins, batched) = inputs_at_front(em, cx.axis_size(), inputs, dims, true)?;
    let module = cx.module();
    let n_out = n_results(module, func)?;
    let n_fwd = n_results(module, fwd)?;
    let n_bwd_in = module.func(bwd).map(|f| f.params.len()).ok_or(format!("no Func @{bwd}"))?;
    let n_bwd_out = module.func(bwd).map(|f| f.results.len()).unwrap_or(0);
    let f = cx.batch_func(func, &batched, &vec![true; n_out])?;
    let fw = cx.batch_func(fwd, &batched, &vec![true; n_fwd])?;
    let bw = cx.batch_func(bwd, &vec![true; n_bwd_in], &vec![true; n_bwd_out])?;
    let outs = em.eqn(cx.module(), Prim::custom_vjp(f.name, fw.name, bw.name), &ins)?;
    Ok((outs.to_vec(), vec![Some(0); n_out]))
}

fn or_all(masks: &[Vec<bool>]) -> Vec<bool> {
    let n = masks.first().map_or(0, Vec::len);
    (0..n).map(|i| masks.iter().any(|m| m[i])).collect()
}

pub(super) fn batch_cond(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    branches: &[String],
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let size = cx.axis_size();
    let n_out = n_results(cx.module(), &branches[0])?;
    if dims[0].is_none() {
        // The same branch for every example: batch the branches alike.
        let (ops, batched) = inputs_at_front(em, size, &inputs[1..], &dims[1..], false)?;
        let mut masks = Vec::new();
        for b in branches {
            masks.push(cx.batch_func(b, &batched, &vec![false; n_out])?.out_batched);
        }
        let out_batched = or_all(&masks);
        let mut names = Vec::new();
        for b in branches {
            names.push(cx.batch_func(b, &batched, &out_batched)?.name);
        }
        let mut all = vec![inputs[0]];
        all.extend(ops);
        let outs = em.eqn(cx.module(), Prim::cond(names), &all)?;
        return Ok((outs.to_vec(), front_dims(&out_batched)));
    }
    // A batched selector: run every branch on every example and select per example.
    // Each branch sees its operands through select(taken, x, stop_gradient(x)), so
    // that in reverse mode no cotangent (and no NaN) flows back from a branch an
    // example did not take.
    let (ops, batched) = inputs_at_front(em, size, &inputs[1..], &dims[1..], true)?;
    let selector = em.move_axis(inputs[0], dims[0].unwrap_or(0), 0)?;
    let index = match em.ty(selector).dtype {
        ferrax_array::DType::Bool => em.convert(selector, ferrax_array::DType::I32)?,
        ferrax_array::DType::I32
        | ferrax_array::DType::BF16
        | ferrax_array::DType::F16
        | ferrax_array::DType::F32
        | ferrax_array::DType::F64 => {
            let last = em.full_like(selector, (branches.len() - 1) as f64)?;
            let zero = em.full_like(selector, 0.0)?;
            em.op(TernaryOp::Clamp, &[zero, selector, last])?
        }
    };
    let mut result: Option<Vec<Value>> = None;
    for (k, b) in branches.iter().enumerate() {
        let kv = em.full_like(index, k as f64)?;
        let taken = em.eq(index, kv)?;
        let mut guarded = Vec::with_capacity(ops.len());
        for &x in &ops {
            let mask = broadcast_lanes(em, taken, x)?;
            let stopped = em.stop_gradient(x)?;
            guarded.push(em.select(mask, x, stopped)?);
        }
        let bf = cx.batch_func(b, &batched, &vec![true; n_out])?;
        let outs = em.eqn(cx.module(), Prim::call(bf.name), &guarded)?;
        result = Some(match result {
            None => outs.to_vec(),
            Some(acc) => {
                let mut merged = Vec::with_capacity(acc.len());
                for (&a, &o) in acc.iter().zip(outs.iter()) {
                    let mask = broadcast_lanes(em, taken, o)?;
                    merged.push(em.select(mask, o, a)?);
                }
                merged
            }
        });
    }
    Ok((result.unwrap_or_default(), vec![Some(0); n_out]))
}

/// A per-example bool `lanes` (shape `[B]`) broadcast to the shape of `like` (batched
/// at axis 0).
fn broadcast_lanes(em: &mut Emitter, lanes: Value, like: Value) -> Result<Value, String> {
    let shape = em.ty(like).shape.clone();
    em.broadcast_in_dim(lanes, &shape, &[0])
}

pub(super) fn batch_while(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    cond: &str,
    body: &str,
    max_iters: Option<usize>,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let size = cx.axis_size();
    let n = inputs.len();
    // Fixpoint: which carries vary.
    let mut batched: Vec<bool> = dims.iter().map(Option::is_some).collect();
    loop {
        let out = cx.batch_func(body, &batched, &batched)?.out_batched;
        let next: Vec<bool> = batched.iter().zip(&out).map(|(a, b)| *a || *b).collect();
        if next == batched {
            break;
        }
        batched = next;
    }
    let pred_batched = cx.batch_func(cond, &batched, &[false])?.out_batched[0];
    if !pred_batched {
        let mut ins = Vec::with_capacity(n);
        for ((&x, &d), &b) in inputs.iter().zip(dims).zip(&batched) {
            ins.push(if b { em.batch_at(x, d, size, 0)? } else { x });
        }
        let c = cx.batch_func(cond, &batched, &[false])?;
        let b = cx.batch_func(body, &batched, &batched)?;
        let outs = em.eqn(cx.module(), Prim::while_loop(c.name, b.name, max_iters), &ins)?;
        return Ok((outs.to_vec(), front_dims(&batched)));
    }
    // A predicate that varies: every carry is batched; the loop runs while any example
    // is still running, and finished examples keep their carry.
    let all = vec![true; n];
    let (ins, _) = inputs_at_front(em, size, inputs, dims, true)?;
    let c = cx.batch_func(cond, &all, &[true])?;
    let b = cx.batch_func(body, &all, &all)?;
    let carry_types: Vec<crate::Type> = ins.iter().map(|&v| em.ty(v).clone()).collect();
    // any_cond(carry) = reduce_max over lanes of the per-example predicate.
    let mut any = Emitter::new(format!("{cond}_any"));
    let params: Vec<Value> = carry_types.iter().map(|t| any.param(t.clone())).collect();
    let lanes = any.eqn(cx.module(), Prim::call(c.name.clone()), &params)?[0];
    let as_int = any.convert(lanes, ferrax_array::DType::I32)?;
    let most = any.reduce(crate::prim::ReduceOp::Max, as_int, &[0])?;
    let zero = any.full_like(most, 0.0)?;
    let running = any.gt(most, zero)?;
    let any_name = cx.add_func(any.finish(&[running]));
    // step(carry) = select(still running, body(carry), carry), per example.
    let mut step = Emitter::new(format!("{body}_masked"));
    let params: Vec<Value> = carry_types.iter().map(|t| step.param(t.clone())).collect();
    let lanes = step.eqn(cx.module(), Prim::call(c.name), &params)?[0];
    // Finished examples see their carry through stop_gradient, so that in reverse mode
    // no cotangent (and no 0 * inf = NaN) flows back through a step they did not take.
    let mut guarded = Vec::with_capacity(n);
    for &x in &params {
        if !step.ty(x).dtype.is_float() {
            guarded.push(x);
            continue;
        }
        let mask = broadcast_lanes(&mut step, lanes, x)?;
        let stopped = step.stop_gradient(x)?;
        guarded.push(step.select(mask, x, stopped)?);
    }
    let next = step.eqn(cx.module(), Prim::call(b.name), &guarded)?;
    let mut results = Vec::with_capacity(n);
    for (&new, &old) in next.iter().zip(&params) {
        let mask = broadcast_lanes(&mut step, lanes, new)?;
        results.push(step.select(mask, new, old)?);
    }
    let step_name = cx.add_func(step.finish(&results));
    let outs = em.eqn(cx.module(), Prim::while_loop(any_name, step_name, max_iters), &ins)?;
    Ok((outs.to_vec(), vec![Some(0); n]))
}

pub(super) fn batch_scan(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    params: &ScanParams,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let size = cx.axis_size();
    let (k, c) = (params.num_consts, params.num_carry);
    let n_out = n_results(cx.module(), &params.body)?;
    let given: Vec<bool> = dims.iter().map(Option::is_some).collect();
    let mut carry = given[k..k + c].to_vec();
    loop {
        let mask: Vec<bool> = given[..k].iter().chain(&carry).chain(&given[k + c..]).copied().collect();
        let mut force_out = carry.clone();
        force_out.extend(vec![false; n_out - c]);
        let out = cx.batch_func(&params.body, &mask, &force_out)?.out_batched;
        let next: Vec<bool> = carry.iter().zip(&out[..c]).map(|(a, b)| *a || *b).collect();
        if next == carry {
            break;
        }
        carry = next;
    }
    let mask: Vec<bool> = given[..k].iter().chain(&carry).chain(&given[k + c..]).copied().collect();
    let mut force_out = carry.clone();
    force_out.extend(vec![false; n_out - c]);
    let bf = cx.batch_func(&params.body, &mask, &force_out)?;
    // Consts and carries batched at axis 0; xs batched at axis 1 (axis 0 is scanned).
    let mut ins = Vec::with_capacity(inputs.len());
    for (i, (&x, &d)) in inputs.iter().zip(dims).enumerate() {
        let is_xs = i >= k + c;
        ins.push(match (d, mask[i]) {
            (Some(d), _) => em.move_axis(x, d, usize::from(is_xs))?,
            (None, true) => em.add_batch_axis(x, size, usize::from(is_xs))?,
            (None, false) => x,
        });
    }
    let scan = Prim::scan(ScanParams { body: bf.name, ..params.clone() });
    let outs = em.eqn(cx.module(), scan, &ins)?;
    let out_dims: Vec<Option<usize>> =
        bf.out_batched.iter().enumerate().map(|(i, &b)| b.then_some(if i < c { 0 } else { 1 })).collect();
    Ok((outs.to_vec(), out_dims))
}
