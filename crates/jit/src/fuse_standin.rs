//! STAND-IN for `ferrax_fuse::fuse`, private to this branch until the fusion pass is
//! merged (the merge replaces the one call in `exec::build` by `ferrax_fuse::fuse` and
//! deletes this file).
//!
//! It obeys the kernel contract in the simplest way: the AD annotations become `call`s,
//! calls are inlined, dce runs, and then every kernel-able equation of the entry and of
//! every body Func becomes its own one-equation `[kind="fusion"]` kernel Func
//! `@<func>_k<i>`; `dot_general`, control flow and the opaque primitives stay.

use ferrax_ir::prim::Prim;
use ferrax_ir::{AttrValue, Error, Func, Module, Value};

/// Whether `prim` may appear inside a kernel (the kernel-able set of the contract).
pub(crate) fn is_kernel_prim(prim: &Prim) -> bool {
    match prim {
        Prim::Unary(_)
        | Prim::IntegerPow { .. }
        | Prim::Convert { .. }
        | Prim::StopGradient
        | Prim::Name { .. }
        | Prim::Binary(_)
        | Prim::Compare(_)
        | Prim::Select
        | Prim::Clamp
        | Prim::Constant { .. }
        | Prim::Iota { .. }
        | Prim::BroadcastInDim { .. }
        | Prim::Reshape { .. }
        | Prim::Transpose { .. }
        | Prim::Rev { .. }
        | Prim::Slice { .. }
        | Prim::Pad { .. }
        | Prim::Concatenate { .. }
        | Prim::DynamicSlice { .. }
        | Prim::Gather { .. }
        | Prim::Reduce { .. }
        | Prim::ArgReduce { .. } => true,
        Prim::DynamicUpdateSlice
        | Prim::ScatterAdd { .. }
        | Prim::Cumsum { .. }
        | Prim::DotGeneral(_)
        | Prim::RandomBits { .. }
        | Prim::Call { .. }
        | Prim::Cond { .. }
        | Prim::While { .. }
        | Prim::Scan(_)
        | Prim::CustomJvp { .. }
        | Prim::CustomVjp { .. }
        | Prim::Remat { .. } => false,
    }
}

/// The schedule of `module` under the contract (see the module docs).
pub(crate) fn fuse(module: &Module) -> Result<Module, Error> {
    let mut lowered = module.clone();
    for func in lowered.funcs.values_mut() {
        for eqn in &mut func.eqns {
            let target = match &eqn.prim {
                Prim::CustomJvp { func, .. } | Prim::CustomVjp { func, .. } | Prim::Remat { func, .. } => {
                    Some(func.clone())
                }
                _ => None,
            };
            if let Some(func) = target {
                eqn.prim = Prim::Call { func };
            }
        }
    }
    let inlined = ferrax_transform::dce(&ferrax_transform::inline_calls(&lowered)?);
    let mut out = Module::new();
    let mut kernels = Vec::new();
    for func in inlined.funcs.values() {
        let mut sched = func.clone();
        let mut k = 0;
        for eqn in &mut sched.eqns {
            if !is_kernel_prim(&eqn.prim) {
                continue;
            }
            let name = format!("{}_k{k}", func.name);
            k += 1;
            let mut kernel = Func::new(name.clone());
            kernel.set_attr("kind", AttrValue::Str("fusion".into()));
            // Each distinct operand becomes one kernel parameter, in first-use order.
            let mut outer: Vec<Value> = Vec::new();
            let mut inner = eqn.clone();
            inner.inputs.clear();
            for &v in &eqn.inputs {
                let i = match outer.iter().position(|&o| o == v) {
                    Some(i) => i,
                    None => {
                        outer.push(v);
                        let p = kernel.new_value(func.ty(v).clone());
                        kernel.params.push(p);
                        outer.len() - 1
                    }
                };
                inner.inputs.push(kernel.params[i]);
            }
            inner.outputs = eqn.outputs.iter().map(|&o| kernel.new_value(func.ty(o).clone())).collect();
            kernel.results = inner.outputs.to_vec();
            kernel.result_types = eqn.outputs.iter().map(|&o| func.ty(o).clone()).collect();
            kernel.eqns.push(inner);
            eqn.inputs = outer.into_iter().collect();
            eqn.prim = Prim::Call { func: name };
            kernels.push(kernel);
        }
        out.push(sched);
    }
    for kernel in kernels {
        out.push(kernel);
    }
    Ok(out)
}
