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
//!
//! Before the folds, a `transpose` of a single-use `convert` moves above it:
//! `transpose(convert(z))` becomes `convert(transpose(z))` (a conversion is per element,
//! so it commutes with any permutation exactly). Reverse mode transposes a dot's result,
//! and a 16-bit program, once computed in f32 by the JIT, rounds that result by a pair of
//! converts in between; without the move the result fold would miss it and a strided
//! transposing kernel would run over the whole product.
//!
//! And one more exact rewrite makes reverse-mode code fusible: a
//! `dynamic_update_slice` whose start indices are constants (reverse mode writes a
//! slice's cotangent into its operand's accumulator this way) becomes
//! `select(mask, pad(update, 0), x)`, where `mask` is `true` padded with `false` over
//! the (statically clamped) window: element for element the same values, all kernel-able.
//!
//! And reshapes move below elementwise ops: `op(reshape(a), reshape(b))`, where `a` and
//! `b` have one shape, becomes `reshape(op(a, b))` (elementwise ops commute with a
//! reshape exactly). A reduction's epilogue often reads the reduced value through a
//! reshape that adds a unit axis (`log(reshape(sum))` in log-softmax); after the move
//! the epilogue is elementwise on the reduced shape and fuses into the reduction.

use ferrax_ir::array::{Array, DType, Data, Shape};
use ferrax_ir::prim::{DotDims, Prim};
use ferrax_ir::prim::{IndexOp, LinalgOp, ShapeOp, TernaryOp};
use ferrax_ir::{Eqn, Error, Func, Module, Type, Value};

/// `module` with `custom_jvp`, `custom_vjp`, `remat`, `custom_linear_solve` and
/// `custom_root` turned into `call`s (of the primal function or of the solver: their
/// special meaning is for the transforms only), every call inlined, the AD-only
/// identities removed ([`drop_gradient_guards`]) and dead equations dropped.
pub(crate) fn lower_annotations(module: &Module) -> Result<Module, Error> {
    let mut plain = module.clone();
    for func in plain.funcs.values_mut() {
        for eqn in &mut func.eqns {
            let Prim::Control(op) = &eqn.prim else { continue };
            if let Some(primal) = op.primal() {
                eqn.prim = Prim::call(primal);
            }
        }
    }
    let mut inlined = ferrax_transform::inline_calls(&plain)?;
    for func in inlined.funcs.values_mut() {
        drop_gradient_guards(func);
    }
    Ok(ferrax_transform::dce(&inlined))
}

/// Forwards `stop_gradient(x)` to `x`, and then `select(p, x, x)` to `x`: compiled code
/// is never differentiated again, so these only cost a pass over memory. The batching
/// rule of a `while` with a per-example predicate guards every carry with
/// `select(running, x, stop_gradient(x))` (for reverse mode's sake); for a large
/// loop-invariant carry (a matrix a solver's loop reads), that guard was a full copy
/// per iteration.
fn drop_gradient_guards(func: &mut Func) {
    let mut to: Vec<Option<Value>> = vec![None; func.value_types.len()];
    let resolve = |to: &[Option<Value>], v: Value| to.get(v.index()).copied().flatten().unwrap_or(v);
    for eqn in &mut func.eqns {
        for v in eqn.inputs.iter_mut() {
            *v = resolve(&to, *v);
        }
        let forward = match (&eqn.prim, &eqn.inputs[..], &eqn.outputs[..]) {
            (Prim::Unary(_), [x], [_]) if eqn.prim.props().identity => Some(*x),
            (Prim::Ternary(TernaryOp::Select), [_, a, b], [_]) if a == b => Some(*a),
            _ => None,
        };
        if let (Some(x), Some(out)) = (forward, eqn.outputs.first()) {
            to[out.index()] = Some(x);
        }
    }
    for r in func.results.iter_mut() {
        *r = resolve(&to, *r);
    }
}

/// `func` with every `transpose` of a single-use `convert` moved above the convert
/// (module docs). Walking backwards, a moved transpose is met again at its new place,
/// so a chain of converts is crossed in one pass.
fn hoist_transposes_over_converts(func: &Func) -> Func {
    let mut out = func.clone();
    let mut defs = definers(&out);
    let uses = use_counts(&out);
    for i in (0..out.eqns.len()).rev() {
        let Prim::Shape(ShapeOp::Transpose { perm }) = &out.eqns[i].prim else { continue };
        let perm = perm.clone();
        let c = out.eqns[i].inputs[0];
        let Some(d) = defs[c.index()] else { continue };
        let Some(dtype) = out.eqns[d].prim.convert_dtype() else { continue };
        if uses[c.index()] != 1 || out.eqns[d].inputs.len() != 1 {
            continue;
        }
        let z = out.eqns[d].inputs[0];
        let t = out.eqns[i].outputs[0];
        let moved_ty = Type::new(out.ty(z).dtype, &out.ty(t).shape);
        let moved = out.new_value(moved_ty);
        defs.push(Some(d));
        let transpose = Prim::Shape(ShapeOp::Transpose { perm });
        let loc = out.eqns[i].loc.clone();
        out.eqns[i] = Eqn {
            prim: Prim::convert(dtype),
            inputs: [moved].into_iter().collect(),
            outputs: [t].into_iter().collect(),
            loc,
        };
        let loc = out.eqns[d].loc.clone();
        out.eqns[d] =
            Eqn { prim: transpose, inputs: [z].into_iter().collect(), outputs: [moved].into_iter().collect(), loc };
    }
    out
}

/// How many equations (and results) read each value.
fn use_counts(func: &Func) -> Vec<usize> {
    let mut uses = vec![0usize; func.value_types.len()];
    for eqn in &func.eqns {
        for v in &eqn.inputs {
            uses[v.index()] += 1;
        }
    }
    for r in &func.results {
        uses[r.index()] += 1;
    }
    uses
}

/// `func` with the transposes around its `dot_general`s folded (module docs).
pub(crate) fn fold_dot_transposes(func: &Func) -> Func {
    let mut out = hoist_transposes_over_converts(func);
    let defs = definers(&out);
    let uses = use_counts(&out);
    // Operand folds.
    for i in 0..out.eqns.len() {
        let Prim::Linalg(LinalgOp::DotGeneral(dims)) = &out.eqns[i].prim else { continue };
        let mut dims = dims.clone();
        let mut inputs = out.eqns[i].inputs.clone();
        for side in 0..2 {
            let Some(d) = defs[inputs[side].index()] else { continue };
            let Prim::Shape(ShapeOp::Transpose { perm }) = &out.eqns[d].prim else { continue };
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
        out.eqns[i].prim = Prim::Linalg(LinalgOp::DotGeneral(dims));
        out.eqns[i].inputs = inputs;
    }
    // Result folds.
    for i in 0..out.eqns.len() {
        let Prim::Shape(ShapeOp::Transpose { perm }) = &out.eqns[i].prim else { continue };
        let z = out.eqns[i].inputs[0];
        let Some(d) = defs[z.index()] else { continue };
        if uses[z.index()] != 1 {
            continue;
        }
        let Prim::Linalg(LinalgOp::DotGeneral(dims)) = &out.eqns[d].prim else { continue };
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
            preferred: dims.preferred,
        };
        let t_out = out.eqns[i].outputs[0];
        let mut eqn = out.eqns[d].clone();
        eqn.prim = Prim::Linalg(LinalgOp::DotGeneral(new_dims));
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

/// The constant i32 scalar defined by equation `d`, if it is one.
fn constant_i32(func: &Func, defs: &[Option<usize>], v: Value) -> Option<i64> {
    let eqn = &func.eqns[defs[v.index()]?];
    let (value, _) = eqn.prim.literal()?;
    match value.data() {
        Data::I32(x) if x.len() == 1 => Some(i64::from(x[0])),
        _ => None,
    }
}

/// `func` with every `dynamic_update_slice` at constant start indices rewritten into
/// `select(mask, pad(update, 0), x)` (module docs).
pub(crate) fn static_update_slices(func: &Func) -> Func {
    let defs = definers(func);
    let mut out = func.clone();
    out.eqns.clear();
    for eqn in &func.eqns {
        if !matches!(eqn.prim, Prim::Index(IndexOp::DynamicUpdateSlice)) || eqn.inputs.len() < 2 {
            out.eqns.push(eqn.clone());
            continue;
        }
        let (x, update) = (eqn.inputs[0], eqn.inputs[1]);
        let starts: Option<Vec<i64>> = eqn.inputs[2..].iter().map(|&v| constant_i32(func, &defs, v)).collect();
        let x_ty = func.ty(x).clone();
        let u_shape = func.ty(update).shape.clone();
        let Some(starts) = starts.filter(|s| s.len() == x_ty.shape.len()) else {
            out.eqns.push(eqn.clone());
            continue;
        };
        let mut low = Vec::new();
        let mut high = Vec::new();
        for ((&start, &dim), &u) in starts.iter().zip(&x_ty.shape).zip(&u_shape) {
            let begin = start.clamp(0, (dim - u) as i64);
            low.push(begin);
            high.push((dim - u) as i64 - begin);
        }
        let zero = Array::zero(x_ty.dtype);
        let push = |out: &mut Func, prim: Prim, inputs: Vec<Value>, ty: Type| -> Value {
            let v = out.new_value(ty);
            out.eqns.push(Eqn {
                prim,
                inputs: inputs.into_iter().collect(),
                outputs: [v].into_iter().collect(),
                loc: eqn.loc.clone(),
            });
            v
        };
        let interior = vec![0; low.len()];
        let pad = Prim::Shape(ShapeOp::Pad { low: low.clone(), high: high.clone(), interior });
        let z = push(&mut out, Prim::constant(zero, Shape::new()), vec![], Type::new(x_ty.dtype, &[]));
        let padded = push(&mut out, pad.clone(), vec![update, z], x_ty.clone());
        let t = Prim::constant(Array::scalar_bool(true), u_shape.clone());
        let ones = push(&mut out, t, vec![], Type::new(DType::Bool, &u_shape));
        let f = Prim::constant(Array::scalar_bool(false), Shape::new());
        let no = push(&mut out, f, vec![], Type::new(DType::Bool, &[]));
        let mask = push(&mut out, pad, vec![ones, no], Type::new(DType::Bool, &x_ty.shape));
        out.eqns.push(Eqn {
            prim: Prim::Ternary(TernaryOp::Select),
            inputs: [mask, padded, x].into_iter().collect(),
            outputs: eqn.outputs.clone(),
            loc: eqn.loc.clone(),
        });
    }
    ferrax_transform_dce(out)
}

/// `func` with reshapes moved below the elementwise ops that read only reshapes of
/// one shape (module docs).
pub(crate) fn sink_reshapes(func: &Func) -> Func {
    let mut out = func.clone();
    out.eqns.clear();
    // The reshape equation (in `out`) defining each value, if any.
    let mut reshape_of: Vec<Option<usize>> = vec![None; func.value_types.len()];
    for eqn in &func.eqns {
        let sources: Option<Vec<Value>> = eqn
            .inputs
            .iter()
            .map(|v| reshape_of.get(v.index()).copied().flatten().map(|r| out.eqns[r].inputs[0]))
            .collect();
        let elementwise = matches!(crate::classify::class(&eqn.prim), crate::classify::Class::Elementwise { .. });
        let one_shape = sources.as_ref().and_then(|srcs| {
            let first = srcs.first().map(|&v| out.ty(v).shape.clone())?;
            srcs.iter().all(|&v| out.ty(v).shape == first).then_some(first)
        });
        match (elementwise && eqn.outputs.len() == 1, sources, one_shape) {
            (true, Some(srcs), Some(shape)) => {
                let result = eqn.outputs[0];
                let result_ty = out.ty(result).clone();
                let inner = out.new_value(Type::new(result_ty.dtype, &shape));
                let mut moved = eqn.clone();
                moved.inputs = srcs.into_iter().collect();
                moved.outputs = [inner].into_iter().collect();
                out.eqns.push(moved);
                let reshape = Prim::reshape(result_ty.shape.clone());
                out.eqns.push(Eqn {
                    prim: reshape,
                    inputs: [inner].into_iter().collect(),
                    outputs: [result].into_iter().collect(),
                    loc: eqn.loc.clone(),
                });
                reshape_of[result.index()] = Some(out.eqns.len() - 1);
            }
            _ => {
                if matches!(eqn.prim, Prim::Shape(ShapeOp::Reshape { .. }))
                    && let Some(&o) = eqn.outputs.first()
                {
                    reshape_of[o.index()] = Some(out.eqns.len());
                }
                out.eqns.push(eqn.clone());
            }
        }
    }
    ferrax_transform_dce(out)
}
