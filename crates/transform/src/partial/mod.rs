//! Partial evaluation: splits a jvp'd Func into a *known* part (computable from the
//! primal inputs) and a *linear* part (linear in the tangents), as JAX's
//! `partial_eval_jaxpr_nounits`.
//!
//! It runs in two steps. [`Rewriter`] first rewrites the Func so that no structured
//! equation reads both known and unknown values: each `scan`, `cond`, bounded `while`
//! and `remat` that reads a tangent becomes a *known* equation (primal outputs plus the
//! residuals its linear half needs) and a *linear* one (reading those residuals and the
//! tangents), with new bodies for both; `call`s that read a tangent are inlined. Then
//! [`split`] sorts the equations of the rewritten Func: those that read no unknown
//! value are known, the others linear, and the known values the linear equations read
//! are the residuals. What counts as a residual is decided by a [`Save`] policy: the
//! plain split saves every known value it needs (constants are recomputed), a `remat`
//! region saves only its inputs and what its policy names, and recomputes the rest in
//! the linear part.

mod cond;
mod loops;
mod remat;
mod scan;

use crate::linear::copy_eqn;
use ferrax_ir::prim::{ControlOp, LinalgOp, UnaryOp};
use ferrax_ir::prim::{Prim, RematPolicy, ScanParams};
use ferrax_ir::{Emitter, Eqn, Func, MAX_NESTING, Module, Type, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// Which known values the linear part may read as residuals; the others it recomputes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Save<'a> {
    /// Every known value except constants (plain reverse mode).
    All,
    /// As `All`, and the entry's casts of its own parameters are recomputed too: the
    /// caller holds the parameter anyway, so a mixed-precision step does not keep a
    /// 16-bit copy of every weight and input for the backward pass.
    Entry,
    /// The inputs of a `remat` region, and the values its policy names.
    Policy(&'a RematPolicy),
}

impl Save<'_> {
    /// True when the output of `eqn` may be saved (it is recomputed otherwise).
    fn saves(&self, eqn: &Eqn) -> bool {
        match self {
            Save::All | Save::Entry | Save::Policy(RematPolicy::Offload) => true,
            Save::Policy(RematPolicy::Nothing) => false,
            Save::Policy(RematPolicy::Dots) => matches!(eqn.prim, Prim::Linalg(LinalgOp::DotGeneral(_))),
            Save::Policy(RematPolicy::Names(names)) => {
                matches!(&eqn.prim, Prim::Name { name } if names.iter().any(|n| n == name))
            }
        }
    }
}

/// A rewritten Func split into its known and linear equations.
#[derive(Clone, Debug)]
pub(crate) struct Split {
    /// The rewritten Func (no structured equation reads both known and unknown values).
    pub(crate) func: Func,
    /// Indices of the known equations, in order.
    pub(crate) known: Vec<usize>,
    /// Indices of the known equations the linear part recomputes, in order.
    pub(crate) recomputed: Vec<usize>,
    /// Indices of the linear equations, in order.
    pub(crate) linear: Vec<usize>,
    /// Known values the linear part reads, in first-need order.
    pub(crate) residuals: Vec<Value>,
}

impl Split {
    /// The equations of the linear part: the recomputed and the linear ones, in order.
    pub(crate) fn linear_part(&self) -> Vec<usize> {
        let mut order: Vec<usize> = self.recomputed.iter().chain(&self.linear).copied().collect();
        order.sort_unstable();
        order
    }
}

/// A partially evaluated body: its split, and which of its results are unknown (the
/// linear part returns those, in order; the known part the others).
#[derive(Clone, Debug)]
pub(crate) struct Partial {
    pub(crate) split: Split,
    pub(crate) out_unknown: Vec<bool>,
}

/// Splits `func` (already rewritten; `unknown` marks its unknown values): the linear
/// part must compute the results marked in `needed`.
pub(crate) fn split(func: Func, unknown: &[bool], needed: &[bool], save: Save) -> Split {
    let mut def: Vec<Option<usize>> = vec![None; func.value_types.len()];
    let (mut known, mut linear) = (Vec::new(), Vec::new());
    for (i, eqn) in func.eqns.iter().enumerate() {
        eqn.outputs.iter().for_each(|o| def[o.index()] = Some(i));
        if eqn.inputs.iter().any(|v| unknown[v.index()]) {
            linear.push(i);
        } else {
            known.push(i);
        }
    }
    let mut queue: Vec<Value> = linear.iter().flat_map(|&i| func.eqns[i].inputs.iter().copied()).collect();
    queue.extend(func.results.iter().zip(needed).filter(|(_, n)| **n).map(|(r, _)| *r));
    let mut is_residual = vec![false; func.value_types.len()];
    let mut residuals = Vec::new();
    let mut recompute = vec![false; func.eqns.len()];
    let mut next = 0;
    while let Some(&v) = queue.get(next) {
        next += 1;
        if unknown[v.index()] || is_residual[v.index()] {
            continue;
        }
        match def[v.index()] {
            Some(i) if recompute[i] => {}
            Some(i)
                if func.eqns[i].inputs.is_empty()
                    || !save.saves(&func.eqns[i])
                    || (matches!(save, Save::Entry) && casts_a_parameter(&func.eqns[i], &def)) =>
            {
                recompute[i] = true;
                queue.extend(func.eqns[i].inputs.iter().copied());
            }
            Some(_) | None => {
                is_residual[v.index()] = true;
                residuals.push(v);
            }
        }
    }
    let recomputed = (0..func.eqns.len()).filter(|&i| recompute[i]).collect();
    Split { func, known, recomputed, linear, residuals }
}

/// `eqn` is a `convert` of a parameter (a value no equation defines).
fn casts_a_parameter(eqn: &Eqn, def: &[Option<usize>]) -> bool {
    matches!(eqn.prim, Prim::Unary(UnaryOp::Convert { .. }))
        && matches!(eqn.inputs[..], [x] if def.get(x.index()).is_some_and(Option::is_none))
}

/// A parameter of a body Func built from a [`Split`].
pub(crate) enum Slot {
    /// This value of the split Func.
    Value(Value),
    /// An unused parameter of this type.
    Dummy(Type),
}

/// An emitter holding the known equations of `s`, with `params` (values of the split
/// Func) as parameters, and the map from the split Func's values to the emitter's.
pub(crate) fn known_emitter(
    pool: &Module,
    s: &Split,
    name: &str,
    params: &[Value],
) -> Result<(Emitter, Vec<Option<Value>>), String> {
    let g = &s.func;
    let mut em = Emitter::new(name);
    let mut env = vec![None; g.value_types.len()];
    for &p in params {
        env[p.index()] = Some(em.param(g.ty(p).clone()));
    }
    for &i in &s.known {
        copy_eqn(&mut em, pool, &g.eqns[i], &mut env)?;
    }
    Ok((em, env))
}

/// The Func of the known part of `s`, with `params` and `results` (values of the
/// split Func).
pub(crate) fn known_func(
    pool: &Module,
    s: &Split,
    name: &str,
    params: &[Value],
    results: &[Value],
) -> Result<Func, String> {
    let (em, env) = known_emitter(pool, s, name, params)?;
    let results = lookup(&env, results)?;
    Ok(em.finish(&results))
}

/// The Func of the linear part of `s` (recomputed and linear equations), with
/// parameters `slots` and `results` (values of the split Func).
pub(crate) fn linear_func(
    pool: &Module,
    s: &Split,
    name: &str,
    slots: &[Slot],
    results: &[Value],
) -> Result<Func, String> {
    let g = &s.func;
    let mut em = Emitter::new(name);
    let mut env = vec![None; g.value_types.len()];
    for slot in slots {
        match slot {
            Slot::Value(v) => env[v.index()] = Some(em.param(g.ty(*v).clone())),
            Slot::Dummy(ty) => {
                em.param(ty.clone());
            }
        }
    }
    for i in s.linear_part() {
        copy_eqn(&mut em, pool, &g.eqns[i], &mut env)?;
    }
    let results = lookup(&env, results)?;
    Ok(em.finish(&results))
}

/// The values `env` maps `values` to.
pub(crate) fn lookup(env: &[Option<Value>], values: &[Value]) -> Result<Vec<Value>, String> {
    values.iter().map(|v| env[v.index()].ok_or_else(|| format!("value {v} is not available"))).collect()
}

/// Adds `func` to `pool` under a fresh name derived from its own, without its dead
/// equations and unused scan ys (see [`prune_scans`]); returns the name.
pub(crate) fn push_func(pool: &mut Module, func: Func) -> String {
    let mut func = prune_scans(pool, crate::dce::dce_func(&func));
    let name = crate::fresh_name(pool, &func.name);
    func.name = name.clone();
    pool.push(func);
    name
}

/// `func` with the ys that no equation or result uses removed from its scans (each
/// such scan gets a copy of its body without them, added to `pool`). A known scan
/// stacks the residuals of every iteration; where they are recomputed instead (a
/// `remat` region, a checkpointed segment), the forward pass need not build them.
pub(crate) fn prune_scans(pool: &mut Module, mut func: Func) -> Func {
    let mut used = vec![false; func.value_types.len()];
    for v in func.eqns.iter().flat_map(|e| e.inputs.iter()).chain(&func.results) {
        used[v.index()] = true;
    }
    for eqn in &mut func.eqns {
        let Some(params) = eqn.prim.scan_params() else { continue };
        let keep: Vec<bool> =
            eqn.outputs.iter().enumerate().map(|(j, o)| j < params.num_carry || used[o.index()]).collect();
        let Some(mut body) = pool.func(&params.body).cloned().filter(|_| keep.contains(&false)) else { continue };
        body.results = body.results.iter().zip(&keep).filter(|(_, k)| **k).map(|(r, _)| *r).collect();
        body.result_types = body.results.iter().map(|&r| body.ty(r).clone()).collect();
        body.name = format!("{}_pruned", params.body);
        let params = ScanParams { body: push_func(pool, body), ..params.clone() };
        eqn.prim = Prim::scan(params);
        eqn.outputs = eqn.outputs.iter().zip(&keep).filter(|(_, k)| **k).map(|(o, _)| *o).collect();
    }
    func
}

/// `a || b`, elementwise.
pub(crate) fn or_masks(a: &[bool], b: &[bool]) -> Vec<bool> {
    a.iter().zip(b).map(|(x, y)| *x || *y).collect()
}

/// Rewrites Funcs so that no structured equation reads both known and unknown values
/// (see the module docs), tracking which values are unknown.
pub(crate) struct Rewriter<'p> {
    /// The module holding every body (new bodies are added to it).
    pub(crate) pool: &'p mut Module,
    /// The Func being built.
    pub(crate) em: Emitter,
    /// Which values of the Func being built are unknown.
    unknown: Vec<bool>,
    /// The source location of the equation being rewritten.
    loc: Option<Arc<str>>,
    /// Nesting depth of bodies.
    depth: usize,
    /// The source Func of each jvp'd Func (to name loops in errors).
    sources: Rc<HashMap<String, String>>,
    /// Results of [`Rewriter::partial`] by (body, unknown params, instantiated results,
    /// save policy), shared by every rewriter of one pass: without it, each level of
    /// nested `cond`s splits its branches twice (and shared branches once per use),
    /// so the work doubled per level.
    memo: Rc<RefCell<PartialMemo>>,
}

/// The key and value of [`Rewriter::memo`].
type PartialMemo = HashMap<(String, Vec<bool>, Vec<bool>, String), Partial>;

impl<'p> Rewriter<'p> {
    /// A rewriter of a Func named `name`.
    pub(crate) fn new(pool: &'p mut Module, name: &str, sources: Rc<HashMap<String, String>>, depth: usize) -> Self {
        let memo = Rc::new(RefCell::new(HashMap::new()));
        Rewriter { pool, em: Emitter::new(name), unknown: Vec::new(), loc: None, depth, sources, memo }
    }

    /// Rewrites `func`, whose parameters marked in `unknown_in` are unknown: the
    /// rewritten Func and its unknown mask.
    pub(crate) fn rewrite(mut self, func: &Func, unknown_in: &[bool]) -> Result<(Func, Vec<bool>), String> {
        if self.depth > MAX_NESTING {
            return Err(format!("bodies nest deeper than {MAX_NESTING}"));
        }
        let mut params = Vec::with_capacity(func.params.len());
        for (i, &p) in func.params.iter().enumerate() {
            let v = self.em.param(func.ty(p).clone());
            self.mark(&[v], unknown_in.get(i).copied().unwrap_or(false));
            params.push(v);
        }
        let results = self.body(func, &params)?;
        let out = self.em.finish(&results);
        let mut unknown = self.unknown;
        unknown.resize(out.value_types.len(), false);
        Ok((out, unknown))
    }

    /// Partially evaluates `func` (a body) whose parameters marked in `unknown_in` are
    /// unknown; the results marked in `instantiate` are unknown (the linear part
    /// returns them) even when known.
    pub(crate) fn partial(
        &mut self,
        func: &Func,
        unknown_in: &[bool],
        instantiate: &[bool],
        save: Save,
    ) -> Result<Partial, String> {
        let key = (func.name.clone(), unknown_in.to_vec(), instantiate.to_vec(), format!("{save:?}"));
        if let Some(known) = self.memo.borrow().get(&key) {
            return Ok(known.clone());
        }
        let mut inner = Rewriter::new(self.pool, &func.name, self.sources.clone(), self.depth + 1);
        inner.memo = self.memo.clone();
        let (g, unknown) = inner.rewrite(func, unknown_in)?;
        let out_unknown: Vec<bool> =
            g.results.iter().zip(instantiate).map(|(r, &inst)| unknown[r.index()] || inst).collect();
        let split = split(g, &unknown, &out_unknown, save);
        let partial = Partial { split, out_unknown };
        self.memo.borrow_mut().insert(key, partial.clone());
        Ok(partial)
    }

    /// True when `v` (a value of the Func being built) is unknown.
    pub(crate) fn is_unknown(&self, v: Value) -> bool {
        self.unknown.get(v.index()).copied().unwrap_or(false)
    }

    fn mark(&mut self, values: &[Value], unknown: bool) {
        for v in values {
            if self.unknown.len() <= v.index() {
                self.unknown.resize(v.index() + 1, false);
            }
            self.unknown[v.index()] = unknown;
        }
    }

    /// A copy of the Func `name` of the pool.
    pub(crate) fn func(&self, name: &str) -> Result<Func, String> {
        self.pool.func(name).cloned().ok_or_else(|| format!("no Func @{name}"))
    }

    /// The name of the Func a jvp'd Func was made from (itself if none).
    pub(crate) fn source_name<'n>(&'n self, name: &'n str) -> &'n str {
        self.sources.get(name).map_or(name, String::as_str)
    }

    /// The source location of the equation being rewritten.
    pub(crate) fn loc(&self) -> Option<&Arc<str>> {
        self.loc.as_ref()
    }

    /// Emits `prim(inputs)` as is, at the location of the equation being rewritten,
    /// marking its outputs `unknown`.
    pub(crate) fn emit(&mut self, prim: Prim, inputs: &[Value], unknown: bool) -> Result<Vec<Value>, String> {
        self.em.set_loc(self.loc.clone());
        let outs = self.em.eqn(self.pool, prim, inputs)?.to_vec();
        self.mark(&outs, unknown);
        Ok(outs)
    }

    /// Copies `eqn` of a body whose values `env` maps (every input known).
    pub(crate) fn copy_known(&mut self, eqn: &Eqn, env: &mut [Option<Value>]) -> Result<(), String> {
        copy_eqn(&mut self.em, self.pool, eqn, env)?;
        let outs: Vec<Value> = eqn.outputs.iter().filter_map(|o| env[o.index()]).collect();
        self.mark(&outs, false);
        Ok(())
    }

    /// Rewrites the equations of `func` applied to `inputs`; returns its results.
    fn body(&mut self, func: &Func, inputs: &[Value]) -> Result<Vec<Value>, String> {
        let outer_loc = self.loc.clone();
        let mut env: Vec<Option<Value>> = vec![None; func.value_types.len()];
        for (&p, &v) in func.params.iter().zip(inputs) {
            env[p.index()] = Some(v);
        }
        for eqn in &func.eqns {
            let ins = lookup(&env, &eqn.inputs)?;
            self.loc = eqn.loc.clone().or_else(|| outer_loc.clone());
            let outs = self.apply(&eqn.prim, &ins)?;
            for (o, n) in eqn.outputs.iter().zip(outs) {
                env[o.index()] = Some(n);
            }
        }
        self.loc = outer_loc;
        lookup(&env, &func.results)
    }

    /// Emits `prim(inputs)`, rewritten when it is structured and reads an unknown value.
    pub(crate) fn apply(&mut self, prim: &Prim, inputs: &[Value]) -> Result<Vec<Value>, String> {
        let any_unknown = inputs.iter().any(|&v| self.is_unknown(v));
        if !any_unknown || prim.callees().is_empty() {
            return self.emit(prim.clone(), inputs, any_unknown);
        }
        match prim {
            Prim::Control(ControlOp::Call { func }) => {
                let body = self.func(func)?;
                self.depth += 1;
                let depth = self.depth;
                let out = if depth > MAX_NESTING {
                    Err(format!("calls nest deeper than {MAX_NESTING}"))
                } else {
                    self.body(&body, inputs)
                };
                self.depth -= 1;
                out
            }
            Prim::Control(ControlOp::Remat { func, policy }) => remat::partial_remat(self, func, policy, inputs),
            Prim::Control(ControlOp::Scan(params)) => scan::partial_scan(self, params, inputs),
            Prim::Control(ControlOp::Cond { branches }) => cond::partial_cond(self, branches, inputs),
            Prim::Control(ControlOp::While { cond, body, max_iters }) => {
                loops::partial_while(self, cond, body, *max_iters, inputs)
            }
            // The jvp for reverse mode made it linear in its unknown inputs (crate::custom).
            Prim::Control(ControlOp::CustomVjp { .. }) => self.emit(prim.clone(), inputs, true),
            // Its jvp rule emits the tangent solve with known consts: linear in the rhs.
            Prim::Control(ControlOp::CustomLinearSolve(p)) => {
                if inputs[..p.num_consts.min(inputs.len())].iter().any(|&c| self.is_unknown(c)) {
                    return Err("custom_linear_solve: a const reads a tangent, so the solve is not linear".into());
                }
                self.emit(prim.clone(), inputs, true)
            }
            other => Err(format!("{} reads a tangent, which reverse mode does not expect", other.name())),
        }
    }
}
