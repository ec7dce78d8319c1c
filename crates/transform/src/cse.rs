//! Common-subexpression elimination: within each Func, an equation with the same
//! primitive (attributes included; constants compare by the bits of their values) and
//! the same inputs as an earlier one is dropped and its outputs renamed to the earlier
//! one's. Every primitive is pure, so structured primitives (`scan`, `cond`, `call`,
//! ...) merge too when they name the same Funcs and take the same inputs; `random_bits`
//! is counter-based, so the same key gives the same bits.
//!
//! Identical Funcs merge too: a Func the same as an earlier one (its canonical text,
//! name aside, would be equal; `same` compares them without printing) is no longer
//! referred to; references go to the earlier one, so two loops over structurally
//! equal bodies become one equation.
//! The Funcs themselves all stay; `dce` in `opt` drops the unreferenced ones.

use ferrax_ir::{Func, Module, Value};
use std::collections::HashMap;

/// The module with common subexpressions merged in every Func.
pub fn cse(module: &Module) -> Module {
    let same = crate::equality::identical_funcs(module);
    let mut out = Module::new();
    for func in module.funcs.values() {
        let mut renamed = func.clone();
        for eqn in &mut renamed.eqns {
            eqn.prim.rename_callees(&mut |name| same.get(name).cloned().unwrap_or_else(|| name.to_string()));
        }
        out.push(cse_func(&renamed));
    }
    out
}

/// `func` with each repeated equation merged into its first occurrence (the merge of
/// [`cse`] within one Func, callees untouched).
pub fn cse_func(func: &Func) -> Func {
    let mut out = func.clone();
    out.eqns.clear();
    let mut map: Vec<Value> = (0..func.value_types.len() as u32).map(Value).collect();
    // Equations by primitive name and inputs; the attributes are compared among those
    // (formatting every primitive into a key string cost more than the rest of cse).
    let mut seen: HashMap<(&'static str, Vec<Value>), Vec<usize>> = HashMap::new();
    for eqn in &func.eqns {
        let inputs: Vec<Value> = eqn.inputs.iter().map(|v| map[v.index()]).collect();
        let key = (eqn.prim.name(), inputs);
        let earlier = seen.get(&key).and_then(|candidates| {
            candidates.iter().copied().find(|&i| {
                let first: &ferrax_ir::Eqn = &out.eqns[i];
                first.outputs.len() == eqn.outputs.len()
                    && first.outputs.iter().zip(&eqn.outputs).all(|(a, b)| func.ty(*a) == func.ty(*b))
                    && crate::equality::same_prim(&first.prim, &eqn.prim)
            })
        });
        if let Some(earlier) = earlier {
            for (&o, &f) in eqn.outputs.iter().zip(&out.eqns[earlier].outputs) {
                map[o.index()] = f;
            }
            continue;
        }
        let mut copy = eqn.clone();
        copy.inputs = key.1.iter().copied().collect();
        seen.entry(key).or_default().push(out.eqns.len());
        out.eqns.push(copy);
    }
    out.results = func.results.iter().map(|r| map[r.index()]).collect();
    out
}
