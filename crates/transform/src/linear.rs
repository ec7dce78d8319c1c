//! Reverse mode's two halves: partial evaluation of a jvp into a primal and a linear
//! part ([`linearize`]), and transposition of linear code ([`transpose`]).
//!
//! Partial evaluation splits the jvp'd Func: an equation whose inputs are all known
//! (computable from the primal parameters) is *known* and goes to the primal part;
//! one that reads a tangent is *linear*. Known values that linear equations read are
//! the residuals: the only way the linear part sees the primal computation (it never
//! reads primal inputs directly). Constants and iotas it reads are recomputed rather
//! than saved. Structured equations that read a tangent are first rewritten into a
//! known and a linear equation with bodies of their own (see [`crate::partial`]).
//! Transposition runs the linear equations backwards, calling each primitive's
//! transpose rule and accumulating cotangents with `add` where a value fans out; zero
//! cotangents stay symbolic. The rules of structured primitives transpose their bodies
//! through [`Cx`], which adds the transposed bodies to the module being built.

use crate::jvp::JvpPass;
use crate::partial::{Rewriter, Save, Split, push_func, split};
use crate::wrt::{Wrt, float_params};
use ferrax_ir::prim::ad::{LinearIn, TransposeContext};
use ferrax_ir::prim::{IndexOp, ShapeOp};
use ferrax_ir::{AttrValue, Emitter, Eqn, Error, Func, MAX_NESTING, Module, Value, emit::add_optional};
use std::rc::Rc;

/// Differentiates `module`'s entry by jvp with respect to `wrt` and splits the result
/// into known and linear parts (see [`crate::partial`]); returns the split and the
/// module holding every body it refers to.
pub(crate) fn split_jvp(module: &Module, wrt: &[usize]) -> Result<(Split, Module), Error> {
    let f = crate::entry(module)?;
    let n_outputs = f.results.len();
    let mut nonzero = vec![false; f.params.len()];
    for &i in wrt {
        nonzero[i] = true;
    }
    let instantiate: Vec<bool> = f.result_types.iter().map(|t| t.dtype.is_float()).collect();
    let mut pass = JvpPass::for_reverse_mode(module);
    let jf = pass.transform(&f.name, &nonzero, &instantiate, None).map_err(|e| pass.error(&f.name, e))?;
    let jvp_func = pass.out.func(&jf.name).cloned().ok_or_else(|| crate::error(&f.name, "jvp lost its result"))?;
    let sources = Rc::new(pass.sources());
    let mut pool = pass.out;
    let mut unknown_in = vec![false; f.params.len()];
    unknown_in.resize(jvp_func.params.len(), true);
    let rewriter = Rewriter::new(&mut pool, &jvp_func.name, sources, 0);
    let (g, unknown) = rewriter.rewrite(&jvp_func, &unknown_in).map_err(|e| crate::error(&f.name, e))?;
    let mut needed = vec![false; n_outputs];
    needed.resize(g.results.len(), true);
    Ok((split(g, &unknown, &needed, Save::Entry), pool))
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

/// The transpose driver's context: the module of bodies (to which transposed bodies
/// are added) and the nesting depth.
pub(crate) struct Cx<'m> {
    pub(crate) pool: &'m mut Module,
    depth: usize,
}

impl<'m> Cx<'m> {
    pub(crate) fn new(pool: &'m mut Module) -> Self {
        Cx { pool, depth: 0 }
    }
}

impl TransposeContext for Cx<'_> {
    fn module(&self) -> &Module {
        self.pool
    }

    fn add_func(&mut self, func: Func) -> Result<String, String> {
        Ok(push_func(self.pool, func))
    }

    fn transpose_into(
        &mut self,
        em: &mut Emitter,
        name: &str,
        inputs: &[LinearIn],
        cts: &[Option<Value>],
    ) -> Result<Vec<Option<Value>>, String> {
        if self.depth >= MAX_NESTING {
            return Err(format!("bodies nest deeper than {MAX_NESTING}"));
        }
        let func = self.pool.func(name).cloned().ok_or_else(|| format!("no Func @{name}"))?;
        if inputs.len() != func.params.len() || cts.len() != func.results.len() {
            return Err(format!("@{name} does not take {} inputs and return {} values", inputs.len(), cts.len()));
        }
        let n = func.value_types.len();
        let (mut env, mut linear, mut ct) = (vec![None; n], vec![false; n], vec![None; n]);
        for (p, input) in func.params.iter().zip(inputs) {
            match input {
                LinearIn::Residual(v) => env[p.index()] = Some(*v),
                LinearIn::Linear(_) => linear[p.index()] = true,
            }
        }
        for (r, c) in func.results.iter().zip(cts) {
            ct[r.index()] = add_optional(em, ct[r.index()], *c)?;
        }
        let all: Vec<usize> = (0..func.eqns.len()).collect();
        self.depth += 1;
        let done = transpose_eqns(self, em, &func, &all, &mut linear, &mut env, &mut ct);
        self.depth -= 1;
        done.map_err(|e| format!("in @{name}: {e}"))?;
        Ok(func.params.iter().zip(inputs).map(|(p, input)| ct[p.index()].filter(|_| input.is_linear())).collect())
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
    cx: &mut Cx,
    em: &mut Emitter,
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
            copy_eqn(em, cx.pool, eqn, env)?;
        }
    }
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
        // A slice-like equation whose operand already has a cotangent writes into that
        // accumulator instead of building a full-size zero array and adding it.
        if let (Some(&x), [Some(ct)]) = (eqn.inputs.first(), out_cts.as_slice())
            && linear[x.index()]
            && eqn.inputs[1..].iter().all(|v| !linear[v.index()])
            && let Some(acc) = cts[x.index()]
            && let Some(updated) = accumulate_into(em, &eqn.prim, acc, *ct, &inputs[1..])?
        {
            cts[x.index()] = Some(updated);
            continue;
        }
        let in_cts = eqn
            .prim
            .transpose(em, cx, &inputs, &out_cts)
            .map_err(|e| format!("transposing equation {i} ({}): {e}", eqn.prim.name()))?;
        for (&v, ct) in eqn.inputs.iter().zip(in_cts) {
            if linear[v.index()] && ct.is_some() {
                cts[v.index()] = add_optional(em, cts[v.index()], ct)?;
            }
        }
    }
    Ok(())
}

/// `acc + transpose(prim)(ct)` for a slice-like `prim` (operand linear, the other
/// inputs residual), written into `acc` directly: a gather's transpose scatters into
/// `acc`; a dynamic or unit-stride slice's adds `ct` to the window and updates it in
/// place. `None` for the other primitives (the caller falls back to the rule).
fn accumulate_into(
    em: &mut Emitter,
    prim: &ferrax_ir::Prim,
    acc: Value,
    ct: Value,
    rest: &[LinearIn],
) -> Result<Option<Value>, String> {
    use ferrax_ir::Prim;
    let residuals: Vec<Value> = rest.iter().map(|r| r.residual("an index")).collect::<Result<_, _>>()?;
    let updated = match prim {
        Prim::Index(IndexOp::Gather { axis, batch_dims }) => {
            let scatter = Prim::Index(IndexOp::ScatterAdd { axis: *axis, batch_dims: *batch_dims });
            em.op(scatter, &[acc, residuals[0], ct])?
        }
        Prim::Index(IndexOp::DynamicSlice { sizes }) => {
            let mut inputs = vec![acc];
            inputs.extend(&residuals);
            let window = em.op(Prim::Index(IndexOp::DynamicSlice { sizes: sizes.clone() }), &inputs)?;
            let sum = em.add(window, ct)?;
            let mut update = vec![acc, sum];
            update.extend(&residuals);
            em.op(Prim::dynamic_update_slice(), &update)?
        }
        Prim::Shape(ShapeOp::Slice { start, limit, strides }) if strides.iter().all(|&s| s == 1) => {
            let window = em.op(
                Prim::Shape(ShapeOp::Slice { start: start.clone(), limit: limit.clone(), strides: strides.clone() }),
                &[acc],
            )?;
            let sum = em.add(window, ct)?;
            let mut update = vec![acc, sum];
            for &s in start {
                let index = i32::try_from(s).map_err(|_| format!("slice start {s} does not fit i32"))?;
                let ty = ferrax_ir::Type::scalar(ferrax_ir::DType::I32);
                update.push(em.full(&ty, f64::from(index))?);
            }
            em.op(Prim::dynamic_update_slice(), &update)?
        }
        _ => return Ok(None),
    };
    Ok(Some(updated))
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
    let (n_primals, n_outputs) = (f.params.len(), f.results.len());
    let g = &s.func;
    let err = |e: String| crate::error(&name, format!("linearize: {e}"));
    // The primal part.
    let mut primal = Emitter::new(format!("{name}_linearize"));
    let mut env: Vec<Option<Value>> = vec![None; g.value_types.len()];
    for &p in &g.params[..n_primals] {
        env[p.index()] = Some(primal.param(g.ty(p).clone()));
    }
    for &i in &s.known {
        copy_eqn(&mut primal, &bodies, &g.eqns[i], &mut env).map_err(err)?;
    }
    let mut results: Vec<Value> = Vec::new();
    for &v in g.results[..n_outputs].iter().chain(&s.residuals) {
        results.push(env[v.index()].ok_or_else(|| err(format!("value {v} is not available")))?);
    }
    let primal = primal.finish(&results);
    // The linear part.
    let mut lin = Emitter::new(format!("{name}_linearize_linear"));
    let mut lenv: Vec<Option<Value>> = vec![None; g.value_types.len()];
    for &r in &s.residuals {
        lenv[r.index()] = Some(lin.param(g.ty(r).clone()));
    }
    for &p in &g.params[n_primals..] {
        lenv[p.index()] = Some(lin.param(g.ty(p).clone()));
    }
    for i in s.linear_part() {
        copy_eqn(&mut lin, &bodies, &g.eqns[i], &mut lenv).map_err(err)?;
    }
    let tangent_results: Vec<Value> = g.results[n_outputs..]
        .iter()
        .map(|v| lenv[v.index()].ok_or_else(|| err(format!("value {v} is not available"))))
        .collect::<Result<_, _>>()?;
    lin.set_attr("residuals", AttrValue::Int(s.residuals.len() as i64));
    let lin = lin.finish(&tangent_results);
    let mut bodies = bodies;
    let primal = crate::partial::prune_scans(&mut bodies, primal);
    let mut out = crate::assemble(primal, &bodies);
    for func in crate::assemble(lin, &bodies).funcs.into_values() {
        if !out.funcs.contains_key(&func.name) {
            out.push(func);
        }
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
    let mut pool = module.clone();
    transpose_eqns(&mut Cx::new(&mut pool), &mut em, f, &all, &mut linear, &mut env, &mut cts).map_err(err)?;
    let mut results = Vec::new();
    for &p in &f.params[k..] {
        results.push(match cts[p.index()] {
            Some(ct) => ct,
            None => em.zeros(&f.ty(p).clone()).map_err(err)?,
        });
    }
    Ok(crate::assemble(em.finish(&results), &pool))
}
