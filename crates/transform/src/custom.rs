//! Reverse mode through `custom_vjp[func, fwd, bwd]`.
//!
//! Forward mode differentiates `func`. The jvp that reverse mode
//! splits instead emits, for a `custom_vjp` with a non-zero input tangent:
//!
//! - `(outs..., residuals...) = call @fwd(xs...)`: known, the forward pass;
//! - `tangents = custom_vjp[func=@lin, fwd=@lin_fwd, bwd=@lin_bwd](residuals..., xs...,
//!   tangents of the float xs...)`: a linear equation. `@lin` is the tangent part of
//!   `func`'s jvp (so the linear Func of `linearize` evaluates `J·t`); `@lin_fwd`
//!   returns it and forwards the residuals; `@lin_bwd(residuals..., cotangents...)`
//!   calls `bwd` and gives its result as the cotangents of the tangents (zeros for the
//!   other float inputs, which the equation is not linear in).
//!
//! The transpose rule of `custom_vjp` (in `ferrax_ir::prim::control`) then calls
//! `@lin_bwd` on the forwarded residuals, so the backward pass runs `bwd`. The
//! signatures of `fwd` and `bwd` are checked against `func` first, with an error naming
//! the rule that does not fit.

use crate::jvp::JvpPass;
use ferrax_ir::prim::ControlOp;
use ferrax_ir::prim::Prim;
use ferrax_ir::{Emitter, Type, Value};

/// Emits the reverse-mode form of `prim` (a `custom_vjp`) on `xs` with `tangents`
/// (see the module docs); returns the outputs and their tangents.
pub(crate) fn custom_vjp_for_reverse(
    pass: &mut JvpPass,
    em: &mut Emitter,
    prim: &Prim,
    xs: &[Value],
    tangents: &[Option<Value>],
) -> Result<(Vec<Value>, Vec<Option<Value>>), String> {
    let Prim::Control(ControlOp::CustomVjp { func, fwd, bwd }) = prim else {
        return Err(format!("{} is not a custom_vjp", prim.name()));
    };
    let what = format!("reverse mode through custom_vjp[func=@{func}, fwd=@{fwd}, bwd=@{bwd}]");
    let in_types: Vec<Type> = xs.iter().map(|&x| em.ty(x).clone()).collect();
    let out_types = prim.infer(&in_types, &pass.out).map_err(|e| format!("{what}: {e}"))?;
    let fwd_outs = em.eqn(&pass.out, Prim::call(fwd.clone()), xs)?;
    let (outs, residuals) = fwd_outs.split_at(out_types.len());
    let float_in: Vec<bool> = in_types.iter().map(|t| t.dtype.is_float()).collect();
    let float_out: Vec<bool> = out_types.iter().map(|t| t.dtype.is_float()).collect();
    let mut ts = Vec::new();
    for ((&x, t), &float) in xs.iter().zip(tangents).zip(&float_in) {
        if float {
            ts.push(match t {
                Some(t) => *t,
                None => em.full_like(x, 0.0)?,
            });
        }
    }
    let res_types: Vec<Type> = residuals.iter().map(|&r| em.ty(r).clone()).collect();
    let t_types: Vec<Type> = in_types.iter().filter(|t| t.dtype.is_float()).cloned().collect();
    let groups = [res_types.as_slice(), &in_types, &t_types];
    let jf = pass.transform(func, &float_in, &float_out, None)?;
    let lin = tangent_map(pass, func, &jf.name, groups, out_types.len())?;
    let lin_fwd = forwarding_fwd(pass, &lin, groups)?;
    let lin_bwd = bwd_on_tangents(pass, func, bwd, groups, &out_types)?;
    let mut operands: Vec<Value> = residuals.to_vec();
    operands.extend(xs);
    operands.extend(&ts);
    let linear = Prim::Control(ControlOp::CustomVjp { func: lin, fwd: lin_fwd, bwd: lin_bwd });
    let touts = em.eqn(&pass.out, linear, &operands)?;
    let mut touts = touts.into_iter();
    let out_tangents = float_out.iter().map(|&f| if f { touts.next() } else { None }).collect();
    Ok((outs.to_vec(), out_tangents))
}

/// An emitter with one parameter per type of `groups`, in order.
fn emitter(name: String, groups: [&[Type]; 3]) -> (Emitter, Vec<Value>) {
    let mut em = Emitter::new(name);
    let params = groups.iter().flat_map(|g| g.iter()).map(|t| em.param(t.clone())).collect();
    (em, params)
}

/// `@lin(residuals, xs, ts)`: the tangents of `func`'s float outputs (`jvp` is
/// `func`'s jvp, which takes `(xs, ts)`).
fn tangent_map(
    pass: &mut JvpPass,
    func: &str,
    jvp: &str,
    groups: [&[Type]; 3],
    n_out: usize,
) -> Result<String, String> {
    let (mut em, params) = emitter(format!("{func}_vjp_linear"), groups);
    let outs = em.eqn(&pass.out, Prim::call(jvp.to_string()), &params[groups[0].len()..])?;
    Ok(crate::partial::push_func(&mut pass.out, em.finish(&outs[n_out..])))
}

/// `@lin_fwd(residuals, xs, ts)`: `@lin`'s outputs, then the residuals (forwarded).
fn forwarding_fwd(pass: &mut JvpPass, lin: &str, groups: [&[Type]; 3]) -> Result<String, String> {
    let (mut em, params) = emitter(format!("{lin}_fwd"), groups);
    let mut results = em.eqn(&pass.out, Prim::call(lin.to_string()), &params)?.to_vec();
    results.extend(&params[..groups[0].len()]);
    Ok(crate::partial::push_func(&mut pass.out, em.finish(&results)))
}

/// `@lin_bwd(residuals, cotangents of the float outputs)`: zeros for the float
/// residuals and xs, then `bwd(residuals, cotangents)` for the tangents.
fn bwd_on_tangents(
    pass: &mut JvpPass,
    func: &str,
    bwd: &str,
    [res_types, in_types, _]: [&[Type]; 3],
    out_types: &[Type],
) -> Result<String, String> {
    let float_outs: Vec<Type> = out_types.iter().filter(|t| t.dtype.is_float()).cloned().collect();
    let (mut em, params) = emitter(format!("{func}_vjp_bwd"), [res_types, &float_outs, &[]]);
    let (residuals, cts) = params.split_at(res_types.len());
    let mut args = residuals.to_vec();
    let mut cts = cts.iter();
    for ty in out_types {
        args.push(match ty.dtype.is_float() {
            true => *cts.next().ok_or("custom_vjp: a cotangent is missing")?,
            false => em.zeros(ty)?,
        });
    }
    let from_bwd = em.eqn(&pass.out, Prim::call(bwd.to_string()), &args)?;
    let mut results = Vec::new();
    for ty in res_types.iter().chain(in_types).filter(|t| t.dtype.is_float()) {
        results.push(em.zeros(ty)?);
    }
    results.extend(from_bwd);
    Ok(crate::partial::push_func(&mut pass.out, em.finish(&results)))
}
