//! Jacobians and Hessians built on vmap: [`jacfwd`] is `vmap` of `jvp` over a basis of
//! each input's tangents, [`jacrev`] `vmap` of `vjp` over a basis of each output's
//! cotangents, [`hessian`] = `jacfwd(jacrev)`. Results follow JAX's layout: for every
//! float output and every wrt parameter (outputs outer), an array of shape
//! `out.shape + param.shape`.

use crate::wrt::Wrt;
use crate::{inline_calls, jvp, vjp, vmap};
use ferrax_ir::prim::{CompareOp, Prim};
use ferrax_ir::{DType, Emitter, Error, Module, Type, Value};

/// `n × n` identity of `dtype`, reshaped to `[n] + shape` (`n` = elements of `shape`).
fn basis(em: &mut Emitter, dtype: DType, shape: &[usize]) -> Result<Value, String> {
    let n: usize = shape.iter().product();
    let rows = em.op(Prim::Iota { dtype: DType::I32, shape: [n, n].as_slice().into(), dim: 0 }, &[])?;
    let cols = em.op(Prim::Iota { dtype: DType::I32, shape: [n, n].as_slice().into(), dim: 1 }, &[])?;
    let eye = em.compare(CompareOp::Eq, rows, cols)?;
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
        let outs = em.eqn(&pool, Prim::Call { func: renamed }, &inputs).map_err(err)?;
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
        let outs = em.eqn(&pool, Prim::Call { func: renamed }, &inputs).map_err(err)?;
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
