//! Dead-code elimination, through structured primitives. No primitive has side
//! effects, so an equation none of whose outputs is used goes, and so do the parts of a
//! structured primitive whose results are unused:
//!
//! - `scan`: unused `ys`; carries whose final value is unused and that no kept carry
//!   or `ys` reads inside the body (a dependency fixpoint); then consts and `xs` the
//!   body no longer reads.
//! - `while`: carries that neither the cond nor a kept carry reads (a fixpoint).
//! - `cond`: outputs unused after it go from every branch; then operands no branch
//!   reads.
//! - `call`: the callee is specialised to the used results and the params it reads.
//!
//! Bodies are pruned recursively. A body whose signature changes keeps its name when
//! one equation refers to it, and is cloned under a fresh name (`@b_2`) when several
//! do, so every other user keeps a consistent signature. Funcs no equation refers to
//! are the roots (the entry; `linearize`'s linear Func): they keep their names and
//! signatures. Funcs that are no longer referred to from a root are dropped.
//! `custom_jvp`, `custom_vjp` and `remat` keep every operand (their rules are tied to
//! the signature); their Funcs are pruned inside only.

use ferrax_ir::prim::ControlOp;
use ferrax_ir::prim::Prim;
use ferrax_ir::{Eqn, Func, MAX_NESTING, Module};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// The module with dead equations, and dead parts of structured primitives, removed:
/// its roots (the entry and the Funcs no equation refers to) and the Funcs they still
/// refer to, in the input's order, then the clones made.
pub fn dce(module: &Module) -> Module {
    let refs = crate::hoist::reference_counts(module);
    let roots: Vec<&Func> = module
        .funcs
        .values()
        .enumerate()
        .filter(|(i, f)| *i == 0 || !refs.contains_key(&f.name))
        .map(|(_, f)| f)
        .collect();
    let root_names: HashSet<String> = roots.iter().map(|f| f.name.clone()).collect();
    let root_names_copy = root_names.clone();
    let mut pruner = Pruner {
        module,
        refs,
        roots: root_names,
        done: HashMap::new(),
        out: Vec::new(),
        taken: HashSet::new(),
        produced: HashSet::new(),
        clone_of: HashMap::new(),
        used_memo: RefCell::new(HashMap::new()),
    };
    pruner.produced.extend(root_names_copy);
    pruner.taken.extend(module.funcs.keys().cloned());
    // Names as the Funcs spell them (a pass may rename an entry without re-keying it).
    let names: Vec<&String> = module.funcs.values().map(|f| &f.name).collect();
    pruner.taken.extend(names.iter().map(|n| n.to_string()));
    let mut made: HashMap<String, Func> = HashMap::new();
    for root in roots {
        let all_results = vec![true; root.results.len()];
        let all_params = vec![true; root.params.len()];
        let pruned = pruner.rewrite_func(root, &all_results, &all_params, 0);
        made.insert(pruned.name.clone(), pruned);
    }
    let mut fresh = Vec::new();
    for func in pruner.out {
        if names.contains(&&func.name) {
            made.insert(func.name.clone(), func);
        } else {
            fresh.push(func);
        }
    }
    // A clone whose original is no longer used takes the original's name back.
    let mut renames: HashMap<String, String> = HashMap::new();
    for func in &mut fresh {
        if let Some(base) = pruner.clone_of.get(&func.name)
            && !made.contains_key(base)
            && !renames.values().any(|b| b == base)
        {
            renames.insert(func.name.clone(), base.clone());
        }
    }
    let mut rename = |name: &str| renames.get(name).cloned().unwrap_or_else(|| name.to_string());
    for func in made.values_mut().chain(fresh.iter_mut()) {
        func.name = rename(&func.name);
        for eqn in &mut func.eqns {
            eqn.prim.rename_callees(&mut rename);
        }
    }
    let (back, fresh): (Vec<Func>, Vec<Func>) = fresh.into_iter().partition(|f| names.contains(&&f.name));
    made.extend(back.into_iter().map(|f| (f.name.clone(), f)));
    // The input's order (so `cse`'s earliest-wins choice is stable), then the clones.
    let mut out = Module::new();
    for name in &names {
        if let Some(func) = made.remove(*name) {
            out.push(func);
        }
    }
    for func in fresh {
        out.push(func);
    }
    out
}

/// `func` without the equations whose outputs are never used (structured primitives
/// are kept whole when any output is used).
pub(crate) fn dce_func(func: &Func) -> Func {
    let mut used = vec![false; func.value_types.len()];
    for r in &func.results {
        if let Some(slot) = used.get_mut(r.index()) {
            *slot = true;
        }
    }
    let mut keep = vec![false; func.eqns.len()];
    for (i, eqn) in func.eqns.iter().enumerate().rev() {
        if eqn.outputs.iter().any(|o| used.get(o.index()).copied().unwrap_or(false)) {
            keep[i] = true;
            for input in &eqn.inputs {
                if let Some(slot) = used.get_mut(input.index()) {
                    *slot = true;
                }
            }
        }
    }
    let mut out = func.clone();
    out.eqns = func.eqns.iter().zip(&keep).filter(|(_, k)| **k).map(|(e, _)| e.clone()).collect();
    out
}

/// What a structured equation keeps, given which of its outputs are used.
struct Kept {
    /// Per input: kept.
    inputs: Vec<bool>,
    /// Per output: kept (a superset of the used ones: a live loop carry stays).
    outputs: Vec<bool>,
}

struct Pruner<'a> {
    module: &'a Module,
    refs: HashMap<String, usize>,
    roots: HashSet<String>,
    /// Specialisations made: (Func, kept results, kept params) → its name.
    done: HashMap<(String, Vec<bool>, Vec<bool>), String>,
    out: Vec<Func>,
    /// Every name of the input module and every name made so far.
    taken: HashSet<String>,
    /// The names of the Funcs made so far (roots included).
    produced: HashSet<String>,
    /// Each clone's original name.
    clone_of: HashMap<String, String>,
    /// Answers of [`Pruner::used_params`] by (Func, needed results): without it, a
    /// `cond` whose branches share a callee doubles the work at every nesting level.
    used_memo: RefCell<HashMap<(String, Vec<bool>), Option<Vec<bool>>>>,
}

impl Pruner<'_> {
    /// Which params of Func `name` are read when only `needed` results are used.
    fn used_params(&self, name: &str, needed: &[bool], depth: usize) -> Option<Vec<bool>> {
        let key = (name.to_string(), needed.to_vec());
        if let Some(known) = self.used_memo.borrow().get(&key) {
            return known.clone();
        }
        let func = self.module.func(name)?;
        if depth > MAX_NESTING || needed.len() != func.results.len() {
            return None;
        }
        let (used, _) = self.liveness(func, needed, depth);
        let params: Vec<bool> = func.params.iter().map(|p| used[p.index()]).collect();
        self.used_memo.borrow_mut().insert(key, Some(params.clone()));
        Some(params)
    }

    /// The used values of `func` (given the results `needed`) and, per equation, what it
    /// keeps (`None`: the equation goes).
    fn liveness(&self, func: &Func, needed: &[bool], depth: usize) -> (Vec<bool>, Vec<Option<Kept>>) {
        let mut used = vec![false; func.value_types.len()];
        for (r, _) in func.results.iter().zip(needed).filter(|(_, n)| **n) {
            used[r.index()] = true;
        }
        let mut kept: Vec<Option<Kept>> = Vec::with_capacity(func.eqns.len());
        for eqn in func.eqns.iter().rev() {
            let live: Vec<bool> = eqn.outputs.iter().map(|o| used[o.index()]).collect();
            if !live.contains(&true) {
                kept.push(None);
                continue;
            }
            let k = self.kept(eqn, &live, depth);
            for (v, _) in eqn.inputs.iter().zip(&k.inputs).filter(|(_, u)| **u) {
                used[v.index()] = true;
            }
            kept.push(Some(k));
        }
        kept.reverse();
        (used, kept)
    }

    /// What `eqn` keeps when its outputs `live` are used.
    fn kept(&self, eqn: &Eqn, live: &[bool], depth: usize) -> Kept {
        let whole = Kept { inputs: vec![true; eqn.inputs.len()], outputs: vec![true; eqn.outputs.len()] };
        let d = depth + 1;
        match &eqn.prim {
            Prim::Control(ControlOp::Scan(s)) => {
                let (k, c) = (s.num_consts, s.num_carry);
                if eqn.inputs.len() < k + c || live.len() < c {
                    return whole;
                }
                let mut carry = live[..c].to_vec();
                loop {
                    let needed: Vec<bool> = carry.iter().chain(&live[c..]).copied().collect();
                    let Some(used) = self.used_params(&s.body, &needed, d) else { return whole };
                    let next: Vec<bool> = carry.iter().zip(&used[k..k + c]).map(|(a, b)| *a || *b).collect();
                    if next == carry {
                        let inputs = used[..k].iter().chain(&carry).chain(&used[k + c..]).copied().collect();
                        let outputs = carry.iter().chain(&live[c..]).copied().collect();
                        return Kept { inputs, outputs };
                    }
                    carry = next;
                }
            }
            Prim::Control(ControlOp::While { cond, body, .. }) => {
                let Some(by_cond) = self.used_params(cond, &[true], d) else { return whole };
                let mut carry: Vec<bool> = live.iter().zip(&by_cond).map(|(a, b)| *a || *b).collect();
                loop {
                    let Some(used) = self.used_params(body, &carry, d) else { return whole };
                    let next: Vec<bool> = carry.iter().zip(&used).map(|(a, b)| *a || *b).collect();
                    if next == carry {
                        return Kept { inputs: carry.clone(), outputs: carry };
                    }
                    carry = next;
                }
            }
            Prim::Control(ControlOp::Cond { branches }) => {
                let mut operands = vec![false; eqn.inputs.len().saturating_sub(1)];
                for branch in branches {
                    let Some(used) = self.used_params(branch, live, d) else { return whole };
                    operands.iter_mut().zip(&used).for_each(|(a, b)| *a |= *b);
                }
                Kept { inputs: std::iter::once(true).chain(operands).collect(), outputs: live.to_vec() }
            }
            Prim::Control(ControlOp::Call { func }) => match self.used_params(func, live, d) {
                Some(used) => Kept { inputs: used, outputs: live.to_vec() },
                None => whole,
            },
            _ => whole,
        }
    }

    /// `func` restricted to the results `needed` and the params `keep` (which must
    /// hold every param read), with its equations pruned and rewritten.
    fn rewrite_func(&mut self, func: &Func, needed: &[bool], keep: &[bool], depth: usize) -> Func {
        let (_, kept) = self.liveness(func, needed, depth);
        let mut out = func.clone();
        out.eqns.clear();
        for (eqn, k) in func.eqns.iter().zip(kept) {
            if let Some(k) = k {
                out.eqns.push(self.rewrite_eqn(eqn, &k, depth));
            }
        }
        out.params = func.params.iter().zip(keep).filter(|(_, k)| **k).map(|(p, _)| *p).collect();
        out.results = func.results.iter().zip(needed).filter(|(_, k)| **k).map(|(r, _)| *r).collect();
        out.result_types = func.result_types.iter().zip(needed).filter(|(_, k)| **k).map(|(t, _)| t.clone()).collect();
        out
    }

    /// `eqn` keeping the inputs and outputs `k` says, its bodies specialised.
    fn rewrite_eqn(&mut self, eqn: &Eqn, k: &Kept, depth: usize) -> Eqn {
        let mut out = eqn.clone();
        out.inputs = eqn.inputs.iter().zip(&k.inputs).filter(|(_, u)| **u).map(|(v, _)| *v).collect();
        out.outputs = eqn.outputs.iter().zip(&k.outputs).filter(|(_, u)| **u).map(|(v, _)| *v).collect();
        let d = depth + 1;
        match &mut out.prim {
            Prim::Control(ControlOp::Scan(s)) => {
                let (nk, c) = (s.num_consts, s.num_carry);
                s.body = self.specialise(&s.body, &k.outputs, &k.inputs, d);
                s.num_consts = k.inputs[..nk].iter().filter(|u| **u).count();
                s.num_carry = k.outputs[..c].iter().filter(|u| **u).count();
            }
            Prim::Control(ControlOp::While { cond, body, .. }) => {
                *cond = self.specialise(cond, &[true], &k.inputs, d);
                *body = self.specialise(body, &k.outputs, &k.inputs, d);
            }
            Prim::Control(ControlOp::Cond { branches }) => {
                for branch in branches.iter_mut() {
                    *branch = self.specialise(branch, &k.outputs, &k.inputs[1..], d);
                }
            }
            Prim::Control(ControlOp::Call { func }) => *func = self.specialise(func, &k.outputs, &k.inputs, d),
            other => {
                // Signature-bound Funcs: pruned inside, signatures kept.
                other.rename_callees(&mut |name| self.whole(name, d));
            }
        }
        out
    }

    /// Func `name` pruned inside, with its signature.
    fn whole(&mut self, name: &str, depth: usize) -> String {
        let Some(func) = self.module.func(name) else { return name.to_string() };
        let (r, p) = (vec![true; func.results.len()], vec![true; func.params.len()]);
        self.specialise(name, &r, &p, depth)
    }

    /// The name of Func `name` specialised to the results `needed` and params `keep`,
    /// made (and stored) on first use.
    fn specialise(&mut self, name: &str, needed: &[bool], keep: &[bool], depth: usize) -> String {
        let key = (name.to_string(), needed.to_vec(), keep.to_vec());
        if let Some(done) = self.done.get(&key) {
            return done.clone();
        }
        let Some(func) = self.module.func(name) else { return name.to_string() };
        if depth > MAX_NESTING || needed.len() != func.results.len() || keep.len() != func.params.len() {
            return name.to_string();
        }
        let identity = !needed.contains(&false) && !keep.contains(&false);
        let sole = self.refs.get(name).copied().unwrap_or(0) == 1 && !self.roots.contains(name);
        let new_name = if (identity || sole) && !self.produced.contains(name) {
            name.to_string()
        } else {
            let fresh = (2..).map(|i| format!("{name}_{i}")).find(|n| !self.taken.contains(n)).unwrap_or_default();
            self.taken.insert(fresh.clone());
            self.clone_of.insert(fresh.clone(), name.to_string());
            fresh
        };
        self.done.insert(key, new_name.clone());
        self.produced.insert(new_name.clone());
        let mut rewritten = self.rewrite_func(func, needed, keep, depth);
        rewritten.name = new_name.clone();
        self.out.push(rewritten);
        new_name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> Module {
        let m = ferrax_ir::parse(text).expect("parses");
        ferrax_ir::verify(&m).expect("verifies");
        m
    }

    #[test]
    fn a_shared_body_is_cloned_when_one_user_drops_an_output() {
        let m = module(
            "func @f(%x: f32[3]) -> (f32[], f32[], f32[3]) {\n  %c: f32[] = constant[value=0.0]()\n  \
             %a: f32[], %ya: f32[3] = scan[body=@b, length=3, num_carry=1](%c, %x)\n  \
             %b: f32[], %yb: f32[3] = scan[body=@b, length=3, num_carry=1](%c, %x)\n  return %a, %b, %yb\n}\n\n\
             func @b(%c: f32[], %x: f32[]) -> (f32[], f32[]) {\n  %s: f32[] = add(%c, %x)\n  \
             %y: f32[] = sin(%x)\n  return %s, %y\n}\n",
        );
        let out = dce(&m);
        ferrax_ir::verify(&out).expect("the pruned module verifies");
        let names: Vec<&String> = out.funcs.keys().collect();
        assert_eq!(names, ["f", "b", "b_2"], "{}", ferrax_ir::print(&out));
        assert_eq!(out.funcs["b"].results.len(), 2);
        assert_eq!(out.funcs["b_2"].results.len(), 1);
        assert_eq!(out.funcs["b_2"].params.len(), 2);
    }
}
