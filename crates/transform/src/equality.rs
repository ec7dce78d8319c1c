//! Structural equality of Funcs and modules, without printing them: what [`opt`]'s
//! fixed point and [`cse`]'s merging of identical Funcs compare, and
//! [`merge_identical_funcs`], which the JIT runs on a fused module so that identical
//! kernels (one per layer of a deep network) are compiled once.
//!
//! Two Funcs are the same when they print the same, name and source locations aside:
//! values are compared through a renumbering in order of definition, primitives by
//! their attributes, constants by the bits of their values (a NaN constant equals
//! itself; `-0.0` and `0.0` differ). The printed text shows every NaN as `nan`, so
//! two NaN payloads that print alike are not the same here: at worst one more round
//! of `opt`, or two identical Funcs left unmerged. Walking both Funcs once is
//! linear in their size and allocates only the renumbering, where printing formats
//! every equation.
//!
//! [`opt`]: crate::opt
//! [`cse`]: crate::cse

use ferrax_ir::array::Data;
use ferrax_ir::prim::Prim;
use ferrax_ir::{Func, Module, Value};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Whether `a` and `b` compute the same (they print the same, name and locations
/// aside).
pub(crate) fn same_func(a: &Func, b: &Func) -> bool {
    if a.params.len() != b.params.len()
        || a.eqns.len() != b.eqns.len()
        || a.results.len() != b.results.len()
        || a.result_types != b.result_types
        || a.attrs != b.attrs
    {
        return false;
    }
    // map[value of a] = the value of b defined at the same place.
    let mut map: Vec<Option<Value>> = vec![None; a.value_types.len()];
    let define = |x: Value, y: Value, map: &mut [Option<Value>]| {
        let same_type = a.value_types.get(x.index()) == b.value_types.get(y.index());
        match map.get_mut(x.index()) {
            Some(slot) if same_type && slot.is_none() => {
                *slot = Some(y);
                true
            }
            _ => false,
        }
    };
    let used = |x: &Value, y: &Value, map: &[Option<Value>]| map.get(x.index()).copied().flatten() == Some(*y);
    for (x, y) in a.params.iter().zip(&b.params) {
        if !define(*x, *y, &mut map) {
            return false;
        }
    }
    for (ea, eb) in a.eqns.iter().zip(&b.eqns) {
        if ea.inputs.len() != eb.inputs.len()
            || ea.outputs.len() != eb.outputs.len()
            || !ea.inputs.iter().zip(&eb.inputs).all(|(x, y)| used(x, y, &map))
            || !same_prim(&ea.prim, &eb.prim)
        {
            return false;
        }
        for (x, y) in ea.outputs.iter().zip(&eb.outputs) {
            if !define(*x, *y, &mut map) {
                return false;
            }
        }
    }
    a.results.iter().zip(&b.results).all(|(x, y)| used(x, y, &map))
}

/// Equal primitives. Constants compare by the bits of their values (so a NaN equals
/// the same NaN, and `-0.0` differs from `0.0`, which `==` on floats gets wrong); no
/// other primitive holds a float, so `==` is exact for them.
pub(crate) fn same_prim(a: &Prim, b: &Prim) -> bool {
    match (a.literal(), b.literal()) {
        (Some((va, sa)), Some((vb, sb))) => sa == sb && va.shape() == vb.shape() && same_bits(va.data(), vb.data()),
        _ => a == b,
    }
}

/// Equal element types and element bits.
fn same_bits(a: &Data, b: &Data) -> bool {
    match (a, b) {
        (Data::Bool(x), Data::Bool(y)) => x == y,
        (Data::I32(x), Data::I32(y)) => x == y,
        (Data::F32(x), Data::F32(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        (Data::F64(x), Data::F64(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        (Data::BF16(x), Data::BF16(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        (Data::F16(x), Data::F16(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        (Data::Bool(_) | Data::I32(_) | Data::BF16(_) | Data::F16(_) | Data::F32(_) | Data::F64(_), _) => false,
    }
}

/// Whether two modules are the same: the same Func names in the same order, each
/// pair the same (as [`same_func`]).
pub(crate) fn same_module(a: &Module, b: &Module) -> bool {
    a.funcs.len() == b.funcs.len()
        && a.funcs.iter().zip(&b.funcs).all(|((na, fa), (nb, fb))| na == nb && same_func(fa, fb))
}

/// A hash that is equal for Funcs that are [`same_func`] (it looks at the shape of
/// the Func only: primitive names, arity, types and the renumbered inputs).
fn shape_hash(func: &Func) -> u64 {
    let mut h = DefaultHasher::new();
    let mut number: HashMap<Value, usize> = HashMap::with_capacity(func.value_types.len());
    for &p in &func.params {
        let n = number.len();
        number.insert(p, n);
        func.ty(p).hash(&mut h);
    }
    for eqn in &func.eqns {
        eqn.prim.name().hash(&mut h);
        for x in &eqn.inputs {
            number.get(x).hash(&mut h);
        }
        for &o in &eqn.outputs {
            let n = number.len();
            number.insert(o, n);
            func.ty(o).hash(&mut h);
        }
    }
    for r in &func.results {
        number.get(r).hash(&mut h);
    }
    h.finish()
}

/// For each Func the same as an earlier one (as [`same_func`]), the earlier one's name.
pub(crate) fn identical_funcs(module: &Module) -> HashMap<String, String> {
    let mut firsts: HashMap<u64, Vec<&Func>> = HashMap::new();
    let mut same = HashMap::new();
    for func in module.funcs.values() {
        let candidates = firsts.entry(shape_hash(func)).or_default();
        match candidates.iter().find(|earlier| same_func(earlier, func)) {
            Some(earlier) => {
                same.insert(func.name.clone(), earlier.name.clone());
            }
            None => candidates.push(func),
        }
    }
    same
}

/// The module with every reference to a Func that is the same as an earlier one (as
/// the printed text shows, name and locations aside) sent to the earlier one, and the
/// Funcs no longer referred to dropped (the entry always stays). On a fused module,
/// identical kernels become one, which the JIT then compiles once.
pub fn merge_identical_funcs(module: &Module) -> Module {
    let same = identical_funcs(module);
    if same.is_empty() {
        return module.clone();
    }
    let mut out = Module::new();
    for (i, func) in module.funcs.values().enumerate() {
        if i > 0 && same.contains_key(&func.name) {
            continue;
        }
        let mut renamed = func.clone();
        for eqn in &mut renamed.eqns {
            eqn.prim.rename_callees(&mut |name| same.get(name).cloned().unwrap_or_else(|| name.to_string()));
        }
        out.push(renamed);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Module {
        ferrax_ir::parse(text).unwrap()
    }

    const TWO_KERNELS: &str = "
func @main(%x: f32[4]) -> (f32[4]) {
  %a: f32[4] = call[func=@k1](%x)
  %b: f32[4] = call[func=@k2](%a)
  %c: f32[4] = call[func=@k3](%b)
  return %c
}

func @k1(%x: f32[4]) -> (f32[4]) {
  %y: f32[4] = tanh(%x)
  return %y
}

func @k2(%u: f32[4]) -> (f32[4]) {
  %v: f32[4] = tanh(%u) loc(\"other.rs:1:1\")
  return %v
}

func @k3(%x: f32[4]) -> (f32[4]) {
  %y: f32[4] = sin(%x)
  return %y
}
";

    #[test]
    fn identical_funcs_merge_and_different_ones_stay() {
        let merged = merge_identical_funcs(&parse(TWO_KERNELS));
        let names: Vec<&str> = merged.funcs.keys().map(String::as_str).collect();
        assert_eq!(names, ["main", "k1", "k3"]);
        let callees: Vec<&str> = merged.funcs["main"].eqns.iter().flat_map(|e| e.prim.callees()).collect();
        assert_eq!(callees, ["k1", "k1", "k3"]);
        ferrax_ir::verify(&merged).unwrap();
    }

    #[test]
    fn sameness_agrees_with_the_printed_text() {
        let texts = [
            "func @f(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = add(%x, %x)\n  return %y\n}",
            "func @f(%x: f32[2], %z: f32[2]) -> (f32[2]) {\n  %y: f32[2] = add(%x, %z)\n  return %y\n}",
            "func @f(%x: f32[2], %z: f32[2]) -> (f32[2]) {\n  %y: f32[2] = add(%z, %x)\n  return %y\n}",
            "func @f(%x: f32[2]) -> (f32[2]) {\n  %y: f32[2] = mul(%x, %x)\n  return %y\n}",
            "func @f(%x: f64[2]) -> (f64[2]) {\n  %y: f64[2] = add(%x, %x)\n  return %y\n}",
            "func @f(%x: f32[2]) -> (f32[2]) {\n  %c: f32[2] = constant[value=nan]()\n  %y: f32[2] = add(%x, %c)\n  return %y\n}",
            "func @f(%x: f32[2]) -> (f32[2]) {\n  %c: f32[2] = constant[value=1.0]()\n  %y: f32[2] = add(%x, %c)\n  return %y\n}",
            "func @f(%x: f32[2]) -> (f32[2]) {\n  %c: f32[2] = constant[value=0.0]()\n  %y: f32[2] = add(%x, %c)\n  return %y\n}",
            "func @f(%x: f32[2]) -> (f32[2]) {\n  %c: f32[2] = constant[value=-0.0]()\n  %y: f32[2] = add(%x, %c)\n  return %y\n}",
            "func @f(%x: f32[2]) -> (f32[2], f32[2]) {\n  %y: f32[2] = add(%x, %x)\n  return %y, %x\n}",
            "func @f(%x: f32[2]) -> (f32[2], f32[2]) {\n  %y: f32[2] = add(%x, %x)\n  return %x, %y\n}",
        ];
        for a in texts {
            for b in texts {
                let (ma, mb) = (parse(a), parse(b));
                let printed = ferrax_ir::print(&ma) == ferrax_ir::print(&mb);
                assert_eq!(same_module(&ma, &mb), printed, "{a}\n{b}");
                assert!(same_module(&ma, &ma.clone()));
            }
        }
    }
}
