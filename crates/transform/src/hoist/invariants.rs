//! Which equations of a loop body are loop-invariant, and which of their outputs the
//! rest of the body still reads.

use ferrax_ir::prim::Prim;
use ferrax_ir::{Eqn, Func, MAX_NESTING, Module, Value};

/// The hoisting plan of one body.
pub(super) struct Invariants {
    /// Per equation of the body: whether it moves out.
    pub hoisted: Vec<bool>,
    /// Outputs of hoisted equations read by the remaining equations or returned, in
    /// definition order, each once: they enter the loop as new operands.
    pub needed: Vec<Value>,
}

impl Invariants {
    /// The plan for `body` when the values `invariant` (params) do not change between
    /// iterations.
    pub fn of(body: &Func, invariant: &[Value], module: &Module) -> Invariants {
        let n = body.value_types.len();
        let mut inv = vec![false; n];
        let mut constant = vec![false; n];
        for v in invariant {
            if let Some(slot) = inv.get_mut(v.index()) {
                *slot = true;
            }
        }
        let mut hoisted = vec![false; body.eqns.len()];
        for (j, eqn) in body.eqns.iter().enumerate() {
            if eqn.inputs.is_empty() {
                // Constants stay in the body, where fold and simplify can see them; a
                // hoisted equation reading one gets a copy.
                for o in &eqn.outputs {
                    constant[o.index()] = true;
                }
                continue;
            }
            let ready = eqn.inputs.iter().all(|v| inv.get(v.index()).copied().unwrap_or(false) || constant[v.index()]);
            if ready && !may_diverge(&eqn.prim, module, 0) {
                hoisted[j] = true;
                for o in &eqn.outputs {
                    inv[o.index()] = true;
                }
            }
        }
        let mut produced = vec![false; n];
        for (j, eqn) in body.eqns.iter().enumerate() {
            if hoisted[j] {
                for o in &eqn.outputs {
                    produced[o.index()] = true;
                }
            }
        }
        let mut needed = Vec::new();
        let mut seen = vec![false; n];
        let reads = body.eqns.iter().zip(&hoisted).filter(|(_, h)| !**h).flat_map(|(e, _)| e.inputs.iter());
        for &v in reads.chain(&body.results) {
            if produced[v.index()] && !seen[v.index()] {
                seen[v.index()] = true;
                needed.push(v);
            }
        }
        // Definition order, so the printed signature is stable.
        needed.sort_by_key(|v| body.eqns.iter().position(|e| e.outputs.contains(v)));
        Invariants { hoisted, needed }
    }

    /// The equations of `body` that stay in the loop.
    pub fn remaining(&self, body: &Func) -> Vec<Eqn> {
        body.eqns.iter().zip(&self.hoisted).filter(|(_, h)| !**h).map(|(e, _)| e.clone()).collect()
    }
}

/// Whether `prim` might run forever: a `while` without `max_iters`, directly or in a
/// body (deeper than [`MAX_NESTING`] counts as might).
pub(super) fn may_diverge(prim: &Prim, module: &Module, depth: usize) -> bool {
    if let Prim::Control(op) = prim
        && op.unbounded()
    {
        return true;
    }
    let callees = prim.callees();
    if callees.is_empty() {
        return false;
    }
    if depth > MAX_NESTING {
        return true;
    }
    callees
        .into_iter()
        .any(|name| module.func(name).is_none_or(|f| f.eqns.iter().any(|e| may_diverge(&e.prim, module, depth + 1))))
}
