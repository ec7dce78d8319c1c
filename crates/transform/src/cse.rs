//! Common-subexpression elimination: within each Func, an equation with the same
//! primitive (attributes included; constants compare by the bits of their values) and
//! the same inputs as an earlier one is dropped and its outputs renamed to the earlier
//! one's. Every primitive is pure, so structured primitives (`scan`, `cond`, `call`,
//! ...) merge too when they name the same Funcs and take the same inputs; `random_bits`
//! is counter-based, so the same key gives the same bits.
//!
//! Identical Funcs merge too: a Func whose canonical text (name aside) equals an
//! earlier one's is no longer referred to; references go to the earlier one, so two
//! loops over structurally equal bodies become one equation. (Canonical text prints
//! every NaN as `nan`, so bodies differing only in a NaN constant's payload merge.)
//! The Funcs themselves all stay; `dce` in `opt` drops the unreferenced ones.

use ferrax_ir::array::Data;
use ferrax_ir::prim::Prim;
use ferrax_ir::{Func, Module, Value};
use std::collections::HashMap;
use std::fmt::Write;

/// The module with common subexpressions merged in every Func.
pub fn cse(module: &Module) -> Module {
    let same = identical_funcs(module);
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

/// For each Func identical (name aside) to an earlier one, the earlier one's name.
fn identical_funcs(module: &Module) -> HashMap<String, String> {
    let mut first: HashMap<String, &str> = HashMap::new();
    let mut same = HashMap::new();
    for func in module.funcs.values() {
        let text = ferrax_ir::print_func(func, &ferrax_ir::PrintOptions::default());
        let body = text.strip_prefix(&format!("func @{}", func.name)).unwrap_or(&text).to_string();
        match first.get(&body) {
            Some(&earlier) => {
                same.insert(func.name.clone(), earlier.to_string());
            }
            None => {
                first.insert(body, &func.name);
            }
        }
    }
    same
}

/// `func` with each repeated equation merged into its first occurrence.
pub(crate) fn cse_func(func: &Func) -> Func {
    let mut out = func.clone();
    out.eqns.clear();
    let mut map: Vec<Value> = (0..func.value_types.len() as u32).map(Value).collect();
    let mut seen: HashMap<(String, Vec<Value>), usize> = HashMap::new();
    for eqn in &func.eqns {
        let inputs: Vec<Value> = eqn.inputs.iter().map(|v| map[v.index()]).collect();
        let key = (prim_key(&eqn.prim), inputs.clone());
        if let Some(&earlier) = seen.get(&key) {
            let first: &ferrax_ir::Eqn = &out.eqns[earlier];
            let same_types = first.outputs.len() == eqn.outputs.len()
                && first.outputs.iter().zip(&eqn.outputs).all(|(a, b)| func.ty(*a) == func.ty(*b));
            if same_types {
                for (&o, &f) in eqn.outputs.iter().zip(&first.outputs) {
                    map[o.index()] = f;
                }
                continue;
            }
        }
        let mut copy = eqn.clone();
        copy.inputs = inputs.into();
        seen.entry(key).or_insert(out.eqns.len());
        out.eqns.push(copy);
    }
    out.results = func.results.iter().map(|r| map[r.index()]).collect();
    out
}

/// A string that is equal for two primitives exactly when they compute the same
/// function of their inputs: the name and attributes, constants by value bits.
pub(crate) fn prim_key(prim: &Prim) -> String {
    let Prim::Constant { value, shape } = prim else {
        return format!("{prim:?}");
    };
    let mut key = format!("constant {:?} {:?} {:?}:", value.dtype(), shape, value.shape());
    let _ = match value.data() {
        Data::Bool(v) => v.iter().try_for_each(|x| write!(key, "{},", u8::from(*x))),
        Data::I32(v) => v.iter().try_for_each(|x| write!(key, "{x},")),
        Data::F32(v) => v.iter().try_for_each(|x| write!(key, "{:x},", x.to_bits())),
        Data::F64(v) => v.iter().try_for_each(|x| write!(key, "{:x},", x.to_bits())),
    };
    key
}
