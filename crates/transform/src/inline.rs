//! Inlining of `call`s: replaces each `call` by its callee's equations, recursively.

use ferrax_ir::{Eqn, Error, Func, MAX_NESTING, Module, Value};

/// The module with every `call` in every Func replaced by its callee's equations.
pub fn inline_calls(module: &Module) -> Result<Module, Error> {
    let mut out = Module::new();
    for func in module.funcs.values() {
        out.push(inline_func(func, module)?);
    }
    let entry = crate::entry(&out)?.clone();
    Ok(crate::assemble(entry, &out))
}

/// `func` with every `call` inlined, recursively.
pub(crate) fn inline_func(func: &Func, module: &Module) -> Result<Func, Error> {
    let mut out = func.clone();
    out.eqns.clear();
    let mut map: Vec<Value> = (0..func.value_types.len() as u32).map(Value).collect();
    for eqn in &func.eqns {
        expand(&mut out, &mut map, eqn, module, 0)?;
    }
    out.results = func.results.iter().map(|r| map[r.index()]).collect();
    Ok(out)
}

/// Appends `eqn` (with inputs renamed by `map`) to `out`, expanding inlined callees.
fn expand(out: &mut Func, map: &mut [Value], eqn: &Eqn, module: &Module, depth: usize) -> Result<(), Error> {
    let inputs: Vec<Value> = eqn.inputs.iter().map(|v| map[v.index()]).collect();
    let Some(name) = eqn.prim.callee() else {
        let mut copy = eqn.clone();
        copy.inputs = inputs.into();
        out.eqns.push(copy);
        return Ok(());
    };
    if out.eqns.len() >= ferrax_ir::emit::MAX_EQUATIONS {
        let max = ferrax_ir::emit::MAX_EQUATIONS;
        return Err(crate::error(&out.name, format!("inlining grows the Func past {max} equations")));
    }
    if depth > MAX_NESTING {
        return Err(crate::error(&out.name, format!("inlining @{name}: calls nest deeper than {MAX_NESTING}")));
    }
    let body = module.func(name).ok_or_else(|| crate::error(&out.name, format!("inlining: no Func @{name}")))?;
    // The callee's values get fresh ids in `out`; its parameters are the inputs.
    let mut inner: Vec<Value> = body.value_types.iter().map(|ty| out.new_value(ty.clone())).collect();
    for (&param, &input) in body.params.iter().zip(&inputs) {
        inner[param.index()] = input;
    }
    for inner_eqn in &body.eqns {
        let mut renamed = inner_eqn.clone();
        renamed.outputs = inner_eqn.outputs.iter().map(|o| inner[o.index()]).collect();
        let before = out.eqns.len();
        expand(out, &mut inner, inner_eqn, module, depth + 1)?;
        // `expand` pushed the equation (or its expansion) with outputs renamed by
        // `inner`; a plain copy needs its outputs renamed too.
        if out.eqns.len() == before + 1 && inner_eqn.prim.callee().is_none() {
            let last = out.eqns.len() - 1;
            out.eqns[last].outputs = renamed.outputs.clone();
            if out.eqns[last].loc.is_none() {
                out.eqns[last].loc = eqn.loc.clone();
            }
        }
    }
    for (&output, &result) in eqn.outputs.iter().zip(&body.results) {
        map[output.index()] = inner[result.index()];
    }
    Ok(())
}
