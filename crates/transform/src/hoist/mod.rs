//! Loop-invariant code motion: equations of a loop body that compute the same value on
//! every iteration move out of the loop, into the Func that runs it.
//!
//! - `scan`: a value of the body is invariant when it is a scan const, the output of a
//!   zero-input equation (`constant`, `iota`), or the output of an equation whose
//!   inputs are all invariant. Each such equation with at least one input is computed
//!   once before the scan; the hoisted values the remaining body still reads become
//!   new scan consts (appended after the existing ones).
//! - `while`: a carry the body returns unchanged (the same value at the same position)
//!   keeps its initial value throughout, so it is invariant; equations of the body and
//!   of the cond depending only on invariant carries and constants are computed before
//!   the loop from the initial carries, and enter it as extra carries that the body
//!   returns unchanged.
//!
//! Every primitive is pure and total (no traps), so moving work out of a loop never
//! changes a value; the same operations run on the same operands, so results are
//! bit-identical. The cost: a loop that runs zero times (`length=0`, a `while` whose
//! predicate is false at once) now pays for the hoisted work once. A `while` without
//! `max_iters` (or a structured primitive whose bodies hold one) is never hoisted,
//! since it might not terminate where the loop would not have run it.
//!
//! Funcs are processed callees first, so work hoisted out of an inner loop into its
//! enclosing body can move further out in the same pass (nested loops, loops inside
//! `cond` branches). Bodies are shared by name: a body used by several equations is
//! cloned under a fresh name before its signature changes. The processed Funcs keep
//! their names and signatures; clones are appended to the module.

mod invariants;

use ferrax_ir::prim::ControlOp;
use ferrax_ir::prim::Prim;
use ferrax_ir::{Eqn, Func, Module, Value};
use invariants::Invariants;
use std::collections::HashMap;

/// The module with loop-invariant equations moved out of every `scan` and `while` body.
pub fn hoist(module: &Module) -> Module {
    let mut hoister = Hoister { module: module.clone(), refs: reference_counts(module) };
    for name in post_order(module) {
        let Some(mut func) = hoister.module.func(&name).cloned() else { continue };
        let mut at = 0;
        while at < func.eqns.len() {
            let inserted = match &func.eqns[at].prim {
                Prim::Control(ControlOp::Scan(_)) => hoister.scan(&mut func, at),
                Prim::Control(ControlOp::While { .. }) => hoister.while_loop(&mut func, at),
                _ => 0,
            };
            at += inserted + 1;
        }
        // Stored back under its key (a pass may rename an entry without re-keying it).
        if let Some(slot) = hoister.module.funcs.get_mut(&name) {
            *slot = func;
        }
    }
    hoister.module
}

/// How many equations of `module` name each Func.
pub(crate) fn reference_counts(module: &Module) -> HashMap<String, usize> {
    let mut refs = HashMap::new();
    for func in module.funcs.values() {
        for eqn in &func.eqns {
            for callee in eqn.prim.callees() {
                *refs.entry(callee.to_string()).or_insert(0) += 1;
            }
        }
    }
    refs
}

/// Every Func of `module`, callees before their callers.
fn post_order(module: &Module) -> Vec<String> {
    let mut order = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for name in module.funcs.keys() {
        // An explicit stack of (name, callees expanded?) avoids recursion on deep nests.
        let mut stack = vec![(name.clone(), false)];
        while let Some((name, expanded)) = stack.pop() {
            if expanded {
                order.push(name);
                continue;
            }
            if !seen.insert(name.clone()) {
                continue;
            }
            let Some(func) = module.func(&name) else { continue };
            stack.push((name, true));
            for eqn in func.eqns.iter().rev() {
                for callee in eqn.prim.callees().into_iter().rev() {
                    if !seen.contains(callee) {
                        stack.push((callee.to_string(), false));
                    }
                }
            }
        }
    }
    order
}

struct Hoister {
    module: Module,
    refs: HashMap<String, usize>,
}

impl Hoister {
    /// Hoists out of the scan at `func.eqns[at]`; returns how many equations it
    /// inserted before it.
    fn scan(&mut self, func: &mut Func, at: usize) -> usize {
        let eqn = func.eqns[at].clone();
        let Some(params) = eqn.prim.scan_params() else { return 0 };
        let Some(body) = self.module.func(&params.body).cloned() else { return 0 };
        let k = params.num_consts;
        if body.params.len() < k || eqn.inputs.len() < k {
            return 0;
        }
        let plan = Invariants::of(&body, &body.params[..k], &self.module);
        if plan.needed.is_empty() {
            return 0;
        }
        let mut map: HashMap<Value, Value> =
            body.params[..k].iter().copied().zip(eqn.inputs[..k].iter().copied()).collect();
        let hoisted = emit_hoisted(func, &body, &plan, &mut map);
        let mut new_body = body.clone();
        new_body.eqns = plan.remaining(&body);
        new_body.params = body.params[..k].iter().chain(&plan.needed).chain(&body.params[k..]).copied().collect();
        let name = self.rename_for_change(&params.body, new_body);
        let mut scan = params.clone();
        scan.body = name;
        scan.num_consts = k + plan.needed.len();
        let mut new_eqn = eqn.clone();
        new_eqn.prim = Prim::scan(scan);
        let extra = plan.needed.iter().map(|v| map[v]);
        new_eqn.inputs = eqn.inputs[..k].iter().copied().chain(extra).chain(eqn.inputs[k..].iter().copied()).collect();
        let count = hoisted.len();
        func.eqns[at] = new_eqn;
        func.eqns.splice(at..at, hoisted);
        count
    }

    /// Hoists out of the body and cond of the `while` at `func.eqns[at]`; returns how
    /// many equations it inserted before it.
    fn while_loop(&mut self, func: &mut Func, at: usize) -> usize {
        let eqn = func.eqns[at].clone();
        let Prim::Control(ControlOp::While { cond: cond_name, body: body_name, max_iters }) = &eqn.prim else {
            return 0;
        };
        let (Some(cond), Some(body)) = (self.module.func(cond_name).cloned(), self.module.func(body_name).cloned())
        else {
            return 0;
        };
        let n = eqn.inputs.len();
        if body.params.len() != n || body.results.len() != n || cond.params.len() != n {
            return 0;
        }
        let invariant: Vec<usize> = (0..n).filter(|&i| body.results[i] == body.params[i]).collect();
        if invariant.is_empty() {
            return 0;
        }
        let body_inv: Vec<Value> = invariant.iter().map(|&i| body.params[i]).collect();
        let cond_inv: Vec<Value> = invariant.iter().map(|&i| cond.params[i]).collect();
        let body_plan = Invariants::of(&body, &body_inv, &self.module);
        let cond_plan = Invariants::of(&cond, &cond_inv, &self.module);
        if body_plan.needed.is_empty() && cond_plan.needed.is_empty() {
            return 0;
        }
        let initial = |params: &[Value]| -> HashMap<Value, Value> {
            invariant.iter().map(|&i| (params[i], eqn.inputs[i])).collect()
        };
        let mut body_map = initial(&body.params);
        let mut hoisted = emit_hoisted(func, &body, &body_plan, &mut body_map);
        let mut cond_map = initial(&cond.params);
        hoisted.extend(emit_hoisted(func, &cond, &cond_plan, &mut cond_map));

        // The body passes every new carry through; the cond receives them unread.
        let mut new_body = body.clone();
        new_body.eqns = body_plan.remaining(&body);
        let from_cond: Vec<Value> = cond_plan.needed.iter().map(|&v| new_body.new_value(cond.ty(v).clone())).collect();
        let extra_body: Vec<Value> = body_plan.needed.iter().chain(&from_cond).copied().collect();
        new_body.params.extend(&extra_body);
        new_body.results.extend(&extra_body);
        let extra_types: Vec<_> = extra_body.iter().map(|&v| new_body.ty(v).clone()).collect();
        new_body.result_types.extend(extra_types);
        let mut new_cond = cond.clone();
        new_cond.eqns = cond_plan.remaining(&cond);
        let from_body: Vec<Value> = body_plan.needed.iter().map(|&v| new_cond.new_value(body.ty(v).clone())).collect();
        new_cond.params.extend(from_body.iter().chain(&cond_plan.needed));

        let new_body_name = self.rename_for_change(body_name, new_body);
        let new_cond_name = self.rename_for_change(cond_name, new_cond);
        let mut new_eqn = eqn.clone();
        new_eqn.prim = Prim::while_loop(new_cond_name, new_body_name, *max_iters);
        new_eqn.inputs.extend(body_plan.needed.iter().map(|v| body_map[v]));
        new_eqn.inputs.extend(cond_plan.needed.iter().map(|v| cond_map[v]));
        let extra_types =
            body_plan.needed.iter().map(|&v| body.ty(v)).chain(cond_plan.needed.iter().map(|&v| cond.ty(v)));
        for ty in extra_types.cloned().collect::<Vec<_>>() {
            let out = func.new_value(ty);
            new_eqn.outputs.push(out);
        }
        let count = hoisted.len();
        func.eqns[at] = new_eqn;
        func.eqns.splice(at..at, hoisted);
        count
    }

    /// Stores `changed` (a new version of Func `name` with another signature) and
    /// returns the name it is stored under: `name` itself when only one equation
    /// refers to it, else a fresh clone name (the other users keep the original).
    fn rename_for_change(&mut self, name: &str, mut changed: Func) -> String {
        let count = self.refs.get(name).copied().unwrap_or(0);
        let new_name = if count <= 1 {
            name.to_string()
        } else {
            self.refs.insert(name.to_string(), count - 1);
            let fresh = crate::fresh_name(&self.module, name);
            // The clone's loops refer to the same callees once more.
            for eqn in &changed.eqns {
                for callee in eqn.prim.callees() {
                    *self.refs.entry(callee.to_string()).or_insert(0) += 1;
                }
            }
            self.refs.insert(fresh.clone(), 1);
            fresh
        };
        changed.name = new_name.clone();
        self.module.push(changed);
        new_name
    }
}

/// Appends copies of `plan`'s hoisted equations of `source` to a new list, with
/// fresh values of `func`; `map` takes each invariant value of `source` to its value in
/// `func` (the invariant params on entry; the hoisted outputs on return). Zero-input
/// equations a hoisted one reads are copied too.
fn emit_hoisted(func: &mut Func, source: &Func, plan: &Invariants, map: &mut HashMap<Value, Value>) -> Vec<Eqn> {
    let mut out = Vec::new();
    for (j, eqn) in source.eqns.iter().enumerate() {
        if !plan.hoisted[j] {
            continue;
        }
        for input in &eqn.inputs {
            if map.contains_key(input) {
                continue;
            }
            // Not a param nor a hoisted output: a constant-like equation's output.
            if let Some(def) = source.eqns.iter().find(|e| e.inputs.is_empty() && e.outputs.contains(input)) {
                out.push(func.copy_eqn(source, def, map));
            }
        }
        out.push(func.copy_eqn(source, eqn, map));
    }
    out
}
