//! Loops that reverse mode rewrites into scans before splitting them.
//!
//! - A `while` bounded by `max_iters=N` becomes a scan of length N carrying an
//!   `active` flag (false once the predicate has failed): each step is a `cond` on the
//!   flag that runs the body or keeps the carry, so the residuals are those of at most
//!   N iterations. A `cond` rather than a `select` of both: the body is neither run nor
//!   differentiated once the loop is over, where it may be out of its domain (a NaN
//!   there would reach the gradient through a zero cotangent, `0 * NaN`). An unbounded
//!   `while` that reads a tangent is an error.
//! - A `scan` with `checkpoint=K` becomes a scan over `length / K` segments whose body
//!   is a `remat` (policy `"nothing"`) of a K-step scan, followed (or, for a reverse
//!   scan, preceded) by a `remat` of the remaining `length % K` steps. Reverse mode then
//!   saves only the carry at the start of each segment, and the backward pass
//!   recomputes a segment's residuals just before transposing it: O(length / K + K)
//!   carries instead of O(length).

use super::{Rewriter, push_func};
use ferrax_ir::prim::{Prim, RematPolicy, ScanParams};
use ferrax_ir::{DType, Emitter, Func, Type, Value};

/// Rewrites `while[cond, body, max_iters](inputs)` as a scan; returns its outputs.
pub(super) fn partial_while(
    rw: &mut Rewriter,
    cond: &str,
    body: &str,
    max_iters: Option<usize>,
    inputs: &[Value],
) -> Result<Vec<Value>, String> {
    let Some(n) = max_iters else {
        return Err(unbounded(rw, cond, body));
    };
    let types: Vec<Type> = inputs.iter().map(|&v| rw.em.ty(v).clone()).collect();
    let mut keep = Emitter::new(format!("{body}_done"));
    let carry: Vec<Value> = types.iter().map(|t| keep.param(t.clone())).collect();
    let keep = push_func(rw.pool, keep.finish(&carry));
    let mut b = Emitter::new(format!("{body}_bounded"));
    let active = b.param(Type::scalar(DType::Bool));
    let carry: Vec<Value> = types.iter().map(|t| b.param(t.clone())).collect();
    let pred = b.eqn(rw.pool, Prim::call(cond.to_string()), &carry)?[0];
    let go = b.and(active, pred)?;
    let step = Prim::cond(vec![keep, body.to_string()]);
    let mut results = vec![go];
    results.extend(b.eqn(rw.pool, step, &[&[go], &carry[..]].concat())?);
    let name = push_func(rw.pool, b.finish(&results));
    let start = rw.em.full(&Type::scalar(DType::Bool), 1.0)?;
    let mut operands = vec![start];
    operands.extend(inputs);
    let params = ScanParams {
        body: name,
        length: n,
        num_consts: 0,
        num_carry: operands.len(),
        reverse: false,
        checkpoint: None,
    };
    let outs = rw.apply(&Prim::scan(params), &operands)?;
    Ok(outs[1..].to_vec())
}

/// The error for reverse mode through an unbounded `while`, naming the loop.
fn unbounded(rw: &Rewriter, cond: &str, body: &str) -> String {
    let (cond, body) = (rw.source_name(cond), rw.source_name(body));
    let mut place = String::new();
    for func in rw.pool.funcs.values() {
        for (i, eqn) in func.eqns.iter().enumerate() {
            if matches!(&eqn.prim, Prim::Control(op) if op.unbounded() && op.callees() == [cond, body]) {
                place = format!(", equation {i} of @{}", func.name);
            }
        }
    }
    let at = rw.loc().map(|l| format!(" at {l}")).unwrap_or_default();
    format!(
        "reverse mode through an unbounded while needs max_iters: the loop `while[cond=@{cond}, body=@{body}, \
         max_iters=none]`{at}{place}"
    )
}

/// Rewrites `scan[p](inputs)` with `checkpoint=k` (1 < k < length) into segments;
/// returns its outputs.
pub(super) fn checkpointed(
    rw: &mut Rewriter,
    p: &ScanParams,
    k: usize,
    inputs: &[Value],
) -> Result<Vec<Value>, String> {
    let fixed = p.num_consts + p.num_carry;
    let consts = &inputs[..p.num_consts];
    let mut carry = inputs[p.num_consts..fixed].to_vec();
    let xs = &inputs[fixed..];
    let main = p.length / k * k;
    // (first index, length, segmented) of each part, in iteration order.
    let mut parts = vec![(0, main, true), (main, p.length - main, false)];
    if p.reverse {
        parts.reverse();
    }
    let mut ys_parts: Vec<(usize, Vec<Value>)> = Vec::new();
    for (start, len, segmented) in parts.into_iter().filter(|part| part.1 > 0) {
        let part_xs = slices(rw, xs, start, len, p.length)?;
        let outs = if segmented {
            segments(rw, p, k, consts, &carry, &part_xs)?
        } else {
            let types: Vec<Type> = part_xs.iter().map(|&x| rw.em.ty(x).clone()).collect();
            let region = scan_region(rw, p, len, &types)?;
            let operands = [consts, &carry[..], &part_xs[..]].concat();
            rw.apply(&Prim::remat(region, RematPolicy::Nothing), &operands)?
        };
        carry = outs[..p.num_carry].to_vec();
        ys_parts.push((start, outs[p.num_carry..].to_vec()));
    }
    ys_parts.sort_by_key(|(start, _)| *start);
    let mut outs = carry;
    let n_ys = ys_parts.first().map_or(0, |(_, ys)| ys.len());
    for j in 0..n_ys {
        let pieces: Vec<Value> = ys_parts.iter().map(|(_, ys)| ys[j]).collect();
        outs.push(match pieces.as_slice() {
            [one] => *one,
            _ => rw.apply(&Prim::concatenate(0), &pieces)?[0],
        });
    }
    Ok(outs)
}

/// Rows `[start, start + len)` of each of `xs` (of leading size `length`).
fn slices(rw: &mut Rewriter, xs: &[Value], start: usize, len: usize, length: usize) -> Result<Vec<Value>, String> {
    if len == length {
        return Ok(xs.to_vec());
    }
    let mut out = Vec::with_capacity(xs.len());
    for &x in xs {
        let shape = rw.em.ty(x).shape.clone();
        let mut begin = vec![0; shape.len()];
        let mut limit = shape.to_vec();
        begin[0] = start;
        limit[0] = start + len;
        let slice = Prim::slice(begin, limit, vec![1; shape.len()]);
        out.push(rw.apply(&slice, &[x])?[0]);
    }
    Ok(out)
}

/// The scan over `xs` (of leading size `main`, a multiple of `k`) as a scan over
/// segments of `k` steps, each a `remat` of a `k`-step scan; returns its outputs.
fn segments(
    rw: &mut Rewriter,
    p: &ScanParams,
    k: usize,
    consts: &[Value],
    carry: &[Value],
    xs: &[Value],
) -> Result<Vec<Value>, String> {
    let main = xs.first().map_or(p.length / k * k, |&x| rw.em.ty(x).shape[0]);
    let n_segments = main / k;
    let mut segmented = Vec::with_capacity(xs.len());
    for &x in xs {
        let mut shape = vec![n_segments, k];
        shape.extend_from_slice(&rw.em.ty(x).shape[1..]);
        segmented.push(rw.apply(&Prim::reshape(shape.as_slice()), &[x])?[0]);
    }
    let slice_types: Vec<Type> = segmented.iter().map(|&x| row_type(&rw.em.ty(x).clone())).collect();
    let region = scan_region(rw, p, k, &slice_types)?;
    let body = segment_body(rw, p, &region, &slice_types, [consts, carry])?;
    let params = ScanParams {
        body,
        length: n_segments,
        num_consts: p.num_consts,
        num_carry: p.num_carry,
        reverse: p.reverse,
        checkpoint: None,
    };
    let operands = [consts, carry, &segmented[..]].concat();
    let outs = rw.apply(&Prim::scan(params), &operands)?;
    let mut result = outs[..p.num_carry].to_vec();
    for &y in &outs[p.num_carry..] {
        let ty = rw.em.ty(y).clone();
        let mut shape = vec![main];
        shape.extend_from_slice(&ty.shape[2..]);
        result.push(rw.apply(&Prim::reshape(shape.as_slice()), &[y])?[0]);
    }
    Ok(result)
}

/// `ty` without its leading axis.
fn row_type(ty: &Type) -> Type {
    Type::new(ty.dtype, &ty.shape[1..])
}

/// A Func `(consts, carry, xs of leading size len) -> (carry, ys)` running the scan's
/// body over `len` steps; returns its name.
fn scan_region(rw: &mut Rewriter, p: &ScanParams, len: usize, xs: &[Type]) -> Result<String, String> {
    let body = rw.func(&p.body)?;
    let fixed = p.num_consts + p.num_carry;
    let mut em = Emitter::new(format!("{}_steps", p.body));
    let mut params: Vec<Value> = body.params[..fixed].iter().map(|&v| em.param(body.ty(v).clone())).collect();
    for ty in xs {
        params.push(em.param(ty.clone()));
    }
    let scan = ScanParams { body: p.body.clone(), length: len, checkpoint: None, ..p.clone() };
    let outs = em.eqn(rw.pool, Prim::scan(scan), &params)?;
    Ok(push_func(rw.pool, em.finish(&outs)))
}

/// The body of the scan over segments: `remat[func=region, policy="nothing"]` of its
/// parameters (consts, carry, one segment of each xs); returns its name.
fn segment_body(
    rw: &mut Rewriter,
    p: &ScanParams,
    region: &str,
    slice_types: &[Type],
    [consts, carry]: [&[Value]; 2],
) -> Result<String, String> {
    let mut em = Emitter::new(format!("{}_segment", p.body));
    let mut params = Vec::new();
    for &v in consts.iter().chain(carry) {
        params.push(em.param(rw.em.ty(v).clone()));
    }
    for ty in slice_types {
        params.push(em.param(ty.clone()));
    }
    let remat = Prim::remat(region.to_string(), RematPolicy::Nothing);
    let outs = em.eqn(rw.pool, remat, &params)?;
    let func: Func = em.finish(&outs);
    Ok(push_func(rw.pool, func))
}
