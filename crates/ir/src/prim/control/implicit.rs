//! `custom_linear_solve` and `custom_root`: a linear solve and a root search given by
//! Funcs of the module, differentiated by the implicit function theorem instead of
//! through the solver's iterations (which may be a `while` loop that reverse mode
//! could not even transpose, and whose derivative would be the derivative of an
//! approximation).
//!
//! Both take `num_consts` leading operands: what their Funcs close over (a matrix, a
//! model's parameters). Every Func receives the consts first, so derivatives with
//! respect to them flow through the rules below like those of any other operand.
//!
//! - `custom_linear_solve(consts..., b...)` runs `@solve(consts..., b...)`, which
//!   returns `x` with `@matvec(consts..., x...) = b`, optionally followed by auxiliary
//!   results (solver diagnostics: iterations, a residual norm), which have no
//!   derivative (JAX's `has_aux`). Its tangent is another solve:
//!   `dx = solve(consts, db - ∂m/∂consts(consts, x)·dconsts)`, linear in the rhs; its
//!   transpose solves the transposed system with `@transpose_solve` and a matvec that
//!   is `@matvec` transposed in `x` (built here, so that the transposed solve can be
//!   differentiated again). The consts' cotangents come from transposing the jvp of
//!   `@matvec` in the consts, which the tangent rule emits as an ordinary call.
//! - `custom_root(consts..., x0...)` runs `@solve(consts..., x0...)`, a root `x` of
//!   `@f(consts..., x...)` (optionally followed by auxiliary results, as above). The root does not depend on `x0`; its tangent is
//!   `dx = -@tangent_solve(consts, x, ∂f/∂consts·dconsts)`, where `@tangent_solve(consts,
//!   x, rhs)` solves `J_x f(consts, x)·dx = rhs`. Reverse mode transposes that call,
//!   so `@tangent_solve` must be linear in `rhs` through transposable primitives (a
//!   `custom_linear_solve` or a dense factorisation), as in JAX.

use super::{expect_params, expect_results, n_results, signature};
use crate::prim::ad::{JvpContext, LinearIn, TransposeContext};
use crate::prim::batch::{BatchContext, Batched};
use crate::prim::{ControlOp, Prim};
use crate::{Emitter, Module, Type, Value};

/// The static parameters of a `custom_linear_solve`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LinearSolveParams {
    /// `@m(consts..., x...) -> (b...)`, linear in `x`.
    pub matvec: String,
    /// `@s(consts..., b...) -> (x..., aux...)`: solves `m(consts, x) = b`; any results
    /// after the `x`s are auxiliary (no derivative).
    pub solve: String,
    /// `@t(consts..., b...) -> (x..., aux...)`: solves the transposed system; reverse
    /// mode needs it unless `symmetric`.
    pub transpose_solve: Option<String>,
    /// The operator is its own transpose: reverse mode reuses `matvec` and `solve`.
    pub symmetric: bool,
    /// Leading operands passed to every Func: what they close over.
    pub num_consts: usize,
}

/// The static parameters of a `custom_root`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RootParams {
    /// `@f(consts..., x...) -> (r...)`: the function whose root is sought.
    pub f: String,
    /// `@s(consts..., x0...) -> (x..., aux...)`: finds a root starting from `x0`; any
    /// results after the `x`s are auxiliary (no derivative).
    pub solve: String,
    /// `@ts(consts..., x..., rhs...) -> (dx...)`: solves `J_x f(consts, x)·dx = rhs`.
    pub tangent_solve: String,
    /// Leading operands passed to every Func: what they close over.
    pub num_consts: usize,
}

/// Splits `inputs` into the consts and the rest, which must be floats and not empty.
fn split_consts<'t>(op: &str, what: &str, k: usize, inputs: &'t [Type]) -> Result<(&'t [Type], &'t [Type]), String> {
    if k > inputs.len() {
        return Err(format!("{op}: num_consts={k} exceeds the {} operands", inputs.len()));
    }
    let (consts, rest) = inputs.split_at(k);
    if rest.is_empty() {
        return Err(format!("{op}: needs at least one {what} operand after the {k} consts"));
    }
    if let Some(t) = rest.iter().find(|t| !t.dtype.is_float()) {
        return Err(format!("{op}: {what} operands must be floats, got {t}"));
    }
    Ok((consts, rest))
}

/// Checks that `@name` takes `params` and returns `results` followed by any auxiliary
/// results, which it returns.
fn expect_func_aux<'m>(
    module: &'m Module,
    op: &str,
    role: &str,
    name: &str,
    params: &[Type],
    results: &[Type],
) -> Result<&'m [Type], String> {
    let (given, returned) = signature(op, role, name, module)?;
    expect_params(op, role, name, &given, params)?;
    match returned.strip_prefix(results) {
        Some(aux) => Ok(aux),
        None => Err(format!(
            "{op}: {role} @{name} returns {} but must return {} (then any auxiliary results)",
            crate::format_types(returned),
            crate::format_types(results)
        )),
    }
}

/// Checks that `@name` maps `params` to `results`.
fn expect_func(
    module: &Module,
    op: &str,
    role: &str,
    name: &str,
    params: &[Type],
    results: &[Type],
) -> Result<(), String> {
    let (given, returned) = signature(op, role, name, module)?;
    expect_params(op, role, name, &given, params)?;
    expect_results(op, role, name, returned, results)
}

/// The type rule of `custom_linear_solve`: the results have the types of `b`, then
/// those of `@solve`'s auxiliary results.
pub(crate) fn infer_linear_solve(p: &LinearSolveParams, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
    let op = "custom_linear_solve";
    let (_, b) = split_consts(op, "right-hand side", p.num_consts, inputs)?;
    expect_func(module, op, "matvec", &p.matvec, inputs, b)?;
    let aux = expect_func_aux(module, op, "solve", &p.solve, inputs, b)?;
    match (&p.transpose_solve, p.symmetric) {
        (Some(t), false) => {
            expect_func_aux(module, op, "transpose_solve", t, inputs, b)?;
        }
        (Some(t), true) => {
            return Err(format!("{op}: a symmetric system takes no transpose_solve (its solve is its own), got @{t}"));
        }
        (None, _) => {}
    }
    Ok([b, aux].concat())
}

/// The type rule of `custom_root`: the results have the types of `x0`, then those of
/// `@solve`'s auxiliary results.
pub(crate) fn infer_root(p: &RootParams, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
    let op = "custom_root";
    let (_, x) = split_consts(op, "initial guess", p.num_consts, inputs)?;
    expect_func(module, op, "f", &p.f, inputs, x)?;
    let aux = expect_func_aux(module, op, "solve", &p.solve, inputs, x)?;
    expect_func(module, op, "tangent_solve", &p.tangent_solve, &[inputs, x].concat(), x)?;
    Ok([x, aux].concat())
}

/// `values`, with zeros of the matching type of `like` where a value is missing.
fn or_zeros(em: &mut Emitter, values: &[Option<Value>], like: &[Value]) -> Result<Vec<Value>, String> {
    values
        .iter()
        .zip(like)
        .map(|(v, &l)| match v {
            Some(v) => Ok(*v),
            None => em.full_like(l, 0.0),
        })
        .collect()
}

/// Calls the jvp of `@f(consts..., x...)` in the consts only (at `x`), returning the
/// tangents of its results (`None` where zero).
fn jvp_in_consts(
    em: &mut Emitter,
    cx: &mut dyn JvpContext,
    f: &str,
    consts: &[Value],
    const_tangents: &[Option<Value>],
    x: &[Value],
) -> Result<Vec<Option<Value>>, String> {
    let mut nonzero: Vec<bool> = const_tangents.iter().map(Option::is_some).collect();
    nonzero.resize(consts.len() + x.len(), false);
    let jf = cx.jvp_func(f, &nonzero, &vec![false; x.len()])?;
    let inputs: Vec<Value> = consts.iter().chain(x).chain(const_tangents.iter().flatten()).copied().collect();
    let outs = em.eqn(cx.module(), Prim::call(jf.name.clone()), &inputs)?;
    let mut extra = outs[x.len()..].iter();
    Ok(jf.out_nonzero.iter().map(|&nz| if nz { extra.next().copied() } else { None }).collect())
}

/// The jvp rule of `custom_linear_solve` (see the module docs).
pub(crate) fn jvp_linear_solve(
    em: &mut Emitter,
    cx: &mut dyn JvpContext,
    p: &LinearSolveParams,
    primals: &[Value],
    tangents: &[Option<Value>],
) -> Result<(Vec<Value>, Vec<Option<Value>>), String> {
    let op = ControlOp::CustomLinearSolve(p.clone());
    let outputs = em.eqn(cx.module(), op.clone(), primals)?.to_vec();
    let (consts, b) = primals.split_at(p.num_consts);
    let x = &outputs[..b.len()];
    let (dconsts, db) = tangents.split_at(p.num_consts);
    let mut rhs: Vec<Option<Value>> = db.to_vec();
    if dconsts.iter().any(Option::is_some) {
        let dm = jvp_in_consts(em, cx, &p.matvec, consts, dconsts, x)?;
        for (r, d) in rhs.iter_mut().zip(dm) {
            if let Some(d) = d {
                *r = Some(match *r {
                    Some(r) => em.sub(r, d)?,
                    None => em.neg(d)?,
                });
            }
        }
    }
    let mut tangents_out = vec![None; outputs.len()];
    if rhs.iter().all(Option::is_none) {
        return Ok((outputs, tangents_out));
    }
    let mut inputs = consts.to_vec();
    inputs.extend(or_zeros(em, &rhs, b)?);
    let dx = em.eqn(cx.module(), op, &inputs)?;
    for (t, d) in tangents_out.iter_mut().zip(&dx[..b.len()]) {
        *t = Some(*d);
    }
    Ok((outputs, tangents_out))
}

/// The jvp rule of `custom_root` (see the module docs).
pub(crate) fn jvp_root(
    em: &mut Emitter,
    cx: &mut dyn JvpContext,
    p: &RootParams,
    primals: &[Value],
    tangents: &[Option<Value>],
) -> Result<(Vec<Value>, Vec<Option<Value>>), String> {
    let outputs = em.eqn(cx.module(), ControlOp::CustomRoot(p.clone()), primals)?.to_vec();
    let (consts, x0) = primals.split_at(p.num_consts);
    let x = &outputs[..x0.len()];
    let dconsts = &tangents[..p.num_consts];
    let mut dx = vec![None; outputs.len()];
    if dconsts.iter().all(Option::is_none) {
        return Ok((outputs, dx));
    }
    let df = jvp_in_consts(em, cx, &p.f, consts, dconsts, x)?;
    if df.iter().all(Option::is_none) {
        return Ok((outputs, dx));
    }
    let mut inputs: Vec<Value> = consts.iter().chain(x).copied().collect();
    inputs.extend(or_zeros(em, &df, x)?);
    let solved = em.eqn(cx.module(), Prim::call(p.tangent_solve.clone()), &inputs)?;
    for (t, &d) in dx.iter_mut().zip(&solved) {
        *t = Some(em.neg(d)?);
    }
    Ok((outputs, dx))
}

/// `@matvec` transposed in `x`: `(consts..., ct...) -> (x cotangents...)`, added to the
/// module being built; returns its name.
fn transposed_matvec(
    cx: &mut dyn TransposeContext,
    matvec: &str,
    const_types: &[Type],
    b_types: &[Type],
) -> Result<String, String> {
    let mut sub = Emitter::new(format!("{matvec}_transposed"));
    let mut inputs: Vec<LinearIn> = const_types.iter().map(|t| LinearIn::Residual(sub.param(t.clone()))).collect();
    inputs.extend(b_types.iter().map(|t| LinearIn::Linear(t.clone())));
    let cts: Vec<Option<Value>> = b_types.iter().map(|t| Some(sub.param(t.clone()))).collect();
    let x_cts = cx.transpose_into(&mut sub, matvec, &inputs, &cts)?;
    let mut results = Vec::with_capacity(b_types.len());
    for (ct, ty) in x_cts[const_types.len()..].iter().zip(b_types) {
        results.push(match ct {
            Some(ct) => *ct,
            None => sub.zeros(ty)?,
        });
    }
    cx.add_func(sub.finish(&results))
}

/// The transpose rule of `custom_linear_solve`: linear in `b`, the consts residuals.
pub(crate) fn transpose_linear_solve(
    em: &mut Emitter,
    cx: &mut dyn TransposeContext,
    p: &LinearSolveParams,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let op = "custom_linear_solve";
    let (const_ins, b_ins) = inputs.split_at(p.num_consts.min(inputs.len()));
    let consts: Vec<Value> =
        const_ins.iter().map(|c| c.residual(&format!("{op}: a const"))).collect::<Result<_, _>>()?;
    let b_types: Vec<Type> = b_ins
        .iter()
        .map(|b| match b {
            LinearIn::Linear(t) => Ok(t.clone()),
            LinearIn::Residual(_) => Err(format!("{op}: a right-hand side is a residual, so the solve is not linear")),
        })
        .collect::<Result<_, String>>()?;
    let mut out = vec![None; inputs.len()];
    if cts[..b_types.len().min(cts.len())].iter().all(Option::is_none) {
        return Ok(out);
    }
    let transposed = if p.symmetric {
        p.clone()
    } else {
        let solve = p.transpose_solve.clone().ok_or_else(|| {
            format!("{op}: reverse mode needs a transpose_solve (or symmetric=true) for @{}", p.matvec)
        })?;
        let const_types: Vec<Type> = consts.iter().map(|&c| em.ty(c).clone()).collect();
        let matvec = transposed_matvec(cx, &p.matvec, &const_types, &b_types)?;
        LinearSolveParams {
            matvec,
            solve,
            transpose_solve: Some(p.solve.clone()),
            symmetric: false,
            num_consts: p.num_consts,
        }
    };
    let mut args = consts;
    // Auxiliary results have no cotangent to give: only the solution's count.
    for (ct, ty) in cts.iter().zip(&b_types) {
        args.push(match ct {
            Some(ct) => *ct,
            None => em.zeros(ty)?,
        });
    }
    let ct_b = em.eqn(cx.module(), ControlOp::CustomLinearSolve(transposed), &args)?;
    for (slot, ct) in out[p.num_consts..].iter_mut().zip(&ct_b[..b_types.len()]) {
        *slot = Some(*ct);
    }
    Ok(out)
}

/// Moves batched inputs to axis 0; the leading `k` (the consts) keep their batching,
/// the rest (right-hand sides, initial guesses) are all batched.
fn front(
    em: &mut Emitter,
    size: usize,
    k: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<(Vec<Value>, Vec<bool>), String> {
    let k = k.min(inputs.len()).min(dims.len());
    let (mut ins, mut batched) = super::batch::inputs_at_front(em, size, &inputs[..k], &dims[..k], false)?;
    let (rest, rest_batched) = super::batch::inputs_at_front(em, size, &inputs[k..], &dims[k..], true)?;
    ins.extend(rest);
    batched.extend(rest_batched);
    Ok((ins, batched))
}

fn batch(cx: &mut dyn BatchContext, name: &str, in_batched: &[bool], n_out: usize) -> Result<String, String> {
    Ok(cx.batch_func(name, in_batched, &vec![true; n_out])?.name)
}

/// The batching rule of `custom_linear_solve`: each Func batched with the consts as
/// they come and the right-hand side (hence the solution) batched.
pub(crate) fn batch_linear_solve(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    p: &LinearSolveParams,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let (ins, batched) = front(em, cx.axis_size(), p.num_consts, inputs, dims)?;
    let n = inputs.len().saturating_sub(p.num_consts);
    let transpose_solve = match &p.transpose_solve {
        Some(t) => {
            let k = n_results(cx.module(), t)?;
            Some(batch(cx, t, &batched, k)?)
        }
        None => None,
    };
    let n_out = n_results(cx.module(), &p.solve)?;
    let new = LinearSolveParams {
        matvec: batch(cx, &p.matvec, &batched, n)?,
        solve: batch(cx, &p.solve, &batched, n_out)?,
        transpose_solve,
        ..p.clone()
    };
    let outs = em.eqn(cx.module(), ControlOp::CustomLinearSolve(new), &ins)?;
    Ok((outs.to_vec(), vec![Some(0); n_out]))
}

/// The batching rule of `custom_root`, like that of `custom_linear_solve`.
pub(crate) fn batch_root(
    em: &mut Emitter,
    cx: &mut dyn BatchContext,
    p: &RootParams,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let (ins, batched) = front(em, cx.axis_size(), p.num_consts, inputs, dims)?;
    let n = inputs.len().saturating_sub(p.num_consts);
    let with_rhs = [&batched[..], &vec![true; n]].concat();
    let n_out = n_results(cx.module(), &p.solve)?;
    let new = RootParams {
        f: batch(cx, &p.f, &batched, n)?,
        solve: batch(cx, &p.solve, &batched, n_out)?,
        tangent_solve: batch(cx, &p.tangent_solve, &with_rhs, n)?,
        num_consts: p.num_consts,
    };
    let outs = em.eqn(cx.module(), Prim::Control(ControlOp::CustomRoot(new)), &ins)?;
    Ok((outs.to_vec(), vec![Some(0); n_out]))
}
