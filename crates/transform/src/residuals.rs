//! The residual report (JAX's `print_saved_residuals`): what reverse mode keeps from
//! the forward pass for the backward pass, with types, bytes and source locations.
//!
//! The saved residuals are the known values the linear part of the split jvp reads
//! (parameters included: they are kept alive too). A residual stacked by a scan (one
//! row per iteration) is one array of `length` rows, so its bytes count every
//! iteration. Values that the backward pass *recomputes* from saved ones (the inside
//! of a `remat` region, the steps of a checkpointed scan's segment) are listed too,
//! marked [`Residual::recomputed`]: they are live only while their region or segment
//! is transposed.

use crate::linear::split_jvp;
use crate::wrt::{Wrt, float_params};
use ferrax_ir::prim::Prim;
use ferrax_ir::{Error, Func, MAX_NESTING, Module, Type, Value};

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
    for &v in &s.residuals {
        out.push(residual(&pool, g, v, false).map_err(err)?);
    }
    let mut linear = vec![false; g.value_types.len()];
    g.params[f.params.len()..].iter().for_each(|p| linear[p.index()] = true);
    let mut report = Report { pool: &pool, out: &mut out };
    report.recomputed(g, &s.linear_part(), &mut linear, 0).map_err(err)?;
    Ok(out)
}

/// Describes the value `v` of `func`.
fn residual(pool: &Module, func: &Func, v: Value, recomputed: bool) -> Result<Residual, String> {
    let ty = func.ty(v).clone();
    let bytes = ty.byte_size().map_err(|e| e.to_string())?;
    let (loc, origin) = describe(pool, func, v, 0);
    Ok(Residual { ty, bytes, loc, origin, recomputed })
}

/// The location and description of the value `v` of `func`.
fn describe(pool: &Module, func: &Func, v: Value, depth: usize) -> (Option<String>, String) {
    if let Some(i) = func.params.iter().position(|&p| p == v) {
        return (None, format!("parameter {i} of @{}", func.name));
    }
    let Some(eqn) = func.eqns.iter().find(|e| e.outputs.contains(&v)) else {
        return (None, "an undefined value".into());
    };
    let loc = eqn.loc.as_deref().map(String::from);
    let j = eqn.outputs.iter().position(|&o| o == v).unwrap_or(0);
    let body = match &eqn.prim {
        Prim::Scan(p) if j >= p.num_carry && depth < MAX_NESTING => pool.func(&p.body).map(|b| (p, b)),
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
            let (inner_loc, what) = describe(pool, body, inner, depth + 1);
            return (inner_loc.or(loc), format!("{what}, at each of the {} steps of a scan", p.length));
        }
    };
    (loc, format!("the {what} of a scan, at each of its {} steps", p.length))
}

/// Collects the recomputed residuals.
struct Report<'a> {
    pool: &'a Module,
    out: &'a mut Vec<Residual>,
}

impl Report<'_> {
    /// Walks the equations `eqns` of `func` (linear code whose linear values `linear`
    /// marks): below the top level, a known value with a defining equation that a
    /// linear equation reads is recomputed; the bodies of linear structured equations
    /// are walked in turn.
    fn recomputed(&mut self, func: &Func, eqns: &[usize], linear: &mut [bool], depth: usize) -> Result<(), String> {
        if depth > MAX_NESTING {
            return Err(format!("bodies nest deeper than {MAX_NESTING}"));
        }
        let mut defined_by_work = vec![false; func.value_types.len()];
        let mut seen = vec![false; func.value_types.len()];
        for &i in eqns {
            let eqn = &func.eqns[i];
            if !eqn.inputs.iter().any(|v| linear[v.index()]) {
                eqn.outputs.iter().for_each(|o| defined_by_work[o.index()] = !eqn.inputs.is_empty());
                continue;
            }
            eqn.outputs.iter().for_each(|o| linear[o.index()] = true);
            for &v in &eqn.inputs {
                if depth > 0 && defined_by_work[v.index()] && !seen[v.index()] {
                    seen[v.index()] = true;
                    self.out.push(residual(self.pool, func, v, true)?);
                }
            }
            let mask: Vec<bool> = eqn.inputs.iter().map(|v| linear[v.index()]).collect();
            self.body(&eqn.prim, &mask, depth)?;
        }
        Ok(())
    }

    /// Walks the bodies of a linear structured equation whose inputs `mask` marks.
    fn body(&mut self, prim: &Prim, mask: &[bool], depth: usize) -> Result<(), String> {
        let bodies: Vec<(&str, Vec<bool>)> = match prim {
            Prim::Call { func } | Prim::Remat { func, .. } => vec![(func, mask.to_vec())],
            Prim::Scan(p) => {
                let mut m = mask.to_vec();
                m[p.num_consts..p.num_consts + p.num_carry].iter_mut().for_each(|b| *b = true);
                vec![(&p.body, m)]
            }
            Prim::Cond { branches } => branches.iter().map(|b| (b.as_str(), mask[1..].to_vec())).collect(),
            _ => Vec::new(),
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
