//! The residual report (JAX's `print_saved_residuals`): what reverse mode keeps from
//! the forward pass for the backward pass, with types, bytes and source locations.
//!
//! The saved residuals are the known values the linear part of the split jvp reads
//! (parameters included: they are kept alive too). A residual stacked by a scan (one
//! row per iteration) is one array of `length` rows, so its bytes count every
//! iteration. Values that the backward pass *recomputes* from saved ones (the inside
//! of a `remat` region, the steps of a checkpointed scan's segment) are listed too,
//! marked [`Residual::recomputed`]: they are live only while their region or segment
//! is transposed. Residuals of a `remat[policy="offload"]` region are marked
//! [`Residual::offloaded`]: they wait in the spill file, not in memory, and are
//! described by the value the region computed (the `reload`s that bring them back are
//! not listed again).

use crate::linear::split_jvp;
use crate::wrt::{Wrt, float_params};
use ferrax_ir::prim::Prim;
use ferrax_ir::prim::{ControlOp, MemoryOp};
use ferrax_ir::{Error, Func, MAX_NESTING, Module, Type, Value};
use std::collections::HashMap;

/// One value reverse mode keeps for the backward pass.
#[derive(Clone, Debug, PartialEq)]
pub struct Residual {
    /// Its type (a per-iteration residual of a scan has the scan's length in front).
    pub ty: Type,
    /// Its size in bytes.
    pub bytes: u64,
    /// The source location of the equation that computes it, if known.
    pub loc: Option<String>,
    /// What it is: a parameter, or the output of which primitive, and how a scan
    /// stacks it.
    pub origin: String,
    /// False for a value saved by the forward pass until the backward pass; true for
    /// one the backward pass recomputes (from saved values) while transposing a
    /// `remat` region or a checkpointed segment.
    pub recomputed: bool,
    /// A parameter of the function (an input the caller holds anyway), not a value the
    /// forward pass computed.
    pub parameter: bool,
    /// Kept in the spill file between the passes (a `remat[policy="offload"]` region's
    /// residual), not in memory.
    pub offloaded: bool,
}

/// The residuals of reverse mode through `module`'s entry with respect to `wrt`
/// (default: every float parameter): first the saved ones, then those the backward
/// pass recomputes.
pub fn saved_residuals(module: &Module, wrt: &Wrt) -> Result<Vec<Residual>, Error> {
    let f = crate::entry(module)?;
    let wrt = wrt.resolve(f, float_params)?;
    let (mut s, pool) = split_jvp(module, &wrt)?;
    s.func.name = f.name.clone();
    let g = &s.func;
    let err = |e: String| crate::error(&f.name, format!("saved_residuals: {e}"));
    let mut out = Vec::new();
    let mut report = Report { pool: &pool, out: &mut out, bodies: HashMap::new() };
    let origins = Origins::of(g);
    for &v in &s.residuals {
        let residual = report.residual(g, &origins, v, false).map_err(err)?;
        report.out.push(residual);
    }
    let mut linear = vec![false; g.value_types.len()];
    g.params[f.params.len()..].iter().for_each(|p| linear[p.index()] = true);
    report.recomputed(g, &s.linear_part(), &mut linear, 0).map_err(err)?;
    Ok(out)
}

/// Where each value of a Func comes from: the parameter position or the defining
/// equation and output position. Built once per Func, so describing every residual of a
/// long program is linear in its length rather than a search per value.
struct Origins {
    of: Vec<Option<Origin>>,
}

#[derive(Clone, Copy)]
enum Origin {
    Param(usize),
    Output { eqn: usize, j: usize },
}

impl Origins {
    fn of(func: &Func) -> Origins {
        let mut of = vec![None; func.value_types.len()];
        for (eqn, e) in func.eqns.iter().enumerate().rev() {
            for (j, o) in e.outputs.iter().enumerate() {
                if let Some(slot) = of.get_mut(o.index()) {
                    *slot = Some(Origin::Output { eqn, j });
                }
            }
        }
        for (i, p) in func.params.iter().enumerate().rev() {
            if let Some(slot) = of.get_mut(p.index()) {
                *slot = Some(Origin::Param(i));
            }
        }
        Origins { of }
    }

    fn get(&self, v: Value) -> Option<Origin> {
        self.of.get(v.index()).copied().flatten()
    }
}

/// Collects the residuals, with the origins of the scan bodies they come from.
struct Report<'a> {
    pool: &'a Module,
    out: &'a mut Vec<Residual>,
    bodies: HashMap<String, Origins>,
}

impl Report<'_> {
    /// Describes the value `v` of `func` (whose origins are `origins`).
    fn residual(&mut self, func: &Func, origins: &Origins, v: Value, recomputed: bool) -> Result<Residual, String> {
        let ty = func.ty(v).clone();
        let bytes = ty.byte_size().map_err(|e| e.to_string())?;
        let (loc, origin) = self.describe(func, origins, v, 0);
        let parameter = func.params.contains(&v);
        let offloaded = matches!(origins.get(v), Some(Origin::Output { eqn, .. })
            if func.eqns[eqn].prim.is_offload());
        Ok(Residual { ty, bytes, loc, origin, recomputed, parameter, offloaded })
    }

    /// The location and description of the value `v` of `func`.
    fn describe(&mut self, func: &Func, origins: &Origins, v: Value, depth: usize) -> (Option<String>, String) {
        let (i, j) = match origins.get(v) {
            Some(Origin::Param(i)) => return (None, format!("parameter {i} of @{}", func.name)),
            Some(Origin::Output { eqn, j }) => (eqn, j),
            None => return (None, "an undefined value".into()),
        };
        let eqn = &func.eqns[i];
        if eqn.prim.is_offload()
            && let Some(&x) = eqn.inputs.first()
            && depth < MAX_NESTING
        {
            return self.describe(func, origins, x, depth + 1);
        }
        let loc = eqn.loc.as_deref().map(String::from);
        let pool = self.pool;
        let body = match eqn.prim.scan_params() {
            Some(p) if j >= p.num_carry && depth < MAX_NESTING => pool.func(&p.body).map(|b| (p, b)),
            _ => None,
        };
        let Some((p, body)) = body else {
            return (loc, format!("{} output", eqn.prim.name()));
        };
        let inner = body.results[j];
        let what = match body.params.iter().position(|&q| q == inner) {
            Some(k) if k < p.num_consts => format!("const {k}"),
            Some(k) if k < p.num_consts + p.num_carry => format!("carry {}", k - p.num_consts),
            Some(k) => format!("xs slice {}", k - p.num_consts - p.num_carry),
            None => {
                let body_origins = self.bodies.remove(&body.name).unwrap_or_else(|| Origins::of(body));
                let (inner_loc, what) = self.describe(body, &body_origins, inner, depth + 1);
                self.bodies.insert(body.name.clone(), body_origins);
                return (inner_loc.or(loc), format!("{what}, at each of the {} steps of a scan", p.length));
            }
        };
        (loc, format!("the {what} of a scan, at each of its {} steps", p.length))
    }

    /// Walks the equations `eqns` of `func` (linear code whose linear values `linear`
    /// marks): below the top level, a known value with a defining equation that a
    /// linear equation reads is recomputed; the bodies of linear structured equations
    /// are walked in turn.
    fn recomputed(&mut self, func: &Func, eqns: &[usize], linear: &mut [bool], depth: usize) -> Result<(), String> {
        if depth > MAX_NESTING {
            return Err(format!("bodies nest deeper than {MAX_NESTING}"));
        }
        let origins = Origins::of(func);
        let mut defined_by_work = vec![false; func.value_types.len()];
        let mut seen = vec![false; func.value_types.len()];
        for &i in eqns {
            let eqn = &func.eqns[i];
            if !eqn.inputs.iter().any(|v| linear[v.index()]) {
                // A reload brings back an offloaded residual, already listed as saved.
                let work = !eqn.inputs.is_empty() && eqn.prim != Prim::Memory(MemoryOp::Reload);
                eqn.outputs.iter().for_each(|o| defined_by_work[o.index()] = work);
                continue;
            }
            eqn.outputs.iter().for_each(|o| linear[o.index()] = true);
            for &v in &eqn.inputs {
                if depth > 0 && defined_by_work[v.index()] && !seen[v.index()] {
                    seen[v.index()] = true;
                    let residual = self.residual(func, &origins, v, true)?;
                    self.out.push(residual);
                }
            }
            let mask: Vec<bool> = eqn.inputs.iter().map(|v| linear[v.index()]).collect();
            self.body(&eqn.prim, &mask, depth)?;
        }
        Ok(())
    }

    /// Walks the bodies of a linear structured equation whose inputs `mask` marks.
    fn body(&mut self, prim: &Prim, mask: &[bool], depth: usize) -> Result<(), String> {
        let bodies: Vec<(&str, Vec<bool>)> = if let Some(p) = prim.scan_params() {
            // A carry may turn linear in a later iteration.
            let mut m = mask.to_vec();
            m[p.num_consts..p.num_consts + p.num_carry].iter_mut().for_each(|b| *b = true);
            vec![(&p.body, m)]
        } else {
            match prim {
                Prim::Control(ControlOp::Call { func }) | Prim::Control(ControlOp::Remat { func, .. }) => {
                    vec![(func, mask.to_vec())]
                }
                Prim::Control(ControlOp::Cond { branches }) => {
                    branches.iter().map(|b| (b.as_str(), mask[1..].to_vec())).collect()
                }
                _ => Vec::new(),
            }
        };
        for (name, m) in bodies {
            let func = self.pool.func(name).ok_or_else(|| format!("no Func @{name}"))?;
            let mut linear = vec![false; func.value_types.len()];
            for (p, &b) in func.params.iter().zip(&m) {
                linear[p.index()] = b;
            }
            let all: Vec<usize> = (0..func.eqns.len()).collect();
            self.recomputed(func, &all, &mut linear, depth + 1)?;
        }
        Ok(())
    }
}
