//! Partial evaluation of a `remat` region that reads a tangent.
//!
//! The known part of the region is emitted in place (the forward pass). The linear
//! part becomes `remat[func=@<region>_linear]`, whose body recomputes what the policy
//! does not save from the region's inputs and then runs the linear equations; its
//! transpose inlines the transposed body where the backward pass reaches it, so the
//! recomputation happens there. The residuals are the region's inputs and the values
//! the policy saves (`"dots"`: `dot_general` outputs; `"names:a,b"`: values tagged by
//! `name` with those names; `"offload"`: every one).
//!
//! `"offload"` keeps those residuals out of memory between the passes: each residual
//! that is not a parameter of the enclosing Func (those are the caller's, in memory
//! anyway) goes through `offload` right after the region's forward equations, and the
//! linear body starts by `reload`ing it. The transpose inlines the linear body where
//! the backward pass reaches the region, so each residual comes back just before the
//! equations that read it.

use super::{Rewriter, Save, Slot, linear_func, lookup, push_func};
use crate::linear::copy_eqn;
use ferrax_ir::prim::{MemoryOp, Prim, RematPolicy};
use ferrax_ir::{Emitter, Func, Module, Value};

/// Rewrites `remat[func, policy](inputs)`; returns its outputs.
pub(super) fn partial_remat(
    rw: &mut Rewriter,
    func: &str,
    policy: &RematPolicy,
    inputs: &[Value],
) -> Result<Vec<Value>, String> {
    let body = rw.func(func)?;
    let mask: Vec<bool> = inputs.iter().map(|&v| rw.is_unknown(v)).collect();
    let part = rw.partial(&body, &mask, &vec![false; body.results.len()], Save::Policy(policy))?;
    let s = &part.split;
    let g = &s.func;
    let mut env = vec![None; g.value_types.len()];
    for (i, &p) in g.params.iter().enumerate() {
        if !mask[i] {
            env[p.index()] = Some(inputs[i]);
        }
    }
    for &i in &s.known {
        rw.copy_known(&g.eqns[i], &mut env)?;
    }
    let mut slots: Vec<Slot> = s.residuals.iter().map(|&v| Slot::Value(v)).collect();
    let mut operands = lookup(&env, &s.residuals)?;
    let mut offloaded = vec![false; operands.len()];
    if *policy == RematPolicy::Offload {
        let params = rw.em.func().params.clone();
        for (operand, off) in operands.iter_mut().zip(&mut offloaded) {
            if !params.contains(operand) {
                *operand = rw.emit(Prim::offload(), &[*operand], false)?[0];
                *off = true;
            }
        }
    }
    for (i, &p) in g.params.iter().enumerate().filter(|(i, _)| mask[*i]) {
        slots.push(Slot::Value(p));
        operands.push(inputs[i]);
    }
    let results: Vec<Value> = g.results.iter().zip(&part.out_unknown).filter(|(_, u)| **u).map(|(r, _)| *r).collect();
    let mut linear_outs = Vec::new().into_iter();
    if !results.is_empty() {
        let mut linear = linear_func(rw.pool, s, &format!("{func}_linear"), &slots, &results)?;
        if offloaded.contains(&true) {
            linear = reload_first(rw.pool, &linear, &offloaded)?;
        }
        let name = push_func(rw.pool, linear);
        linear_outs = rw.emit(Prim::remat(name, policy.clone()), &operands, true)?.into_iter();
    }
    let mut outs = Vec::with_capacity(g.results.len());
    for (r, &unknown) in g.results.iter().zip(&part.out_unknown) {
        let out = if unknown { linear_outs.next() } else { env[r.index()] };
        outs.push(out.ok_or("remat: an output is missing")?);
    }
    Ok(outs)
}

/// `func` with each parameter marked in `offloaded` reloaded before anything else runs.
fn reload_first(pool: &Module, func: &Func, offloaded: &[bool]) -> Result<Func, String> {
    let mut em = Emitter::new(func.name.clone());
    let mut env = vec![None; func.value_types.len()];
    let params: Vec<Value> = func.params.iter().map(|&p| em.param(func.ty(p).clone())).collect();
    for (i, (&p, &v)) in func.params.iter().zip(&params).enumerate() {
        let reloaded = offloaded.get(i).copied().unwrap_or(false);
        env[p.index()] = Some(if reloaded { em.op(MemoryOp::Reload, &[v])? } else { v });
    }
    for eqn in &func.eqns {
        copy_eqn(&mut em, pool, eqn, &mut env)?;
    }
    let results = lookup(&env, &func.results)?;
    Ok(em.finish(&results))
}
