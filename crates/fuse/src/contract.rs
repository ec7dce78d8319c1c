//! The kernel contract as a checker: [`check_schedule`] tells whether a fused module
//! is what the JIT expects (each equation of a scheduled Func is one launch, each
//! kernel holds only kernel-able primitives and obeys the shape rule).

use crate::classify::{Class, class};
use ferrax_ir::prim::Prim;
use ferrax_ir::{Error, Func, Module, Place};
use std::collections::HashSet;

fn fail(func: &Func, eqn: Option<usize>, message: impl Into<String>) -> Error {
    let prim = eqn.and_then(|i| func.eqns.get(i)).map(|e| e.prim.name().to_string());
    Error::verify(Place { func: func.name.clone(), eqn, prim }, message)
}

/// True when `func` is marked `[kind="fusion"]`.
pub fn is_kernel(func: &Func) -> bool {
    matches!(func.attr("kind"), Some(ferrax_ir::AttrValue::Str(s)) if s == "fusion")
}

/// Checks that `module` (the output of [`fuse`](crate::fuse)) keeps the kernel
/// contract: in its entry and in every body of its control flow, each equation is a
/// `call` of a kernel, a `dot_general`, a `cond`/`while`/`scan`, or an opaque primitive
/// (`scatter_add`, `dynamic_update_slice`, `cumsum`, `random_bits`); each kernel holds
/// kernel-able primitives only, at most one reduction, and obeys the shape rule.
pub fn check_schedule(module: &Module) -> Result<(), Error> {
    ferrax_ir::verify(module)?;
    let entry = module.entry().ok_or_else(|| Error::verify(Place::default(), "the module has no Func"))?;
    let mut queue = vec![entry.name.clone()];
    let mut seen = HashSet::new();
    while let Some(name) = queue.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(func) = module.func(&name) else { continue };
        for (i, eqn) in func.eqns.iter().enumerate() {
            if let Some(callee) = eqn.prim.callee() {
                let kernel = module.func(callee).ok_or_else(|| fail(func, Some(i), "calls a missing Func"))?;
                if !is_kernel(kernel) {
                    return Err(fail(func, Some(i), format!("@{callee} is not a kernel")));
                }
                check_kernel(kernel)?;
                continue;
            }
            match &eqn.prim {
                // Branches and loops: their bodies are checked in turn.
                Prim::Control(op) if op.primal().is_none() => {
                    queue.extend(eqn.prim.callees().into_iter().map(String::from));
                }
                // The launches of the property table (contractions, scatters, prefix
                // scans, random bits) stay equations of the schedule; the other
                // structured primitives must have been inlined by then.
                prim if !matches!(prim, Prim::Control(_)) && class(prim) == Class::Launch => {}
                other => {
                    return Err(fail(func, Some(i), format!("{} is not a launch", other.name())));
                }
            }
        }
    }
    Ok(())
}

/// Checks one kernel (of a verified module): kernel-able primitives, at most one
/// reduction, the shape rule.
pub fn check_kernel(kernel: &Func) -> Result<(), Error> {
    let mut reduction = None;
    for (i, eqn) in kernel.eqns.iter().enumerate() {
        match class(&eqn.prim) {
            Class::Launch => return Err(fail(kernel, Some(i), "not a kernel-able primitive")),
            Class::Reduction if reduction.is_some() => {
                return Err(fail(kernel, Some(i), "a second reduction in one kernel"));
            }
            Class::Reduction => reduction = Some(i),
            Class::Elementwise { .. } | Class::View | Class::Source => {}
        }
    }
    let mut shapes: Vec<&[usize]> = Vec::new();
    for &v in &kernel.results {
        let ty = kernel.value_type(v).ok_or_else(|| fail(kernel, None, format!("result {v} has no type")))?;
        shapes.push(ty.shape.as_slice());
    }
    let Some(r) = reduction else {
        if shapes.windows(2).any(|w| w[0] != w[1]) {
            return Err(fail(kernel, None, "results of a kernel without reduction differ in shape"));
        }
        return Ok(());
    };
    let red = &kernel.eqns[r];
    let (Some(s_in), Some(s_out)) = (
        red.inputs.first().and_then(|&v| kernel.value_type(v)),
        red.outputs.first().and_then(|&v| kernel.value_type(v)),
    ) else {
        return Err(fail(kernel, Some(r), "a reduction without typed operand and result"));
    };
    let (s_in, s_out) = (s_in.shape.as_slice(), s_out.shape.as_slice());
    // Values depending on the reduction: elementwise, on S_out.
    let mut dependent: HashSet<ferrax_ir::Value> = red.outputs.iter().copied().collect();
    for (i, eqn) in kernel.eqns.iter().enumerate().skip(r + 1) {
        if eqn.inputs.iter().any(|v| dependent.contains(v)) {
            if !matches!(class(&eqn.prim), Class::Elementwise { .. }) {
                return Err(fail(
                    kernel,
                    Some(i),
                    "a value depending on the reduction goes through a non-elementwise op",
                ));
            }
            dependent.extend(eqn.outputs.iter().copied());
        }
    }
    for (&v, shape) in kernel.results.iter().zip(&shapes) {
        let ok = if dependent.contains(&v) { *shape == s_out } else { *shape == s_in || *shape == s_out };
        if !ok {
            return Err(fail(kernel, None, format!("result {v} has a shape outside the reduction's input and output")));
        }
    }
    Ok(())
}
