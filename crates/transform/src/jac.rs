//! Jacobians and Hessians built on vmap: [`jacfwd`] is `vmap` of `jvp` over a basis of
//! each input's tangents, [`jacrev`] `vmap` of `vjp` over a basis of each output's
//! cotangents, [`hessian`] = `jacfwd(jacrev)`. Results follow JAX's layout: for every
//! float output and every wrt parameter (outputs outer), an array of shape
//! `out.shape + param.shape`.
//!
//! Each builds one copy of the `jvp` (per wrt parameter) or `vjp` (per float output)
//! and inlines them all into one Func, so a function with many scalar outputs costs
//! outputs × the size of its vjp: quadratic. Before building, [`check_size`] estimates
//! the equations (copies × equations of the differentiated module, what inlining
//! builds before dead code is dropped) and the bytes (the Jacobian's results and the
//! identity bases) and refuses past [`MAX_EQUATIONS`] or the default allocation budget,
//! instead of running out of memory while building.

use crate::wrt::Wrt;
use crate::{inline_calls, jvp, vjp, vmap};
use ferrax_ir::array::{Budget, byte_size};
use ferrax_ir::emit::MAX_EQUATIONS;
use ferrax_ir::prim::Prim;
use ferrax_ir::{DType, Emitter, Error, Module, Type, Value};

/// The equations of every Func of `module`.
fn equations(module: &Module) -> usize {
    module.funcs.values().map(|f| f.eqns.len()).sum()
}

/// Refuses a Jacobian pass before it builds: `copies` copies of a module of `per_copy`
/// equations (each a `what`), and the `bytes` its results and bases take, must fit
/// [`MAX_EQUATIONS`] and the default [`Budget`]. The errors name both sides.
fn check_size(copies: usize, per_copy: usize, what: &str, bytes: u64) -> Result<(), String> {
    let total = copies.saturating_mul(per_copy);
    if total > MAX_EQUATIONS {
        return Err(format!(
            "building it takes about {total} equations ({copies} copies of the {per_copy} equations of the {what}), past the limit of {MAX_EQUATIONS} equations"
        ));
    }
    Budget::default().check(0, bytes, "the Jacobian (its results and identity bases)").map_err(|e| e.to_string())
}

/// The bytes of `dtype` values of shape `a + b`, with an error on overflow.
fn joined_bytes(dtype: DType, a: &[usize], b: &[usize]) -> Result<u64, String> {
    let shape: Vec<usize> = a.iter().chain(b).copied().collect();
    byte_size(dtype, &shape).map_err(|e| e.to_string())
}

/// The bytes of a Jacobian whose blocks are `(out, param)` pairs, plus one identity
/// basis (as 32-bit indices, the widest form it takes) per shape in `bases`.
fn jacobian_bytes(blocks: &[(&Type, &Type)], bases: &[&Type]) -> Result<u64, String> {
    let mut total: u64 = 0;
    for (out, param) in blocks {
        total = total.saturating_add(joined_bytes(out.dtype, &out.shape, &param.shape)?);
    }
    for b in bases {
        let n: usize = b.shape.iter().product();
        total = total.saturating_add(joined_bytes(DType::I32, &[n], &[n])?);
    }
    Ok(total)
}

/// `n × n` identity of `dtype`, reshaped to `[n] + shape` (`n` = elements of `shape`).
fn basis(em: &mut Emitter, dtype: DType, shape: &[usize]) -> Result<Value, String> {
    let n: usize = shape.iter().product();
    let rows = em.iota(&[n, n], 0)?;
    let cols = em.iota(&[n, n], 1)?;
    let eye = em.eq(rows, cols)?;
    let eye = em.convert(eye, dtype)?;
    let mut target = vec![n];
    target.extend_from_slice(shape);
    em.reshape(eye, &target)
}

/// `[n] + out_shape` (batch first) rearranged to `out_shape + param_shape`.
fn to_jac_layout(em: &mut Emitter, batched: Value, param_shape: &[usize], batch_last: bool) -> Result<Value, String> {
    let ty = em.ty(batched).clone();
    let rank = ty.rank();
    let moved = if batch_last { em.move_axis(batched, 0, rank - 1)? } else { batched };
    let mut shape: Vec<usize> = ty.shape[1..].to_vec();
    shape.extend_from_slice(param_shape);
    em.reshape(moved, &shape)
}

/// Forward-mode Jacobian of `module`'s entry (default wrt: parameter 0).
pub fn jacfwd(module: &Module, wrt: &Wrt) -> Result<Module, Error> {
    let f = crate::entry(module)?;
    let wrt = wrt.resolve(f, |_| vec![0])?;
    let name = f.name.clone();
    let err = |e: String| crate::error(&name, format!("jacfwd: {e}"));
    let j = jvp(module, &Wrt::Params(wrt.clone()))?;
    let n_out = f.results.len();
    let float_outs: Vec<usize> = (0..n_out).filter(|&i| f.result_types[i].dtype.is_float()).collect();
    let param_tys: Vec<&Type> = wrt.iter().map(|&p| f.ty(f.params[p])).collect();
    let blocks: Vec<(&Type, &Type)> =
        float_outs.iter().flat_map(|&o| param_tys.iter().map(move |&p| (&f.result_types[o], p))).collect();
    let bytes = jacobian_bytes(&blocks, &param_tys).map_err(err)?;
    check_size(wrt.len(), equations(&j), "jvp", bytes).map_err(err)?;
    let mut em = Emitter::new(format!("{name}_jacfwd"));
    let params: Vec<Value> = f.param_types().into_iter().map(|t| em.param(t)).collect();
    let mut jac: Vec<Vec<Value>> = vec![Vec::new(); float_outs.len()];
    let mut pool = Module::new();
    for (k, &p) in wrt.iter().enumerate() {
        let pty = f.ty(f.params[p]).clone();
        let size: usize = pty.shape.iter().product();
        // vmap the jvp over the tangent of parameter p; the other tangents are zero.
        let mut in_axes: Vec<Option<isize>> = vec![None; f.params.len() + wrt.len()];
        in_axes[f.params.len() + k] = Some(0);
        let v = vmap(&j, &in_axes, &[0], size)?;
        let mut inputs = params.clone();
        for (m, &q) in wrt.iter().enumerate() {
            let qty = f.ty(f.params[q]).clone();
            inputs.push(if m == k {
                basis(&mut em, pty.dtype, &pty.shape).map_err(err)?
            } else {
                em.zeros(&qty).map_err(err)?
            });
        }
        let renamed = import(&mut pool, &v, &format!("{name}_jacfwd_{k}"));
        let outs = em.eqn(&pool, Prim::call(renamed), &inputs).map_err(err)?;
        for (slot, _) in float_outs.iter().enumerate() {
            let t = outs[n_out + slot];
            jac[slot].push(to_jac_layout(&mut em, t, &pty.shape, true).map_err(err)?);
        }
    }
    finish(em, jac, pool)
}

/// Reverse-mode Jacobian of `module`'s entry (default wrt: parameter 0).
pub fn jacrev(module: &Module, wrt: &Wrt) -> Result<Module, Error> {
    let f = crate::entry(module)?;
    let wrt = wrt.resolve(f, |_| vec![0])?;
    let name = f.name.clone();
    let err = |e: String| crate::error(&name, format!("jacrev: {e}"));
    let w = vjp(module, &Wrt::Params(wrt.clone()))?;
    let n_out = f.results.len();
    let float_outs: Vec<usize> = (0..n_out).filter(|&i| f.result_types[i].dtype.is_float()).collect();
    let out_tys: Vec<&Type> = float_outs.iter().map(|&o| &f.result_types[o]).collect();
    let blocks: Vec<(&Type, &Type)> =
        out_tys.iter().flat_map(|&o| wrt.iter().map(move |&p| (o, f.ty(f.params[p])))).collect();
    let bytes = jacobian_bytes(&blocks, &out_tys).map_err(err)?;
    check_size(float_outs.len(), equations(&w), "vjp", bytes).map_err(err)?;
    let mut em = Emitter::new(format!("{name}_jacrev"));
    let params: Vec<Value> = f.param_types().into_iter().map(|t| em.param(t)).collect();
    let mut jac: Vec<Vec<Value>> = Vec::new();
    let mut pool = Module::new();
    for (slot, &o) in float_outs.iter().enumerate() {
        let oty: Type = f.result_types[o].clone();
        let size: usize = oty.shape.iter().product();
        let mut in_axes: Vec<Option<isize>> = vec![None; f.params.len() + float_outs.len()];
        in_axes[f.params.len() + slot] = Some(0);
        let v = vmap(&w, &in_axes, &[0], size)?;
        let mut inputs = params.clone();
        for (m, &q) in float_outs.iter().enumerate() {
            let qty = f.result_types[q].clone();
            inputs.push(if m == slot {
                basis(&mut em, oty.dtype, &oty.shape).map_err(err)?
            } else {
                em.zeros(&qty).map_err(err)?
            });
        }
        let renamed = import(&mut pool, &v, &format!("{name}_jacrev_{slot}"));
        let outs = em.eqn(&pool, Prim::call(renamed), &inputs).map_err(err)?;
        let mut row = Vec::new();
        for (k, &p) in wrt.iter().enumerate() {
            let pty = f.ty(f.params[p]).clone();
            // [size] + param.shape → out.shape + param.shape.
            let ct = outs[n_out + k];
            let mut shape = oty.shape.to_vec();
            shape.extend_from_slice(&pty.shape);
            row.push(em.reshape(ct, &shape).map_err(err)?);
        }
        jac.push(row);
    }
    finish(em, jac, pool)
}

/// The Hessian of `module`'s entry: `jacfwd(jacrev(f))` (default wrt: parameter 0).
pub fn hessian(module: &Module, wrt: &Wrt) -> Result<Module, Error> {
    let f = crate::entry(module)?;
    let name = f.name.clone();
    let r = jacrev(module, wrt)?;
    let h = jacfwd(&r, wrt)?;
    // Re-key the entry under its new name (the module maps names to Funcs).
    let mut out = Module::new();
    for (i, func) in h.funcs.into_values().enumerate() {
        let mut func = func;
        if i == 0 {
            func.name = format!("{name}_hessian");
        }
        out.push(func);
    }
    Ok(out)
}

/// Adds the Funcs of `module` to `pool` under a prefix; returns the entry's new name.
fn import(pool: &mut Module, module: &Module, prefix: &str) -> String {
    let rename = |n: &str| format!("{prefix}.{n}");
    for func in module.funcs.values() {
        let mut copy = func.clone();
        copy.name = rename(&func.name);
        for eqn in &mut copy.eqns {
            eqn.prim.rename_callees(&mut |n| rename(n));
        }
        pool.push(copy);
    }
    module.entry().map(|e| rename(&e.name)).unwrap_or_default()
}

fn finish(em: Emitter, jac: Vec<Vec<Value>>, pool: Module) -> Result<Module, Error> {
    let results: Vec<Value> = jac.into_iter().flatten().collect();
    let entry = em.finish(&results);
    let assembled = crate::assemble(entry, &pool);
    let flat = inline_calls(&assembled)?;
    Ok(crate::dce(&flat))
}
