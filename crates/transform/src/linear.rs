//! Reverse mode's two halves: partial evaluation of a jvp into a primal and a linear
//! part ([`linearize`]), and transposition of linear code ([`transpose`]).
//!
//! Partial evaluation splits the jvp'd Func: an equation whose inputs are all known
//! (computable from the primal parameters) is *known* and goes to the primal part;
//! one that reads a tangent is *linear*. Known values that linear equations read are
//! the residuals: the only way the linear part sees the primal computation (it never
//! reads primal inputs directly). Constants and iotas it reads are recomputed rather
//! than saved. Transposition runs the linear equations backwards, calling each
//! primitive's transpose rule and accumulating cotangents with `add` where a value
//! fans out; zero cotangents stay symbolic.

use crate::inline::{Inline, inline_func};
use crate::jvp::JvpPass;
use crate::wrt::{Wrt, float_params};
use ferrax_ir::prim::ad::{LinearIn, TransposeContext};
use ferrax_ir::{AttrValue, Emitter, Eqn, Error, Func, Module, Value, emit::add_optional};

/// A jvp'd Func split into its known and linear equations.
pub(crate) struct Split {
    /// The flat jvp'd Func (calls inlined).
    pub(crate) func: Func,
    /// Indices of the known equations, in order.
    pub(crate) known: Vec<usize>,
    /// Indices of the equations the linear part recomputes (constants), in order.
    pub(crate) recomputed: Vec<usize>,
    /// Indices of the linear equations, in order.
    pub(crate) linear: Vec<usize>,
    /// Known values the linear part reads, in first-use order.
    pub(crate) residuals: Vec<Value>,
    /// Number of primal parameters (the tangent parameters follow).
    pub(crate) n_primals: usize,
    /// Number of primal results (the tangent results follow).
    pub(crate) n_outputs: usize,
}

/// Differentiates `module`'s entry by jvp with respect to `wrt`, inlines what reverse
/// mode must see through, and splits the result (the module holding the bodies).
pub(crate) fn split_jvp(module: &Module, wrt: &[usize]) -> Result<(Split, Module), Error> {
    let f = crate::entry(module)?;
    let n_outputs = f.results.len();
    let mut nonzero = vec![false; f.params.len()];
    for &i in wrt {
        nonzero[i] = true;
    }
    let instantiate: Vec<bool> = f.result_types.iter().map(|t| t.dtype.is_float()).collect();
    let mut pass = JvpPass::new(module);
    let jf = pass.transform(&f.name, &nonzero, &instantiate, None).map_err(|e| pass.error(&f.name, e))?;
    let jvp_func = pass.out.func(&jf.name).cloned().ok_or_else(|| crate::error(&f.name, "jvp lost its result"))?;
    let flat = inline_func(&jvp_func, &pass.out, Inline::ForReverseMode)?;
    let split = split(flat, f.params.len(), n_outputs)?;
    Ok((split, pass.out))
}

fn split(func: Func, n_primals: usize, n_outputs: usize) -> Result<Split, Error> {
    let mut unknown = vec![false; func.value_types.len()];
    for p in &func.params[n_primals..] {
        unknown[p.index()] = true;
    }
    let (mut known, mut linear) = (Vec::new(), Vec::new());
    for (i, eqn) in func.eqns.iter().enumerate() {
        if eqn.inputs.iter().any(|v| unknown[v.index()]) {
            if !eqn.prim.callees().is_empty() {
                let at = eqn.loc.as_deref().map(|l| format!(" (at {l})")).unwrap_or_default();
                return Err(crate::error(
                    &func.name,
                    format!("reverse mode through `{}` is not implemented yet{at}", eqn.prim.name()),
                ));
            }
            eqn.outputs.iter().for_each(|o| unknown[o.index()] = true);
            linear.push(i);
        } else {
            known.push(i);
        }
    }
    // Known values the linear part needs: residuals, except constants, recomputed.
    let nullary: Vec<Option<usize>> = {
        let mut by_value = vec![None; func.value_types.len()];
        for &i in &known {
            if func.eqns[i].inputs.is_empty() {
                func.eqns[i].outputs.iter().for_each(|o| by_value[o.index()] = Some(i));
            }
        }
        by_value
    };
    let mut residuals = Vec::new();
    let mut recomputed = Vec::new();
    let need = |v: Value, residuals: &mut Vec<Value>, recomputed: &mut Vec<usize>| {
        if unknown[v.index()] {
            return;
        }
        match nullary[v.index()] {
            Some(i) if !recomputed.contains(&i) => recomputed.push(i),
            Some(_) => {}
            None if !residuals.contains(&v) => residuals.push(v),
            None => {}
        }
    };
    for &i in &linear {
        for &v in &func.eqns[i].inputs {
            need(v, &mut residuals, &mut recomputed);
        }
    }
    for &r in &func.results[n_outputs..] {
        need(r, &mut residuals, &mut recomputed);
    }
    recomputed.sort_unstable();
    Ok(Split { func, known, recomputed, linear, residuals, n_primals, n_outputs })
}

/// Copies equation `eqn` of `from` into `em`, renaming values through `env`.
pub(crate) fn copy_eqn(em: &mut Emitter, module: &Module, eqn: &Eqn, env: &mut [Option<Value>]) -> Result<(), String> {
    let inputs: Vec<Value> = eqn
        .inputs
        .iter()
        .map(|v| env[v.index()].ok_or_else(|| format!("value {v} is not available")))
        .collect::<Result<_, _>>()?;
    em.set_loc(eqn.loc.clone());
    let outputs = em.eqn(module, eqn.prim.clone(), &inputs)?;
    for (o, n) in eqn.outputs.iter().zip(outputs) {
        env[o.index()] = Some(n);
    }
    Ok(())
}

struct Cx<'m>(&'m Module);

impl TransposeContext for Cx<'_> {
    fn module(&self) -> &Module {
        self.0
    }
}

/// Transposes the equations `eqns` of `func` (in program order) into `em`.
///
/// `linear` marks the values the code is linear in (they gain cotangents); `env` maps
/// the other values of `func` that are already available in `em`; `cts` holds the
/// cotangents given to values (those of the outputs) and receives the rest. Equations
/// without a linear input are copied first (a forward sweep over what the linear code
/// computes from residuals), then the linear ones are transposed in reverse order.
pub(crate) fn transpose_eqns(
    em: &mut Emitter,
    module: &Module,
    func: &Func,
    eqns: &[usize],
    linear: &mut [bool],
    env: &mut [Option<Value>],
    cts: &mut [Option<Value>],
) -> Result<(), String> {
    let mut linear_eqns = Vec::new();
    for &i in eqns {
        let eqn = &func.eqns[i];
        if eqn.inputs.iter().any(|v| linear[v.index()]) {
            eqn.outputs.iter().for_each(|o| linear[o.index()] = true);
            linear_eqns.push(i);
        } else {
            copy_eqn(em, module, eqn, env)?;
        }
    }
    let mut cx = Cx(module);
    for &i in linear_eqns.iter().rev() {
        let eqn = &func.eqns[i];
        let out_cts: Vec<Option<Value>> = eqn.outputs.iter().map(|o| cts[o.index()]).collect();
        if out_cts.iter().all(Option::is_none) {
            continue;
        }
        let mut inputs = Vec::with_capacity(eqn.inputs.len());
        for &v in &eqn.inputs {
            inputs.push(if linear[v.index()] {
                LinearIn::Linear(func.ty(v).clone())
            } else {
                LinearIn::Residual(env[v.index()].ok_or_else(|| format!("residual {v} is not available"))?)
            });
        }
        em.set_loc(eqn.loc.clone());
        let in_cts = eqn
            .prim
            .transpose(em, &mut cx, &inputs, &out_cts)
            .map_err(|e| format!("transposing equation {i} ({}): {e}", eqn.prim.name()))?;
        for (&v, ct) in eqn.inputs.iter().zip(in_cts) {
            if linear[v.index()] && ct.is_some() {
                cts[v.index()] = add_optional(em, cts[v.index()], ct)?;
            }
        }
    }
    Ok(())
}

/// Partial evaluation of the jvp: a module whose entry `@<f>_linearize` takes the
/// params and returns `(outs..., residuals...)`, followed by `@<f>_linearize_linear`
/// (`[residuals=K]`), which takes `(residuals..., one tangent per wrt param)` and
/// returns one tangent per float out.
pub fn linearize(module: &Module, wrt: &Wrt) -> Result<Module, Error> {
    let f = crate::entry(module)?;
    let wrt = wrt.resolve(f, float_params)?;
    let name = f.name.clone();
    let (s, bodies) = split_jvp(module, &wrt)?;
    let g = &s.func;
    let err = |e: String| crate::error(&name, format!("linearize: {e}"));
    // The primal part.
    let mut primal = Emitter::new(format!("{name}_linearize"));
    let mut env: Vec<Option<Value>> = vec![None; g.value_types.len()];
    for &p in &g.params[..s.n_primals] {
        env[p.index()] = Some(primal.param(g.ty(p).clone()));
    }
    for &i in &s.known {
        copy_eqn(&mut primal, &bodies, &g.eqns[i], &mut env).map_err(err)?;
    }
    let mut results: Vec<Value> = Vec::new();
    for &v in g.results[..s.n_outputs].iter().chain(&s.residuals) {
        results.push(env[v.index()].ok_or_else(|| err(format!("value {v} is not available")))?);
    }
    let primal = primal.finish(&results);
    // The linear part.
    let mut lin = Emitter::new(format!("{name}_linearize_linear"));
    let mut lenv: Vec<Option<Value>> = vec![None; g.value_types.len()];
    for &r in &s.residuals {
        lenv[r.index()] = Some(lin.param(g.ty(r).clone()));
    }
    for &p in &g.params[s.n_primals..] {
        lenv[p.index()] = Some(lin.param(g.ty(p).clone()));
    }
    let mut order: Vec<usize> = s.recomputed.iter().chain(&s.linear).copied().collect();
    order.sort_unstable();
    for i in order {
        copy_eqn(&mut lin, &bodies, &g.eqns[i], &mut lenv).map_err(err)?;
    }
    let tangent_results: Vec<Value> = g.results[s.n_outputs..]
        .iter()
        .map(|v| lenv[v.index()].ok_or_else(|| err(format!("value {v} is not available"))))
        .collect::<Result<_, _>>()?;
    lin.set_attr("residuals", AttrValue::Int(s.residuals.len() as i64));
    let lin = lin.finish(&tangent_results);
    let mut pool = bodies;
    pool.push(lin.clone());
    let mut out = crate::assemble(primal, &pool);
    if !out.funcs.contains_key(&lin.name) {
        out.push(lin);
    }
    Ok(out)
}

/// The transpose of a linear Func marked `[residuals=K]` (the entry, or else the first
/// Func so marked, as in `linearize`'s output): `@<f>_transpose` takes `(residuals...,
/// one cotangent per output)` and returns one cotangent per linear (non-residual)
/// parameter.
pub fn transpose(module: &Module) -> Result<Module, Error> {
    let entry = crate::entry(module)?;
    let f = if entry.attr("residuals").is_some() {
        entry
    } else {
        module.funcs.values().find(|f| f.attr("residuals").is_some()).unwrap_or(entry)
    };
    let k = match f.attr("residuals") {
        Some(AttrValue::Int(k)) if (0..=f.params.len() as i64).contains(k) => *k as usize,
        Some(other) => return Err(crate::error(&f.name, format!("transpose: bad residuals={other}"))),
        None => return Err(crate::error(&f.name, "transpose: the Func is not marked [residuals=K] (is it linear?)")),
    };
    let name = f.name.clone();
    let err = |e: String| crate::error(&name, format!("transpose: {e}"));
    let mut em = Emitter::new(format!("{name}_transpose"));
    let mut env: Vec<Option<Value>> = vec![None; f.value_types.len()];
    let mut linear = vec![false; f.value_types.len()];
    for &p in &f.params[..k] {
        env[p.index()] = Some(em.param(f.ty(p).clone()));
    }
    f.params[k..].iter().for_each(|p| linear[p.index()] = true);
    let mut cts: Vec<Option<Value>> = vec![None; f.value_types.len()];
    for &r in &f.results {
        let ct = em.param(f.ty(r).clone());
        cts[r.index()] = add_optional(&mut em, cts[r.index()], Some(ct)).map_err(err)?;
    }
    let all: Vec<usize> = (0..f.eqns.len()).collect();
    transpose_eqns(&mut em, module, f, &all, &mut linear, &mut env, &mut cts).map_err(err)?;
    let mut results = Vec::new();
    for &p in &f.params[k..] {
        results.push(match cts[p.index()] {
            Some(ct) => ct,
            None => em.zeros(&f.ty(p).clone()).map_err(err)?,
        });
    }
    Ok(crate::assemble(em.finish(&results), module))
}
