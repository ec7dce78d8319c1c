//! Forward mode through the structured primitives: each is differentiated as one
//! transformed equation whose bodies are differentiated through the pass's context.

use super::n_results;
use crate::Prim;
use crate::prim::{RematPolicy, ScanParams};

/// `call`, `remat` (with `policy`) and forward mode through `custom_vjp` (which
/// differentiates `func`): the same op over the jvp of `func`.
pub(super) fn jvp_call(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::JvpContext,
    func: &str,
    remat: Option<&RematPolicy>,
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let nonzero: Vec<bool> = tangents.iter().map(Option::is_some).collect();
    let nonzero_tangents: Vec<crate::Value> = tangents.iter().flatten().copied().collect();
    let jf = cx.jvp_func(func, &nonzero, &vec![false; n_results(cx.module(), func)?])?;
    let prim = match remat {
        Some(policy) => Prim::remat(jf.name.clone(), policy.clone()),
        None => Prim::call(jf.name.clone()),
    };
    call_jvp(em, cx, prim, primals, &nonzero_tangents, &jf.out_nonzero)
}

/// `custom_jvp`: a call of its rule `jvp`, which takes one tangent per primal (the
/// zero ones instantiated).
pub(super) fn jvp_custom_jvp(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::JvpContext,
    jvp: &str,
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let mut inputs = primals.to_vec();
    for (&p, t) in primals.iter().zip(tangents) {
        inputs.push(match t {
            Some(t) => *t,
            None => em.full_like(p, 0.0)?,
        });
    }
    let outs = em.eqn(cx.module(), Prim::call(jvp), &inputs)?;
    let n = outs.len() / 2;
    let tangents_out = outs[n..].iter().map(|&t| em.ty(t).dtype.is_float().then_some(t)).collect();
    Ok((outs[..n].to_vec(), tangents_out))
}

/// Emits `prim(primals..., tangents...)` for a jvp'd callee and splits its results
/// into outputs and the tangents marked in `out_nonzero`.
fn call_jvp(
    em: &mut crate::Emitter,
    cx: &dyn crate::prim::ad::JvpContext,
    prim: Prim,
    primals: &[crate::Value],
    tangents: &[crate::Value],
    out_nonzero: &[bool],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let inputs: Vec<crate::Value> = primals.iter().chain(tangents).copied().collect();
    let outs = em.eqn(cx.module(), prim, &inputs)?;
    Ok(split_outputs(&outs, out_nonzero))
}

/// Splits `outputs..., tangents of the nonzero outputs...` into two lists.
fn split_outputs(outs: &[crate::Value], out_nonzero: &[bool]) -> (Vec<crate::Value>, Vec<Option<crate::Value>>) {
    let n = out_nonzero.len();
    let mut extra = outs[n..].iter();
    let tangents = out_nonzero.iter().map(|&nz| if nz { extra.next().copied() } else { None }).collect();
    (outs[..n].to_vec(), tangents)
}

fn or_masks(a: &[bool], b: &[bool]) -> Vec<bool> {
    a.iter().zip(b).map(|(x, y)| *x || *y).collect()
}

/// Instantiates zero tangents for the positions marked in `mask` that have none.
fn instantiate(
    em: &mut crate::Emitter,
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
    mask: &[bool],
) -> Result<Vec<crate::Value>, String> {
    let mut out = Vec::new();
    for ((&p, t), &m) in primals.iter().zip(tangents).zip(mask) {
        if m {
            out.push(match t {
                Some(t) => *t,
                None => em.full_like(p, 0.0)?,
            });
        }
    }
    Ok(out)
}

pub(super) fn jvp_cond(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::JvpContext,
    branches: &[String],
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let nonzero: Vec<bool> = tangents[1..].iter().map(Option::is_some).collect();
    let n_out = n_results(cx.module(), &branches[0])?;
    // Outputs with a tangent in any branch get one in every branch.
    let mut out_nonzero = vec![false; n_out];
    for branch in branches {
        out_nonzero = or_masks(&out_nonzero, &cx.jvp_func(branch, &nonzero, &vec![false; n_out])?.out_nonzero);
    }
    let mut names = Vec::with_capacity(branches.len());
    for branch in branches {
        names.push(cx.jvp_func(branch, &nonzero, &out_nonzero)?.name);
    }
    let nonzero_tangents: Vec<crate::Value> = tangents[1..].iter().flatten().copied().collect();
    call_jvp(em, cx, Prim::cond(names), primals, &nonzero_tangents, &out_nonzero)
}

/// The carries of a `while` body with a tangent: those given one, and those a body
/// step gives one, to a fixpoint.
fn carry_fixpoint(cx: &mut dyn crate::prim::ad::JvpContext, body: &str, given: &[bool]) -> Result<Vec<bool>, String> {
    let mut carry = given.to_vec();
    loop {
        let out = cx.jvp_func(body, &carry, &carry)?.out_nonzero;
        let next = or_masks(&carry, &out);
        if next == carry {
            return Ok(carry);
        }
        carry = next;
    }
}

pub(super) fn jvp_while(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::JvpContext,
    cond: &str,
    body: &str,
    max_iters: Option<usize>,
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let given: Vec<bool> = tangents.iter().map(Option::is_some).collect();
    let carry = carry_fixpoint(cx, body, &given)?;
    let body_jvp = cx.jvp_func(body, &carry, &carry)?;
    let cond_jvp = cx.jvp_func(cond, &carry, &[false])?;
    let carry_tangents = instantiate(em, primals, tangents, &carry)?;
    let prim = Prim::while_loop(cond_jvp.name, body_jvp.name, max_iters);
    call_jvp(em, cx, prim, primals, &carry_tangents, &carry)
}

pub(super) fn jvp_scan(
    em: &mut crate::Emitter,
    cx: &mut dyn crate::prim::ad::JvpContext,
    params: &ScanParams,
    primals: &[crate::Value],
    tangents: &[Option<crate::Value>],
) -> Result<(Vec<crate::Value>, Vec<Option<crate::Value>>), String> {
    let (k, c) = (params.num_consts, params.num_carry);
    let given: Vec<bool> = tangents.iter().map(Option::is_some).collect();
    let n_ys = n_results(cx.module(), &params.body)? - c;
    // Fixpoint over the carries, with the consts' and xs' masks fixed.
    let mut carry = given[k..k + c].to_vec();
    loop {
        let mask: Vec<bool> = given[..k].iter().chain(&carry).chain(&given[k + c..]).copied().collect();
        let mut inst = carry.clone();
        inst.extend(vec![false; n_ys]);
        let out = cx.jvp_func(&params.body, &mask, &inst)?.out_nonzero;
        let next = or_masks(&carry, &out[..c]);
        if next == carry {
            break;
        }
        carry = next;
    }
    let mask: Vec<bool> = given[..k].iter().chain(&carry).chain(&given[k + c..]).copied().collect();
    let mut inst = carry.clone();
    inst.extend(vec![false; n_ys]);
    let jf = cx.jvp_func(&params.body, &mask, &inst)?;
    // The jvp'd body takes (consts, carry, xs, tangents of those) and returns (carry,
    // ys, tangents of carry, tangents of ys); a scan needs (consts + their tangents,
    // carry + theirs, xs + theirs) and (carry + theirs, ys + theirs).
    let ys_nonzero = jf.out_nonzero[c..].to_vec();
    let name = cx.scan_body_jvp(&jf.name, [k, c, primals.len() - k - c], &mask, c, &jf.out_nonzero)?;
    let consts_t: Vec<crate::Value> = tangents[..k].iter().flatten().copied().collect();
    let carry_t = instantiate(em, &primals[k..k + c], &tangents[k..k + c], &carry)?;
    let xs_t: Vec<crate::Value> = tangents[k + c..].iter().flatten().copied().collect();
    let mut inputs: Vec<crate::Value> = primals[..k].to_vec();
    inputs.extend(&consts_t);
    inputs.extend(&primals[k..k + c]);
    inputs.extend(&carry_t);
    inputs.extend(&primals[k + c..]);
    inputs.extend(&xs_t);
    let n_carry_t = carry_t.len();
    let scan = Prim::scan(ScanParams {
        body: name,
        length: params.length,
        num_consts: k + consts_t.len(),
        num_carry: c + n_carry_t,
        reverse: params.reverse,
        checkpoint: params.checkpoint,
    });
    let outs = em.eqn(cx.module(), scan, &inputs)?;
    // Outputs: carry, carry tangents, ys, ys tangents.
    let carry_out = outs[..c].to_vec();
    let mut carry_t_out = outs[c..c + n_carry_t].iter();
    let ys_out = outs[c + n_carry_t..c + n_carry_t + n_ys].to_vec();
    let mut ys_t_out = outs[c + n_carry_t + n_ys..].iter();
    let mut out_tangents: Vec<Option<crate::Value>> =
        carry.iter().map(|&nz| if nz { carry_t_out.next().copied() } else { None }).collect();
    out_tangents.extend(ys_nonzero.iter().map(|&nz| if nz { ys_t_out.next().copied() } else { None }));
    let mut outputs = carry_out;
    outputs.extend(ys_out);
    Ok((outputs, out_tangents))
}
