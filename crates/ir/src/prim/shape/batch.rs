//! Batching of the structural primitives.

use super::*;

/// Checks what every batching rule's index arithmetic relies on: one batch axis entry
/// per input, each batch axis inside its (batched) value, and at least one batched
/// input. Returns an error, never panics, on a state the driver should not produce.
pub(crate) fn check_batch_dims(em: &Emitter, op: &str, inputs: &[Value], dims: &[Option<usize>]) -> Result<(), String> {
    if inputs.len() != dims.len() {
        return Err(format!("{op}: {} batch axes for {} inputs", dims.len(), inputs.len()));
    }
    for (k, (&input, &dim)) in inputs.iter().zip(dims).enumerate() {
        let ty = em.func().value_type(input).ok_or_else(|| format!("{op}: unknown value {input}"))?;
        if let Some(d) = dim
            && d >= ty.rank()
        {
            return Err(format!("{op}: input {k} is {ty}, which has no batch axis {d}"));
        }
    }
    if dims.iter().all(Option::is_none) {
        return Err(format!("{op}: the batching rule was called with no batched input"));
    }
    Ok(())
}

/// The only input of a one-operand primitive and its batch axis (it must be batched).
fn batched_operand(op: &str, inputs: &[Value], dims: &[Option<usize>]) -> Result<(Value, usize), String> {
    let ([x], [dim]) = (inputs, dims) else {
        return Err(format!("{op}: expects 1 operand, got {}", inputs.len()));
    };
    let Some(d) = dim else {
        return Err(format!("{op}: the batching rule was called with no batched input"));
    };
    Ok((*x, *d))
}

/// Axis `axis` of an unbatched value, renumbered for the value batched at `batch`.
fn skip_batch(axis: usize, batch: usize) -> usize {
    if axis < batch { axis } else { axis + 1 }
}

/// `v` with `item` inserted at `at`, or an error naming `what` when `at` is past the end.
pub(crate) fn inserted_at<T: Clone>(op: &str, what: &str, v: &[T], at: usize, item: T) -> Result<Vec<T>, String> {
    if at > v.len() {
        return Err(format!("{op}: batch axis {at} does not fit {what} of length {}", v.len()));
    }
    let mut out = v.to_vec();
    out.insert(at, item);
    Ok(out)
}

/// The batching rule of the structural primitives. Batch axes stay where they are
/// whenever the primitive can be renumbered around them:
///
/// - `broadcast_in_dim`: the batch axis (operand axis `d`) goes to the output right
///   after the output axis of operand axis `d - 1` (axis 0 when `d = 0`), so `dims`
///   stays strictly increasing and the operand is not transposed;
/// - `reshape`: the batch axis moves to 0 and the result is `[size] + shape`;
/// - `transpose`: the permutation is extended with the batch axis mapped to itself;
///   `rev` and `slice` renumber their axes (a full range for the batch axis);
/// - `pad`: an unbatched padding value pads with a zero config for the batch axis. A
///   batched one (one value per example) cannot be a `pad` operand, so the operand is
///   padded with zeros and a mask, `pad(true, false)` of the unbatched shape, selects
///   between it and the broadcast per-example padding value (exact for every dtype);
/// - `concatenate`: every operand goes to the batch axis of the first batched one
///   (moved there, or broadcast if unbatched) and the joining axis is renumbered;
/// - `iota` and `constant` have no inputs, so they are never batched: an error.
pub(crate) fn batch_structural(
    em: &mut Emitter,
    prim: &ShapeOp,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<crate::prim::batch::Batched, String> {
    let op = prim.name();
    check_batch_dims(em, op, inputs, dims)?;
    let (out, dim) = match prim {
        ShapeOp::BroadcastInDim { shape, dims: bdims } => {
            let (x, d) = batched_operand(op, inputs, dims)?;
            let at = match d.checked_sub(1) {
                None => 0,
                Some(prev) => bdims.get(prev).ok_or_else(|| format!("{op}: dims {bdims:?} has no entry {prev}"))? + 1,
            };
            let out_shape = inserted_at(op, "the shape", shape, at, size)?;
            let mut new_dims: Vec<usize> = bdims.iter().map(|&o| skip_batch(o, at)).collect();
            new_dims = inserted_at(op, "dims", &new_dims, d, at)?;
            (em.op(ShapeOp::BroadcastInDim { shape: out_shape.into(), dims: new_dims }, &[x])?, at)
        }
        ShapeOp::Reshape { shape } => {
            let (x, d) = batched_operand(op, inputs, dims)?;
            let x = em.move_axis(x, d, 0)?;
            let out_shape = inserted_at(op, "the shape", shape, 0, size)?;
            (em.op(ShapeOp::Reshape { shape: out_shape.into() }, &[x])?, 0)
        }
        ShapeOp::Transpose { perm } => {
            let (x, d) = batched_operand(op, inputs, dims)?;
            let new_perm: Vec<usize> = perm.iter().map(|&p| skip_batch(p, d)).collect();
            let new_perm = inserted_at(op, "perm", &new_perm, d, d)?;
            (em.transpose(x, &new_perm)?, d)
        }
        ShapeOp::Rev { axes } => {
            let (x, d) = batched_operand(op, inputs, dims)?;
            let axes = axes.iter().map(|&a| skip_batch(a, d)).collect();
            (em.op(ShapeOp::Rev { axes }, &[x])?, d)
        }
        ShapeOp::Slice { start, limit, strides } => {
            let (x, d) = batched_operand(op, inputs, dims)?;
            let slice = ShapeOp::Slice {
                start: inserted_at(op, "start", start, d, 0)?,
                limit: inserted_at(op, "limit", limit, d, size)?,
                strides: inserted_at(op, "strides", strides, d, 1)?,
            };
            (em.op(slice, &[x])?, d)
        }
        ShapeOp::Pad { low, high, interior } => batch_pad(em, size, low, high, interior, inputs, dims)?,
        ShapeOp::Concatenate { axis } => {
            let at = dims.iter().find_map(|&d| d).ok_or_else(|| format!("{op}: no batched input"))?;
            let moved =
                inputs.iter().zip(dims).map(|(&x, &d)| em.batch_at(x, d, size, at)).collect::<Result<Vec<_>, _>>()?;
            (em.op(ShapeOp::Concatenate { axis: skip_batch(*axis, at) }, &moved)?, at)
        }
        ShapeOp::Iota { .. } | ShapeOp::Constant { .. } => {
            return Err(format!("{op} has no inputs, so it is never batched"));
        }
    };
    Ok((vec![out], vec![Some(dim)]))
}

/// The batching rule of `pad(x, value)` (see [`batch_structural`]); returns the result
/// and its batch axis.
fn batch_pad(
    em: &mut Emitter,
    size: usize,
    low: &[i64],
    high: &[i64],
    interior: &[usize],
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<(Value, usize), String> {
    let op = "pad";
    let (&[x, value], &[x_dim, value_dim]) = (inputs, dims) else {
        return Err(format!("{op}: expects 2 inputs, got {}", inputs.len()));
    };
    // The operand padded along its batch axis `at` with nothing, by `value` when that is
    // unbatched and by zeros otherwise.
    let at = x_dim.unwrap_or(0);
    let batched_pad = |low: &[i64], high: &[i64], interior: &[usize]| -> Result<ShapeOp, String> {
        Ok(ShapeOp::Pad {
            low: inserted_at(op, "low", low, at, 0)?,
            high: inserted_at(op, "high", high, at, 0)?,
            interior: inserted_at(op, "interior", interior, at, 0)?,
        })
    };
    let Some(value_dim) = value_dim else {
        let pad = batched_pad(low, high, interior)?;
        return Ok((em.op(pad, &[x, value])?, at));
    };
    if value_dim != 0 {
        return Err(format!("{op}: the padding value is a scalar, so it can only be batched at axis 0"));
    }
    let x_ty = em.ty(x).clone();
    let zero = em.zeros(&Type::scalar(x_ty.dtype))?;
    let padded = match x_dim {
        Some(_) => {
            let pad = batched_pad(low, high, interior)?;
            em.op(pad, &[x, zero])?
        }
        None => {
            let pad = ShapeOp::Pad { low: low.to_vec(), high: high.to_vec(), interior: interior.to_vec() };
            let padded = em.op(pad, &[x, zero])?;
            em.add_batch_axis(padded, size, at)?
        }
    };
    // `true` where an operand element landed, in the unbatched output shape.
    let mut example_shape = x_ty.shape.clone();
    if x_dim.is_some() {
        example_shape.remove(at);
    }
    let inside = em.full(&Type::new(DType::Bool, &example_shape), 1.0)?;
    let outside = em.full(&Type::scalar(DType::Bool), 0.0)?;
    let pad = ShapeOp::Pad { low: low.to_vec(), high: high.to_vec(), interior: interior.to_vec() };
    let mask = em.op(pad, &[inside, outside])?;
    let mask = em.add_batch_axis(mask, size, at)?;
    let out_shape = em.ty(padded).shape.clone();
    let values = em.broadcast_in_dim(value, &out_shape, &[at])?;
    Ok((em.select(mask, padded, values)?, at))
}
