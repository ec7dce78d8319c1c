//! Reverse mode assembled: [`vjp`], [`grad`], [`value_and_grad`], and [`hvp`]
//! (forward-over-reverse). Each builds one Func: the known (primal) equations of the
//! split jvp, then the transposed linear equations, reading residuals directly.

use crate::linear::{Cx, copy_eqn, split_jvp, transpose_eqns};
use crate::wrt::{Wrt, float_params};
use ferrax_ir::{Emitter, Error, Module, Value, emit::add_optional};

/// How the output cotangents of a reverse pass are given.
enum Seeds {
    /// As parameters, one per float output (vjp).
    Params,
    /// 1.0 for output 0 (a float scalar), zero for the others (grad).
    Scalar,
}

/// Builds `@<f>_<suffix>` for `wrt`: params, then the seeds if they are parameters;
/// returns the Func with results `(outs..., cts per wrt)` and the module of bodies.
fn reverse(
    module: &Module,
    wrt: &[usize],
    seeds: Seeds,
    suffix: &str,
) -> Result<(ferrax_ir::Func, Vec<Value>, Vec<Value>, Module), Error> {
    let f = crate::entry(module)?;
    let name = f.name.clone();
    let err = |e: String| crate::error(&name, format!("{suffix}: {e}"));
    if let Seeds::Scalar = seeds {
        let ty = f.result_types.first();
        if !ty.is_some_and(|t| t.dtype.is_float() && t.rank() == 0) {
            let got = ty.map_or("no result".to_string(), |t| t.to_string());
            return Err(err(format!(
                "the function must return a float scalar first (grad of a scalar function), got {got}"
            )));
        }
    }
    let (s, mut bodies) = split_jvp(module, wrt)?;
    let (n_primals, n_outputs) = (f.params.len(), f.results.len());
    let g = &s.func;
    let mut em = Emitter::new(format!("{name}_{suffix}"));
    let mut env: Vec<Option<Value>> = vec![None; g.value_types.len()];
    for &p in &g.params[..n_primals] {
        env[p.index()] = Some(em.param(g.ty(p).clone()));
    }
    let mut cts: Vec<Option<Value>> = vec![None; g.value_types.len()];
    let tangent_results = &g.results[n_outputs..];
    for &r in tangent_results {
        let ct = match seeds {
            Seeds::Params => Some(em.param(g.ty(r).clone())),
            // The scalar output's seed (1.0) is emitted after the primal equations.
            Seeds::Scalar => None,
        };
        cts[r.index()] = add_optional(&mut em, cts[r.index()], ct).map_err(err)?;
    }
    for &i in &s.known {
        copy_eqn(&mut em, &bodies, &g.eqns[i], &mut env).map_err(err)?;
    }
    if let Seeds::Scalar = seeds {
        // The first tangent result is the scalar output's: seed it with 1.0.
        if let Some(&r) = tangent_results.first() {
            let one = em.full(&g.ty(r).clone(), 1.0).map_err(err)?;
            cts[r.index()] = add_optional(&mut em, cts[r.index()], Some(one)).map_err(err)?;
        }
    }
    let mut linear = vec![false; g.value_types.len()];
    g.params[n_primals..].iter().for_each(|p| linear[p.index()] = true);
    let order = s.linear_part();
    transpose_eqns(&mut Cx::new(&mut bodies), &mut em, g, &order, &mut linear, &mut env, &mut cts).map_err(err)?;
    let outs: Vec<Value> = g.results[..n_outputs]
        .iter()
        .map(|v| env[v.index()].ok_or_else(|| err(format!("output {v} is not available"))))
        .collect::<Result<_, _>>()?;
    let mut grads = Vec::with_capacity(wrt.len());
    // Tangent parameters are in parameter order of the wrt indices.
    let mut sorted = wrt.to_vec();
    sorted.sort_unstable();
    for &i in wrt {
        let position = sorted.iter().position(|&s| s == i).unwrap_or(0);
        let p = g.params[n_primals + position];
        grads.push(match cts[p.index()] {
            Some(ct) => ct,
            None => em.zeros(&g.ty(p).clone()).map_err(err)?,
        });
    }
    let mut results = outs.clone();
    results.extend(&grads);
    Ok((em.finish(&results), outs, grads, bodies))
}

/// `vjp(f, wrt)`: `(params..., one cotangent per float output)` → `(outs..., one
/// cotangent per wrt param)`; default wrt: every float parameter.
pub fn vjp(module: &Module, wrt: &Wrt) -> Result<Module, Error> {
    let f = crate::entry(module)?;
    let wrt = wrt.resolve(f, float_params)?;
    let (func, _, _, mut bodies) = reverse(module, &wrt, Seeds::Params, "vjp")?;
    let func = crate::partial::prune_scans(&mut bodies, func);
    Ok(crate::assemble(func, &bodies))
}

/// `grad(f, wrt, has_aux)`: f returns a float scalar (then aux values if `has_aux`);
/// the result returns `(aux..., one gradient per wrt param)`; default wrt: param 0.
pub fn grad(module: &Module, wrt: &Wrt, has_aux: bool) -> Result<Module, Error> {
    with_value(module, wrt, has_aux, false, "grad")
}

/// `value_and_grad(f, wrt, has_aux)`: returns `(value, aux..., gradients...)`.
pub fn value_and_grad(module: &Module, wrt: &Wrt, has_aux: bool) -> Result<Module, Error> {
    with_value(module, wrt, has_aux, true, "value_and_grad")
}

fn with_value(module: &Module, wrt: &Wrt, has_aux: bool, keep_value: bool, suffix: &str) -> Result<Module, Error> {
    let f = crate::entry(module)?;
    let wrt = wrt.resolve(f, |_| vec![0])?;
    if !has_aux && f.results.len() != 1 {
        let message =
            format!("{suffix}: the function returns {} values; pass has_aux to treat the rest as aux", f.results.len());
        return Err(crate::error(&f.name, message));
    }
    let (mut func, outs, grads, mut bodies) = reverse(module, &wrt, Seeds::Scalar, suffix)?;
    let mut results: Vec<Value> = if keep_value { outs.clone() } else { outs[1..].to_vec() };
    results.extend(grads);
    func.result_types = results.iter().map(|&v| func.ty(v).clone()).collect();
    func.results = results;
    let func = crate::partial::prune_scans(&mut bodies, crate::dce::dce_func(&func));
    Ok(crate::assemble(func, &bodies))
}

/// `hvp(f, wrt)` = `jvp(grad(f, wrt))` over every float parameter: `(params..., one
/// tangent per float param)` → `(gradients..., H·v per wrt param)`.
pub fn hvp(module: &Module, wrt: &Wrt) -> Result<Module, Error> {
    let f = crate::entry(module)?;
    let name = f.name.clone();
    let g = grad(module, wrt, false)?;
    let mut h = crate::jvp(&g, &Wrt::Default)?;
    if let Some((_, entry)) = h.funcs.get_index_mut(0) {
        entry.name = format!("{name}_hvp");
    }
    let entry = crate::entry(&h)?.clone();
    Ok(crate::assemble(entry, &h))
}
