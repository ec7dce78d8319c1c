//! Dead-code elimination: drops equations none of whose outputs is used (no primitive
//! has side effects). Funcs stay (a module may hold several entry points, as
//! `linearize`'s does); the passes themselves return only the Funcs they refer to.

use ferrax_ir::{Func, Module};

/// The module with dead equations removed from every Func.
pub fn dce(module: &Module) -> Module {
    let mut pruned = Module::new();
    for func in module.funcs.values() {
        pruned.push(dce_func(func));
    }
    pruned
}

/// `func` without the equations whose outputs are never used.
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
