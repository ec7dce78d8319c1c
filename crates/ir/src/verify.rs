//! The verifier: checks that a module is well-formed IR.
//!
//! Invariants checked, in this order:
//! - the module has at least one Func (the first is the entry);
//! - every value id is in its Func's type table, and every type's byte size fits in
//!   `u64` (a shape too large to allocate is caught here, before anything runs);
//! - SSA: every value is defined exactly once (as a parameter or an equation output)
//!   and before each of its uses;
//! - every equation passes its primitive's type rule ([`Prim::infer`]), which covers
//!   operand counts, dtypes, shapes, attribute ranges (axes, permutations, slice
//!   bounds, strides, dot_general sizes) and the signatures of referenced Funcs, and
//!   its declared result types equal the rule's;
//! - every referenced Func exists; there is no recursion among Funcs, and Funcs nest
//!   at most [`MAX_NESTING`] deep;
//! - the returned values match the declared result types;
//! - Func attributes are well-formed (`residuals=K` with K ≤ the parameter count,
//!   `kind` a string).
//!
//! Errors name the Func, the equation index and the primitive, and give both sides
//! of a mismatch; the text front end maps them back to line and column.

use crate::{AttrValue, Error, Func, Module, Place, Prim, Value, format_types};

/// The deepest chain of Funcs referring to Funcs that the verifier accepts.
pub const MAX_NESTING: usize = 256;

/// Checks every rule of the IR; the first violation is returned.
pub fn verify(module: &Module) -> Result<(), Error> {
    if module.funcs.is_empty() {
        return Err(Error::verify(Place::default(), "the module has no Func (the first Func is the entry)"));
    }
    for func in module.funcs.values() {
        verify_func(func, module)?;
    }
    check_call_graph(module)
}

/// Checks one Func in the context of its module (callees are looked up there).
pub fn verify_func(func: &Func, module: &Module) -> Result<(), Error> {
    let at = |eqn: Option<usize>, prim: Option<&Prim>| Place {
        func: func.name.clone(),
        eqn,
        prim: prim.map(|p| p.name().to_string()),
    };
    for ty in &func.value_types {
        ty.byte_size().map_err(|e| Error::verify(at(None, None), format!("type {}: {e}", ty.dtype)))?;
    }
    check_attrs(func).map_err(|m| Error::verify(at(None, None), m))?;
    let mut defined = vec![false; func.value_types.len()];
    for (i, &param) in func.params.iter().enumerate() {
        define(func, &mut defined, param).map_err(|m| Error::verify(at(None, None), format!("parameter {i}: {m}")))?;
    }
    let mut declared_axes = func.axis_names();
    declared_axes.extend(module.entry().map(Func::axis_names).unwrap_or_default());
    let mut axis_sizes: Vec<(&str, usize)> = Vec::new();
    for (index, eqn) in func.eqns.iter().enumerate() {
        let place = || at(Some(index), Some(&eqn.prim));
        check_axes(&declared_axes, &mut axis_sizes, &eqn.prim).map_err(|m| Error::verify(place(), m))?;
        let mut input_types = Vec::with_capacity(eqn.inputs.len());
        for (k, &input) in eqn.inputs.iter().enumerate() {
            use_value(func, &defined, input).map_err(|m| Error::verify(place(), format!("operand {k}: {m}")))?;
            input_types.push(func.ty(input).clone());
        }
        let inferred = eqn.prim.infer(&input_types, module).map_err(|m| Error::verify(place(), m))?;
        let declared: Vec<_> = eqn.outputs.iter().map(|&v| func.value_type(v).cloned()).collect();
        if declared.iter().any(Option::is_none) {
            return Err(Error::verify(place(), "an output value is not in the Func's type table"));
        }
        let declared: Vec<_> = declared.into_iter().flatten().collect();
        if declared != inferred {
            return Err(Error::verify(
                place(),
                format!(
                    "declared result types {} differ from the type rule's {}",
                    format_types(&declared),
                    format_types(&inferred)
                ),
            ));
        }
        for &output in &eqn.outputs {
            define(func, &mut defined, output).map_err(|m| Error::verify(place(), m))?;
        }
    }
    let mut returned = Vec::with_capacity(func.results.len());
    for (k, &result) in func.results.iter().enumerate() {
        use_value(func, &defined, result)
            .map_err(|m| Error::verify(at(None, None), format!("return value {k}: {m}")))?;
        returned.push(func.ty(result).clone());
    }
    if returned != func.result_types {
        return Err(Error::verify(
            at(None, None),
            format!(
                "returns {} but the signature declares {}",
                format_types(&returned),
                format_types(&func.result_types)
            ),
        ));
    }
    Ok(())
}

fn define(func: &Func, defined: &mut [bool], value: Value) -> Result<(), String> {
    match defined.get_mut(value.index()) {
        None => Err(format!("value {value} is not in the Func's type table ({} values)", func.value_types.len())),
        Some(true) => Err(format!("value {value} is defined twice")),
        Some(slot) => {
            *slot = true;
            Ok(())
        }
    }
}

fn use_value(func: &Func, defined: &[bool], value: Value) -> Result<(), String> {
    match defined.get(value.index()) {
        None => Err(format!("value {value} is not in the Func's type table ({} values)", func.value_types.len())),
        Some(false) => Err(format!("value {value} is used before it is defined")),
        Some(true) => Ok(()),
    }
}

/// A collective's axes must be declared by its Func or by the module's entry (so that
/// the Funcs a transform derives from the entry's bodies need no declaration of their
/// own), and the collectives over one axis must agree on its size.
fn check_axes<'m>(declared: &[&str], sizes: &mut Vec<(&'m str, usize)>, prim: &'m Prim) -> Result<(), String> {
    let Prim::Collective(op) = prim else { return Ok(()) };
    for a in op.axis_names() {
        if !declared.contains(&a) {
            return Err(format!(
                "names the axis `{a}`, which neither this Func nor the entry declares (declare it with \
                 [axis_names=[\"{a}\"]] on the Func, or bind it with vmap and an axis name)"
            ));
        }
        if let Some(n) = op.axis_size() {
            match sizes.iter().find(|(b, _)| *b == a) {
                Some(&(_, m)) if m != n => {
                    return Err(format!(
                        "axis_size {n} of the axis `{a}` differs from {m}, which another collective of this Func gives it"
                    ));
                }
                Some(_) => {}
                None => sizes.push((a, n)),
            }
        }
    }
    Ok(())
}

fn check_attrs(func: &Func) -> Result<(), String> {
    for (name, value) in &func.attrs {
        match (name.as_str(), value) {
            ("residuals", AttrValue::Int(k)) if (0..=func.params.len() as i64).contains(k) => {}
            ("residuals", other) => {
                return Err(format!(
                    "Func attribute residuals={other} must be an integer between 0 and the {} parameters",
                    func.params.len()
                ));
            }
            ("kind", AttrValue::Str(_)) => {}
            ("kind", other) => return Err(format!("Func attribute kind={other} must be a string")),
            ("axis_names", AttrValue::List(names)) if names.iter().all(|n| matches!(n, AttrValue::Str(_))) => {
                let declared = func.axis_names();
                for (k, a) in declared.iter().enumerate() {
                    if declared[..k].contains(a) {
                        return Err(format!("Func attribute axis_names declares `{a}` twice"));
                    }
                }
            }
            ("axis_names", other) => {
                return Err(format!("Func attribute axis_names={other} must be a list of strings"));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Rejects recursion (a cycle of references among Funcs) and nesting deeper than
/// [`MAX_NESTING`], with an explicit stack so that deep input cannot overflow ours.
fn check_call_graph(module: &Module) -> Result<(), Error> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Open,
        Done,
    }
    let index_of = |name: &str| module.funcs.get_index_of(name);
    let callees = |i: usize| -> Vec<usize> {
        let func = &module.funcs[i];
        func.eqns.iter().flat_map(|e| e.prim.callees()).filter_map(index_of).collect()
    };
    let n = module.funcs.len();
    let mut state = vec![State::New; n];
    let mut depth = vec![1usize; n];
    for root in 0..n {
        if state[root] != State::New {
            continue;
        }
        // Each frame: (func index, its callees, next callee position).
        let mut stack = vec![(root, callees(root), 0usize)];
        state[root] = State::Open;
        while let Some((func, list, pos)) = stack.last_mut() {
            if let Some(&callee) = list.get(*pos) {
                *pos += 1;
                match state[callee] {
                    State::Open => {
                        let start = stack.iter().position(|frame| frame.0 == callee).unwrap_or(0);
                        let mut cycle: Vec<String> =
                            stack[start..].iter().map(|frame| format!("@{}", module.funcs[frame.0].name)).collect();
                        cycle.push(format!("@{}", module.funcs[callee].name));
                        let name = module.funcs[callee].name.clone();
                        return Err(Error::verify(
                            Place { func: name, eqn: None, prim: None },
                            format!("recursion among Funcs: {}", cycle.join(" -> ")),
                        ));
                    }
                    State::New => {
                        state[callee] = State::Open;
                        let list = callees(callee);
                        stack.push((callee, list, 0));
                    }
                    State::Done => {}
                }
            } else {
                let func = *func;
                depth[func] = 1 + callees(func).iter().map(|&c| depth[c]).max().unwrap_or(0);
                if depth[func] > MAX_NESTING {
                    return Err(Error::verify(
                        Place { func: module.funcs[func].name.clone(), eqn: None, prim: None },
                        format!("Funcs nest {} deep, more than the limit of {MAX_NESTING}", depth[func]),
                    ));
                }
                state[func] = State::Done;
                stack.pop();
            }
        }
    }
    Ok(())
}
