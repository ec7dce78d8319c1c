//! A greedy shrinker of failing modules, so a report shows a small program.
//!
//! [`shrink`] tries simplifications one at a time and keeps each one after which the
//! module still verifies and the caller's predicate still says "fails": keep a single
//! result of the entry; replace an equation by a constant of its output types (zeros,
//! which deletes it and, after dead-code removal, everything only it used); splat a
//! constant to one element; replace an operand by a parameter of the same type; drop
//! dead equations, unused entry parameters and unreferenced Funcs. It repeats until
//! nothing more helps or a budget of predicate calls is spent. The predicate gets
//! the candidate module and should draw its own inputs from it (the entry's
//! parameters may change).

use crate::prim::ShapeOp;
use crate::{Eqn, Func, Module, Prim, Type, Value};
use ferrax_array::{Array, Data};
use smallvec::SmallVec;
use std::collections::HashSet;

/// The most predicate calls one [`shrink`] makes.
const BUDGET: usize = 3000;

/// A smaller module on which `fails` still holds (`module` itself when nothing smaller
/// does). `fails` is only called on modules that pass the verifier.
pub fn shrink(module: &Module, fails: &mut dyn FnMut(&Module) -> bool) -> Module {
    let mut best = module.clone();
    let mut calls = 0;
    let mut try_accept = |best: &mut Module, candidate: Module, calls: &mut usize| -> bool {
        if *calls >= BUDGET || crate::verify(&candidate).is_err() {
            return false;
        }
        *calls += 1;
        if fails(&candidate) {
            *best = candidate;
            true
        } else {
            false
        }
    };
    loop {
        let mut changed = false;
        // Cleanups first: they never change results.
        for c in [remove_dead(&best), remove_unused_params(&best), remove_unused_funcs(&best)].into_iter().flatten() {
            changed |= try_accept(&mut best, c, &mut calls);
        }
        // One result of the entry.
        let n_results = best.entry().map_or(0, |f| f.results.len());
        if n_results > 1 {
            for keep in 0..n_results {
                let candidate = keep_result(&best, keep);
                if try_accept(&mut best, candidate, &mut calls) {
                    changed = true;
                    break;
                }
            }
        }
        // Equations replaced by zeros, last first (later values depend on earlier ones).
        for f in 0..best.funcs.len() {
            let mut k = best.funcs[f].eqns.len();
            while k > 0 {
                k -= 1;
                if k >= best.funcs[f].eqns.len() {
                    continue;
                }
                if let Some(c) = replace_by_zeros(&best, f, k) {
                    changed |= try_accept(&mut best, c, &mut calls);
                }
                if let Some(c) = splat_constant(&best, f, k) {
                    changed |= try_accept(&mut best, c, &mut calls);
                }
                if let Some(c) = operands_to_params(&best, f, k) {
                    changed |= try_accept(&mut best, c, &mut calls);
                }
            }
        }
        if !changed || calls >= BUDGET {
            return best;
        }
    }
}

/// A constant of type `ty` whose every element is zero.
fn zeros(ty: &Type) -> Prim {
    let value = Array::zero(ty.dtype);
    Prim::Shape(ShapeOp::Constant { value, shape: ty.shape.clone() })
}

fn keep_result(module: &Module, keep: usize) -> Module {
    let mut out = module.clone();
    let entry = &mut out.funcs[0];
    entry.results = vec![entry.results[keep]];
    entry.result_types = vec![entry.result_types[keep].clone()];
    out
}

/// Equation `k` of Func `f` replaced by one zero constant per output (not for
/// constants, and not in a Func whose signature others rely on when nothing changes).
fn replace_by_zeros(module: &Module, f: usize, k: usize) -> Option<Module> {
    let func = &module.funcs[f];
    let eqn = &func.eqns[k];
    if matches!(eqn.prim, Prim::Shape(ShapeOp::Constant { .. })) {
        return None;
    }
    let mut out = module.clone();
    let func = &mut out.funcs[f];
    let eqn = func.eqns.remove(k);
    for (i, &o) in eqn.outputs.iter().enumerate() {
        let ty = func.ty(o).clone();
        let outputs: SmallVec<[Value; 2]> = [o].into_iter().collect();
        func.eqns.insert(k + i, Eqn { prim: zeros(&ty), inputs: SmallVec::new(), outputs, loc: None });
    }
    Some(out)
}

/// A non-scalar constant replaced by a splat of its first element.
fn splat_constant(module: &Module, f: usize, k: usize) -> Option<Module> {
    let Prim::Shape(ShapeOp::Constant { value, shape }) = &module.funcs[f].eqns[k].prim else { return None };
    if value.len() <= 1 {
        return None;
    }
    let first = match value.data() {
        Data::F32(v) => Array::scalar_f32(v[0]),
        Data::F64(v) => Array::scalar_f64(v[0]),
        Data::I32(v) => Array::scalar_i32(v[0]),
        Data::Bool(v) => Array::scalar_bool(v[0]),
        Data::BF16(v) => Array::scalar(v[0]),
        Data::F16(v) => Array::scalar(v[0]),
    };
    let mut out = module.clone();
    out.funcs[f].eqns[k].prim = Prim::Shape(ShapeOp::Constant { value: first, shape: shape.clone() });
    Some(out)
}

/// Every operand of equation `k` that a parameter of the same type could stand for,
/// replaced by the first such parameter.
fn operands_to_params(module: &Module, f: usize, k: usize) -> Option<Module> {
    let func = &module.funcs[f];
    let mut out = module.clone();
    let mut changed = false;
    for (i, &v) in func.eqns[k].inputs.iter().enumerate() {
        if func.params.contains(&v) {
            continue;
        }
        if let Some(&p) = func.params.iter().find(|&&p| func.ty(p) == func.ty(v)) {
            out.funcs[f].eqns[k].inputs[i] = p;
            changed = true;
        }
    }
    changed.then_some(out)
}

/// Equations none of whose outputs is used, removed from every Func.
fn remove_dead(module: &Module) -> Option<Module> {
    let mut out = module.clone();
    let mut changed = false;
    for func in out.funcs.values_mut() {
        changed |= dce(func);
    }
    changed.then_some(out)
}

fn dce(func: &mut Func) -> bool {
    let mut live: HashSet<Value> = func.results.iter().copied().collect();
    let mut keep = vec![false; func.eqns.len()];
    for (k, eqn) in func.eqns.iter().enumerate().rev() {
        if eqn.outputs.iter().any(|o| live.contains(o)) {
            keep[k] = true;
            live.extend(eqn.inputs.iter().copied());
        }
    }
    let before = func.eqns.len();
    let mut k = 0;
    func.eqns.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    func.eqns.len() != before
}

/// The entry's parameters that nothing reads, removed.
fn remove_unused_params(module: &Module) -> Option<Module> {
    let entry = module.entry()?;
    let used: HashSet<Value> =
        entry.eqns.iter().flat_map(|e| e.inputs.iter().copied()).chain(entry.results.iter().copied()).collect();
    let keep: Vec<Value> = entry.params.iter().copied().filter(|p| used.contains(p)).collect();
    if keep.len() == entry.params.len() {
        return None;
    }
    let mut out = module.clone();
    out.funcs[0].params = keep;
    Some(out)
}

/// `module` without the Funcs that the entry cannot reach (`None` when all are
/// reachable).
pub fn remove_unused_funcs(module: &Module) -> Option<Module> {
    let entry = module.entry()?;
    let mut reached: HashSet<&str> = HashSet::from([entry.name.as_str()]);
    let mut stack = vec![entry];
    while let Some(func) = stack.pop() {
        for eqn in &func.eqns {
            for callee in eqn.prim.callees() {
                if let Some(g) = module.func(callee)
                    && reached.insert(g.name.as_str())
                {
                    stack.push(g);
                }
            }
        }
    }
    if reached.len() == module.funcs.len() {
        return None;
    }
    let mut out = Module::new();
    for func in module.funcs.values().filter(|f| reached.contains(f.name.as_str())) {
        out.push(func.clone());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinking_keeps_the_failure_and_removes_the_rest() {
        let text = "func @f(%x: f32[3], %y: f32[3]) -> (f32[3], f32[]) {
  %a: f32[3] = exp(%x)
  %b: f32[3] = sin(%a)
  %c: f32[3] = div(%b, %y)
  %k: f32[3] = constant[value=[1.0, 2.0, 3.0]]()
  %d: f32[3] = add(%c, %k)
  %s: f32[] = reduce_sum[axes=[0]](%d)
  return %d, %s
}
func @unused(%x: f32[]) -> (f32[]) {
  return %x
}
";
        let module = crate::parse(text).unwrap();
        // "Fails" while a result depends on a `div`.
        let mut fails = |m: &Module| {
            let live = remove_dead(m).unwrap_or_else(|| m.clone());
            live.funcs.values().any(|f| f.eqns.iter().any(|e| e.prim.name() == "div"))
        };
        let small = shrink(&module, &mut fails);
        let entry = small.entry().unwrap();
        assert_eq!(small.funcs.len(), 1, "{}", crate::print(&small));
        assert_eq!(entry.results.len(), 1, "{}", crate::print(&small));
        assert!(entry.eqns.len() <= 3, "{}", crate::print(&small));
        assert!(fails(&small));
    }

    #[test]
    fn a_module_that_does_not_fail_comes_back_unchanged() {
        let module = crate::parse("func @f(%x: f32[]) -> (f32[]) {\n  %y: f32[] = exp(%x)\n  return %y\n}\n").unwrap();
        let small = shrink(&module, &mut |_| false);
        assert_eq!(crate::print(&small), crate::print(&module));
    }
}
