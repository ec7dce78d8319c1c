//! The pre-passes of [`fuse`](crate::fuse): AD annotations lowered to `call`, calls
//! inlined, and transposes folded into `dot_general`.
//!
//! Both transpose folds are exact (the reference interpreter sums each product in the
//! same order, and a product `a*b` equals `b*a` bit for bit):
//!
//! - **Operand fold.** `dot_general(transpose[perm](x), y)` reads `x` directly, each
//!   contract/batch axis `a` of the transposed operand becoming axis `perm[a]` of `x`,
//!   when the free axes of the transposed operand, mapped through `perm`, stay in
//!   increasing order (the result's axis order is then unchanged). Every 2-D transpose
//!   of a matrix operand qualifies.
//! - **Result fold.** `transpose[perm](dot_general(x, y))`, where the dot's result has
//!   no other use and `perm` keeps the batch axes and swaps the lhs-free group with the
//!   rhs-free group (each kept in order), becomes `dot_general(y, x)` with the dimension
//!   numbers swapped.

use ferrax_ir::prim::{DotDims, Prim};
use ferrax_ir::{Error, Func, Module};

/// `module` with `custom_jvp`, `custom_vjp` and `remat` turned into `call`, every call
/// inlined and dead equations dropped.
pub(crate) fn lower_annotations(module: &Module) -> Result<Module, Error> {
    let mut plain = module.clone();
    for func in plain.funcs.values_mut() {
        for eqn in &mut func.eqns {
            let callee = match &eqn.prim {
                Prim::CustomJvp { func, .. } | Prim::CustomVjp { func, .. } | Prim::Remat { func, .. } => func.clone(),
                _ => continue,
            };
            eqn.prim = Prim::Call { func: callee };
        }
    }
    let inlined = ferrax_transform::inline_calls(&plain)?;
    Ok(ferrax_transform::dce(&inlined))
}

/// `func` with the transposes around its `dot_general`s folded (module docs).
pub(crate) fn fold_dot_transposes(func: &Func) -> Func {
    let mut out = func.clone();
    let defs = definers(&out);
    let mut uses = vec![0usize; out.value_types.len()];
    for eqn in &out.eqns {
        for v in &eqn.inputs {
            uses[v.index()] += 1;
        }
    }
    for r in &out.results {
        uses[r.index()] += 1;
    }
    // Operand folds.
    for i in 0..out.eqns.len() {
        let Prim::DotGeneral(dims) = &out.eqns[i].prim else { continue };
        let mut dims = dims.clone();
        let mut inputs = out.eqns[i].inputs.clone();
        for side in 0..2 {
            let Some(d) = defs[inputs[side].index()] else { continue };
            let Prim::Transpose { perm } = &out.eqns[d].prim else { continue };
            let rank = perm.len();
            let (contract, batch) = if side == 0 {
                (&mut dims.lhs_contract, &mut dims.lhs_batch)
            } else {
                (&mut dims.rhs_contract, &mut dims.rhs_batch)
            };
            let free: Vec<usize> = (0..rank).filter(|a| !contract.contains(a) && !batch.contains(a)).collect();
            let mapped: Vec<usize> = free.iter().map(|&a| perm[a]).collect();
            if mapped.windows(2).any(|w| w[0] > w[1]) {
                continue;
            }
            for a in contract.iter_mut().chain(batch.iter_mut()) {
                *a = perm[*a];
            }
            inputs[side] = out.eqns[d].inputs[0];
        }
        out.eqns[i].prim = Prim::DotGeneral(dims);
        out.eqns[i].inputs = inputs;
    }
    // Result folds.
    for i in 0..out.eqns.len() {
        let Prim::Transpose { perm } = &out.eqns[i].prim else { continue };
        let z = out.eqns[i].inputs[0];
        let Some(d) = defs[z.index()] else { continue };
        if uses[z.index()] != 1 {
            continue;
        }
        let Prim::DotGeneral(dims) = &out.eqns[d].prim else { continue };
        let (lhs, rhs) = (out.eqns[d].inputs[0], out.eqns[d].inputs[1]);
        let nb = dims.lhs_batch.len();
        let nl = dims.lhs_free(out.ty(lhs).shape.len()).len();
        let nr = dims.rhs_free(out.ty(rhs).shape.len()).len();
        let swapped: Vec<usize> = (0..nb).chain(nb + nl..nb + nl + nr).chain(nb..nb + nl).collect();
        if *perm != swapped {
            continue;
        }
        let new_dims = DotDims {
            lhs_contract: dims.rhs_contract.clone(),
            rhs_contract: dims.lhs_contract.clone(),
            lhs_batch: dims.rhs_batch.clone(),
            rhs_batch: dims.lhs_batch.clone(),
        };
        let t_out = out.eqns[i].outputs[0];
        let mut eqn = out.eqns[d].clone();
        eqn.prim = Prim::DotGeneral(new_dims);
        eqn.inputs = [rhs, lhs].into_iter().collect();
        eqn.outputs = [t_out].into_iter().collect();
        // The new dot takes the transpose's place (its operands are defined before the
        // old dot, hence before the transpose); the old dot becomes dead.
        out.eqns[i] = eqn;
    }
    ferrax_transform_dce(out)
}

/// `func` without dead equations.
fn ferrax_transform_dce(func: Func) -> Func {
    let mut module = Module::new();
    module.push(func);
    let pruned = ferrax_transform::dce(&module);
    pruned.funcs.into_iter().next().map(|(_, f)| f).unwrap_or_else(|| Func::new(""))
}

/// The index of the equation defining each value (`None` for parameters and unused ids).
pub(crate) fn definers(func: &Func) -> Vec<Option<usize>> {
    let mut defs = vec![None; func.value_types.len()];
    for (i, eqn) in func.eqns.iter().enumerate() {
        for o in &eqn.outputs {
            defs[o.index()] = Some(i);
        }
    }
    defs
}
