//! The window family's jvp, transpose and batching rules (their semantics are in the
//! family's module docs).

use super::{Select, Window, WindowOp, WindowReduce, dilate};
use crate::prim::ad::{LinearIn, not_linear};
use crate::prim::batch::Batched;
use crate::{Emitter, Type, Value};

/// `reduce_window` sum of `x` from a zero `init`.
fn window_sum(em: &mut Emitter, x: Value, window: Window) -> Result<Value, String> {
    let scalar = Type::new(em.ty(x).dtype, &[]);
    let zero = em.zeros(&scalar)?;
    em.op(WindowOp::ReduceWindow { op: WindowReduce::Sum, window }, &[x, zero])
}

/// The jvp rule: sum pooling sums the tangent's windows; max/min pooling and both
/// selections gather (scatter) the first operand's tangent at the positions the windows
/// select in `x`, whose own tangent (like `init`'s) contributes nothing.
pub(crate) fn jvp(
    em: &mut Emitter,
    op: &WindowOp,
    primals: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[first, x], &[t, _]) = (primals, tangents) else {
        return Err(format!("{}: expects 2 operands and 2 tangents", op.name()));
    };
    let (Some(t), true) = (t, em.ty(first).dtype.is_float()) else {
        return Ok(vec![None]);
    };
    let out = match op {
        WindowOp::ReduceWindow { op: WindowReduce::Sum, window } => window_sum(em, t, window.clone())?,
        WindowOp::ReduceWindow { op: extreme @ (WindowReduce::Max | WindowReduce::Min), window } => {
            let select = if *extreme == WindowReduce::Max { Select::Max } else { Select::Min };
            em.op(WindowOp::SelectAndGatherAdd { select, window: window.clone() }, &[t, first])?
        }
        WindowOp::SelectAndGatherAdd { .. } | WindowOp::SelectAndScatterAdd { .. } => em.op(op.clone(), &[t, x])?,
    };
    Ok(vec![Some(out)])
}

/// The transpose rule: the two selections transpose to each other (with `x` a
/// residual); `reduce_window` sum transposes as JAX's rule does (module docs). Max and
/// min pooling are not linear.
pub(crate) fn transpose(
    em: &mut Emitter,
    op: &WindowOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let name = op.name();
    let ([first, second], [ct]) = (inputs, cts) else {
        return Err(format!("{name}: expects 2 operands and 1 cotangent"));
    };
    let LinearIn::Linear(first_ty) = first else {
        return Err(format!("{name}: its first operand must be linear"));
    };
    let Some(ct) = *ct else {
        return Ok(vec![None, None]);
    };
    let out = match op {
        WindowOp::ReduceWindow { op: WindowReduce::Sum, window } => transpose_sum(em, window, first_ty, ct)?,
        WindowOp::ReduceWindow { op: WindowReduce::Max | WindowReduce::Min, .. } => return Err(not_linear(name)),
        WindowOp::SelectAndGatherAdd { select, window } => {
            let x = second.residual(&format!("{name}'s operand x"))?;
            em.op(WindowOp::SelectAndScatterAdd { select: *select, window: window.clone() }, &[ct, x])?
        }
        WindowOp::SelectAndScatterAdd { select, window } => {
            let x = second.residual(&format!("{name}'s operand x"))?;
            em.op(WindowOp::SelectAndGatherAdd { select: *select, window: window.clone() }, &[ct, x])?
        }
    };
    Ok(vec![Some(out), None])
}

/// The cotangent of `reduce_window` sum's operand (of type `x_ty`), JAX's rule: every
/// operand element receives the sum of the cotangents of the windows covering it. The
/// cotangent is spread out by `strides - 1` zeros between elements and padded (or
/// cropped) at the edges so that a window of the same taps and window dilation, moved
/// `base_dilation` at a time, covers exactly the windows of each operand element.
fn transpose_sum(em: &mut Emitter, window: &Window, x_ty: &Type, ct: Value) -> Result<Value, String> {
    let rank = x_ty.rank();
    window.check("reduce_window", rank)?;
    let ct_shape = em.ty(ct).shape.clone();
    let big = |v: Option<usize>| v.and_then(|v| i64::try_from(v).ok()).ok_or("reduce_window: window overflows");
    let (mut low, mut high, mut interior) = (Vec::new(), Vec::new(), Vec::new());
    for a in 0..rank {
        let operand = big(dilate(x_ty.shape[a], window.base_dilation[a]))?;
        let extent = big(dilate(window.dimensions[a], window.window_dilation[a]))?;
        let spread = big(dilate(ct_shape[a], window.strides[a]))?;
        let before = extent - big(Some(window.padding[a][0]))? - 1;
        low.push(before);
        high.push(operand + extent - 1 - spread - before);
        interior.push(window.strides[a] - 1);
    }
    let zero = em.zeros(&Type::new(em.ty(ct).dtype, &[]))?;
    let padded = em.pad(ct, zero, low, high, interior)?;
    let back = Window {
        dimensions: window.dimensions.clone(),
        strides: window.base_dilation.clone(),
        padding: vec![[0, 0]; rank],
        base_dilation: vec![1; rank],
        window_dilation: window.window_dilation.clone(),
    };
    let out = window_sum(em, padded, back)?;
    if em.ty(out) != x_ty {
        return Err(format!("reduce_window: the transposed sum has type {} instead of {x_ty}", em.ty(out)));
    }
    Ok(out)
}

/// The batching rule: the batch axis becomes a window axis of one tap. The selections'
/// operands meet at the first batched one's axis (an unbatched one is broadcast); a
/// batched `init` is replaced by the identity it must be.
pub(crate) fn batch(
    em: &mut Emitter,
    op: &WindowOp,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let name = op.name();
    let (&[first, second], &[d0, d1]) = (inputs, dims) else {
        return Err(format!("{name}: expects 2 operands with 2 batch axes"));
    };
    let out = match op {
        WindowOp::ReduceWindow { op: reduce, window } => {
            let d = d0.unwrap_or(0);
            let x = em.batch_at(first, d0, size, d)?;
            let init = match d1 {
                None => second,
                // The identity in the operand's dtype (the casts saturate to i32's).
                Some(_) => {
                    let value = match reduce {
                        WindowReduce::Sum => 0.0,
                        WindowReduce::Max => f64::NEG_INFINITY,
                        WindowReduce::Min => f64::INFINITY,
                    };
                    em.full(&Type::new(em.ty(first).dtype, &[]), value)?
                }
            };
            let op = WindowOp::ReduceWindow { op: *reduce, window: window.with_axis(d) };
            (em.op(op, &[x, init])?, d)
        }
        WindowOp::SelectAndGatherAdd { window, .. } | WindowOp::SelectAndScatterAdd { window, .. } => {
            let Some(d) = d0.or(d1) else {
                return Err(format!("{name}: no operand is batched"));
            };
            let a = em.batch_at(first, d0, size, d)?;
            let x = em.batch_at(second, d1, size, d)?;
            (em.op(op.with_window(window.with_axis(d)), &[a, x])?, d)
        }
    };
    Ok((vec![out.0], vec![Some(out.1)]))
}
