//! Partial evaluation of a `cond` that reads a tangent.
//!
//! Each branch is split with the same unknown operands; an output is unknown when it is
//! in some branch (the others return it from their linear part). The *known cond*
//! runs the known branches: the known outputs, then the residuals of every branch in
//! turn, each branch returning zeros in the other branches' slots, so that all return
//! the same types. The *linear cond*, on the same index, takes all those residuals and
//! the unknown operands; each linear branch reads its own residuals only. Its
//! transpose is a `cond` over the transposed branches.

use super::{Partial, Rewriter, Save, Slot, known_emitter, linear_func, lookup, or_masks, push_func};
use ferrax_ir::prim::Prim;
use ferrax_ir::{Func, Type, Value};

/// Rewrites `cond[branches](index, operands...)`; returns its outputs.
pub(super) fn partial_cond(rw: &mut Rewriter, branches: &[String], inputs: &[Value]) -> Result<Vec<Value>, String> {
    let Some((&index, operands)) = inputs.split_first() else {
        return Err("cond: expects an index operand".into());
    };
    if rw.is_unknown(index) {
        return Err("cond: the index depends on a tangent".into());
    }
    let funcs: Vec<Func> = branches.iter().map(|b| rw.func(b)).collect::<Result<_, _>>()?;
    let mask: Vec<bool> = operands.iter().map(|&v| rw.is_unknown(v)).collect();
    let n_out = funcs.first().map_or(0, |f| f.results.len());
    let mut out_unknown = vec![false; n_out];
    for func in &funcs {
        out_unknown = or_masks(&out_unknown, &rw.partial(func, &mask, &vec![false; n_out], Save::All)?.out_unknown);
    }
    let mut parts = Vec::with_capacity(funcs.len());
    for func in &funcs {
        parts.push(rw.partial(func, &mask, &out_unknown, Save::All)?);
    }
    let residual_types: Vec<Vec<Type>> =
        parts.iter().map(|p| p.split.residuals.iter().map(|&v| p.split.func.ty(v).clone()).collect()).collect();
    let mut known_names = Vec::with_capacity(parts.len());
    let mut linear_names = Vec::with_capacity(parts.len());
    for (b, (part, branch)) in parts.iter().zip(branches).enumerate() {
        known_names.push(known_branch(rw, part, b, &residual_types, &mask, branch)?);
        linear_names.push(linear_branch(rw, part, b, &residual_types, &mask, branch)?);
    }
    let known_operands: Vec<Value> = operands.iter().zip(&mask).filter(|(_, u)| !**u).map(|(v, _)| *v).collect();
    let known_outs = rw.emit(Prim::cond(known_names), &[&[index], &known_operands[..]].concat(), false)?;
    let n_known = out_unknown.iter().filter(|u| !**u).count();
    let mut linear_operands = vec![index];
    linear_operands.extend(&known_outs[n_known..]);
    linear_operands.extend(operands.iter().zip(&mask).filter(|(_, u)| **u).map(|(v, _)| *v));
    let linear_outs =
        if n_known == n_out { Vec::new() } else { rw.emit(Prim::cond(linear_names), &linear_operands, true)? };
    let (mut known, mut linear) = (known_outs[..n_known].iter(), linear_outs.iter());
    let mut outs = Vec::with_capacity(n_out);
    for &unknown in &out_unknown {
        let next = if unknown { linear.next() } else { known.next() };
        outs.push(*next.ok_or("cond: an output is missing")?);
    }
    Ok(outs)
}

/// The known part of branch `b`: known operands -> (known outputs, residuals of every
/// branch, zeros but for its own).
fn known_branch(
    rw: &mut Rewriter,
    part: &Partial,
    b: usize,
    residual_types: &[Vec<Type>],
    mask: &[bool],
    branch: &str,
) -> Result<String, String> {
    let g = &part.split.func;
    let params: Vec<Value> = g.params.iter().zip(mask).filter(|(_, u)| !**u).map(|(p, _)| *p).collect();
    let (mut em, env) = known_emitter(rw.pool, &part.split, &format!("{branch}_known"), &params)?;
    let known_results: Vec<Value> =
        g.results.iter().zip(&part.out_unknown).filter(|(_, u)| !**u).map(|(r, _)| *r).collect();
    let mut results = lookup(&env, &known_results)?;
    for (other, types) in residual_types.iter().enumerate() {
        if other == b {
            results.extend(lookup(&env, &part.split.residuals)?);
        } else {
            for ty in types {
                results.push(em.zeros(ty)?);
            }
        }
    }
    Ok(push_func(rw.pool, em.finish(&results)))
}

/// The linear part of branch `b`: (residuals of every branch, unknown operands) ->
/// unknown outputs.
fn linear_branch(
    rw: &mut Rewriter,
    part: &Partial,
    b: usize,
    residual_types: &[Vec<Type>],
    mask: &[bool],
    branch: &str,
) -> Result<String, String> {
    let g = &part.split.func;
    let mut slots = Vec::new();
    for (other, types) in residual_types.iter().enumerate() {
        if other == b {
            slots.extend(part.split.residuals.iter().map(|&v| Slot::Value(v)));
        } else {
            slots.extend(types.iter().map(|t| Slot::Dummy(t.clone())));
        }
    }
    slots.extend(g.params.iter().zip(mask).filter(|(_, u)| **u).map(|(p, _)| Slot::Value(*p)));
    let results: Vec<Value> = g.results.iter().zip(&part.out_unknown).filter(|(_, u)| **u).map(|(r, _)| *r).collect();
    let func = linear_func(rw.pool, &part.split, &format!("{branch}_linear"), &slots, &results)?;
    Ok(push_func(rw.pool, func))
}
