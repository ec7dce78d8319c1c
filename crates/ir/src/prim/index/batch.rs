//! Batching of the indexing primitives.

use super::*;

/// The batching rule of the indexing primitives. Batch axes stay where they are when
/// the primitive can be renumbered around them; per-example start indices become
/// `gather`s with one leading batch axis (`batch_dims=1`), never a loop:
///
/// - `dynamic_slice(x, i...)` with unbatched indices: a start of 0 and the full size
///   for `x`'s batch axis. With batched indices, `x` is batched at 0; the axes with
///   unbatched starts are cut by one `dynamic_slice` (full range elsewhere), then each
///   axis k with per-example starts is cut by a `gather` along it, at the indices
///   `clamp(i_k, 0, dim - size) + iota(size)` of each example (the clamp is the one
///   `dynamic_slice` applies, so the window fits and the gather's own clamp never
///   acts). Axes the slice covers whole need nothing: their start is always 0.
/// - `dynamic_update_slice(x, u, i...)` with unbatched indices: `x` and `u` share a
///   batch axis (that of `x`, else of `u`) with a start of 0. With batched indices,
///   `x` and `u` are batched at 0 and the result is `select(mask, g, x)`, where along
///   each axis k (of the clamped start `c_k` and update size `n_k`) position `p` of
///   `x` is inside the window when `0 <= p - c_k < n_k`, `mask` is the AND over the
///   axes, and `g` is `u` gathered at `p - c_k` axis by axis (spread to `x`'s shape).
///   This is exact for every dtype: bool (which `scatter_add` rejects) as well as the
///   floats, where writing by `scatter_add(x, u - old)` would round and turn an
///   infinite `old` into NaN.
/// - `gather(x, idx)`: both batched, both move to 0 and `batch_dims` and `axis` grow
///   by 1. Only `x` batched at `d`: a batch axis among the shared batch axes moves to
///   `batch_dims`; otherwise it stays, before (`d <= axis`: `axis` grows by 1) or
///   after the indexed axis. Only `idx` batched: its batch axis becomes one of the
///   index axes (moved to `batch_dims` if it was a shared batch axis) and lands in
///   the result at `axis` plus its place among the index axes. Nothing is broadcast.
/// - `scatter_add(x, idx, updates)`: with unbatched indices, `x` and `updates` share
///   a batch axis between the shared batch axes and the indexed one (moved or
///   broadcast there) and `axis` grows by 1; with batched indices, everything is
///   batched at 0 and `batch_dims` and `axis` grow by 1.
pub(crate) fn batch_index(
    em: &mut Emitter,
    prim: &IndexOp,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<crate::prim::batch::Batched, String> {
    let op = prim.name();
    crate::prim::shape::check_batch_dims(em, op, inputs, dims)?;
    let (out, dim) = match prim {
        IndexOp::DynamicSlice { sizes } => batch_dynamic_slice(em, sizes, size, inputs, dims)?,
        IndexOp::DynamicUpdateSlice => batch_dynamic_update_slice(em, size, inputs, dims)?,
        IndexOp::Gather { axis, batch_dims } => batch_gather(em, *axis, *batch_dims, inputs, dims)?,
        IndexOp::ScatterAdd { axis, batch_dims } => batch_scatter_add(em, *axis, *batch_dims, size, inputs, dims)?,
    };
    Ok((vec![out], vec![Some(dim)]))
}

/// An i32 scalar constant.
fn i32_scalar(em: &mut Emitter, value: usize) -> Result<Value, String> {
    let value = i32::try_from(value).map_err(|_| format!("index {value} does not fit i32"))?;
    em.full(&Type::scalar(DType::I32), f64::from(value))
}

/// `start` (an i32 scalar batched at `dim`, or unbatched) as one start per example,
/// `i32[size]`, clamped to `[0, max]` as the dynamic slices clamp their starts.
fn clamped_starts_batched(
    em: &mut Emitter,
    start: Value,
    dim: Option<usize>,
    size: usize,
    max: usize,
) -> Result<Value, String> {
    let max = i32::try_from(max).map_err(|_| format!("start bound {max} does not fit i32"))?;
    let start = em.batch_at(start, dim, size, 0)?;
    let ty = Type::new(DType::I32, &[size]);
    let lo = em.zeros(&ty)?;
    let hi = em.full(&ty, f64::from(max))?;
    em.op(Prim::Ternary(TernaryOp::Clamp), &[lo, start, hi])
}

/// `j + starts[n]` (`j - starts[n]` when `negate`) at `[n, j]` for `j` in `0..len`, as
/// `i32[size, len]`: the window indices of each example's slice, or where each position
/// falls in each example's update.
fn offsets(em: &mut Emitter, starts: Value, size: usize, len: usize, negate: bool) -> Result<Value, String> {
    let shape = [size, len];
    let iota = em.iota(&shape, 1)?;
    let starts = em.broadcast_in_dim(starts, &shape, &[0])?;
    if negate { em.sub(iota, starts) } else { em.add(iota, starts) }
}

/// The shape of batched `x`, which must have one axis per start index plus the batch
/// axis (at 0).
fn batched_shape(em: &Emitter, op: &str, x: Value, starts: usize) -> Result<Shape, String> {
    let shape = em.ty(x).shape.clone();
    if shape.len() != starts + 1 {
        return Err(format!("{op}: expects one start index per axis of {}, got {starts}", em.ty(x)));
    }
    Ok(shape)
}

/// The batching rule of `dynamic_slice` (see [`batch_index`]).
fn batch_dynamic_slice(
    em: &mut Emitter,
    sizes: &[usize],
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<(Value, usize), String> {
    let op = "dynamic_slice";
    let (Some((&x, starts)), Some((&x_dim, start_dims))) = (inputs.split_first(), dims.split_first()) else {
        return Err(format!("{op}: expects an operand and start indices, got no inputs"));
    };
    if sizes.len() != starts.len() {
        return Err(format!("{op}: {} sizes for {} start indices", sizes.len(), starts.len()));
    }
    if start_dims.iter().all(Option::is_none) {
        let zero = i32_scalar(em, 0)?;
        let d = x_dim.ok_or_else(|| format!("{op}: no batched input"))?;
        let mut new_inputs = vec![x];
        new_inputs.extend(crate::prim::shape::inserted_at(op, "the start indices", starts, d, zero)?);
        let sizes = crate::prim::shape::inserted_at(op, "sizes", sizes, d, size)?;
        return Ok((em.op(IndexOp::DynamicSlice { sizes }, &new_inputs)?, d));
    }
    let mut x = em.batch_at(x, x_dim, size, 0)?;
    let shape = batched_shape(em, op, x, starts.len())?;
    let axis_sizes = shape.get(1..).unwrap_or_default();
    for (k, (&len, &dim)) in sizes.iter().zip(axis_sizes).enumerate() {
        if len > dim {
            return Err(format!("{op}: size {len} of axis {k} exceeds the operand's {dim}"));
        }
    }
    // The axes with unbatched starts, in one dynamic_slice (if any of them is cut).
    if start_dims.iter().zip(sizes.iter().zip(axis_sizes)).any(|(d, (len, dim))| d.is_none() && len < dim) {
        let zero = i32_scalar(em, 0)?;
        let mut new_inputs = vec![x, zero];
        let mut new_sizes = vec![size];
        for ((&start, &d), (&len, &dim)) in starts.iter().zip(start_dims).zip(sizes.iter().zip(axis_sizes)) {
            let unbatched = d.is_none();
            new_inputs.push(if unbatched { start } else { zero });
            new_sizes.push(if unbatched { len } else { dim });
        }
        x = em.op(IndexOp::DynamicSlice { sizes: new_sizes }, &new_inputs)?;
    }
    // Then one gather per axis with per-example starts.
    for (k, ((&start, &d), (&len, &dim))) in starts.iter().zip(start_dims).zip(sizes.iter().zip(axis_sizes)).enumerate()
    {
        if d.is_none() || len == dim {
            continue;
        }
        let first = clamped_starts_batched(em, start, d, size, dim - len)?;
        let idx = offsets(em, first, size, len, false)?;
        x = em.op(IndexOp::Gather { axis: k + 1, batch_dims: 1 }, &[x, idx])?;
    }
    Ok((x, 0))
}

/// The batching rule of `dynamic_update_slice` (see [`batch_index`]).
fn batch_dynamic_update_slice(
    em: &mut Emitter,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<(Value, usize), String> {
    let op = "dynamic_update_slice";
    let (&[x, update, ref starts @ ..], &[x_dim, update_dim, ref start_dims @ ..]) = (inputs, dims) else {
        return Err(format!("{op}: expects an operand, an update and start indices, got {} inputs", inputs.len()));
    };
    if start_dims.iter().all(Option::is_none) {
        let at = x_dim.or(update_dim).ok_or_else(|| format!("{op}: no batched input"))?;
        let x = em.batch_at(x, x_dim, size, at)?;
        let update = em.batch_at(update, update_dim, size, at)?;
        let zero = i32_scalar(em, 0)?;
        let mut new_inputs = vec![x, update];
        new_inputs.extend(crate::prim::shape::inserted_at(op, "the start indices", starts, at, zero)?);
        return Ok((em.op(IndexOp::DynamicUpdateSlice, &new_inputs)?, at));
    }
    let x = em.batch_at(x, x_dim, size, 0)?;
    let update = em.batch_at(update, update_dim, size, 0)?;
    let shape = batched_shape(em, op, x, starts.len())?;
    let update_shape = batched_shape(em, op, update, starts.len())?;
    let mut spread = update;
    let mut mask: Option<Value> = None;
    for (k, (&start, &d)) in starts.iter().zip(start_dims).enumerate() {
        let (dim, len) = (shape[k + 1], update_shape[k + 1]);
        if len > dim {
            return Err(format!("{op}: update {} does not fit in operand {}", em.ty(update), em.ty(x)));
        }
        if len == dim {
            // The window covers the axis: its start clamps to 0 and `spread` already fits.
            continue;
        }
        let first = clamped_starts_batched(em, start, d, size, dim - len)?;
        // rel[n, p] = p - first[n]: the update index that lands at position p.
        let rel = offsets(em, first, size, dim, true)?;
        spread = em.op(IndexOp::Gather { axis: k + 1, batch_dims: 1 }, &[spread, rel])?;
        let len_i32 = i32::try_from(len).map_err(|_| format!("{op}: update size {len} does not fit i32"))?;
        let rel_ty = em.ty(rel).clone();
        let lo = em.zeros(&rel_ty)?;
        let hi = em.full(&rel_ty, f64::from(len_i32))?;
        let above = em.ge(rel, lo)?;
        let below = em.lt(rel, hi)?;
        let inside = em.and(above, below)?;
        let inside = em.broadcast_in_dim(inside, &shape, &[0, k + 1])?;
        mask = Some(match mask {
            None => inside,
            Some(m) => em.and(m, inside)?,
        });
    }
    match mask {
        // Every axis is covered by the update: it replaces `x` whole.
        None => Ok((spread, 0)),
        Some(mask) => Ok((em.select(mask, spread, x)?, 0)),
    }
}

/// The batching rule of `gather` (see [`batch_index`]).
fn batch_gather(
    em: &mut Emitter,
    axis: usize,
    batch_dims: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<(Value, usize), String> {
    let op = "gather";
    let (&[x, idx], &[x_dim, idx_dim]) = (inputs, dims) else {
        return Err(format!("{op}: expects 2 inputs, got {}", inputs.len()));
    };
    let gather = |axis, batch_dims| IndexOp::Gather { axis, batch_dims };
    match (x_dim, idx_dim) {
        (Some(d), Some(e)) => {
            let x = em.move_axis(x, d, 0)?;
            let idx = em.move_axis(idx, e, 0)?;
            Ok((em.op(gather(axis + 1, batch_dims + 1), &[x, idx])?, 0))
        }
        (Some(d), None) => {
            let (x, d) = if d < batch_dims { (em.move_axis(x, d, batch_dims)?, batch_dims) } else { (x, d) };
            if d <= axis {
                Ok((em.op(gather(axis + 1, batch_dims), &[x, idx])?, d))
            } else {
                let index_axes = em.ty(idx).rank().checked_sub(batch_dims).ok_or_else(|| {
                    format!("{op}: batch_dims={batch_dims} exceeds the rank of the indices {}", em.ty(idx))
                })?;
                Ok((em.op(gather(axis, batch_dims), &[x, idx])?, d - 1 + index_axes))
            }
        }
        (None, Some(e)) => {
            let (idx, e) = if e < batch_dims { (em.move_axis(idx, e, batch_dims)?, batch_dims) } else { (idx, e) };
            Ok((em.op(gather(axis, batch_dims), &[x, idx])?, axis + e - batch_dims))
        }
        (None, None) => Err(format!("{op}: no batched input")),
    }
}

/// The batching rule of `scatter_add` (see [`batch_index`]).
fn batch_scatter_add(
    em: &mut Emitter,
    axis: usize,
    batch_dims: usize,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<(Value, usize), String> {
    let op = "scatter_add";
    let (&[x, idx, updates], &[x_dim, idx_dim, updates_dim]) = (inputs, dims) else {
        return Err(format!("{op}: expects 3 inputs, got {}", inputs.len()));
    };
    let scatter = |axis, batch_dims| IndexOp::ScatterAdd { axis, batch_dims };
    if idx_dim.is_none() {
        // Positions batch_dims..=axis of x come before the indexed axis, in x and in the
        // updates alike.
        let fits = |d: &usize| (batch_dims..=axis).contains(d);
        let at = x_dim.filter(fits).or(updates_dim.filter(|_| x_dim.is_none()).filter(fits)).unwrap_or(batch_dims);
        let x = em.batch_at(x, x_dim, size, at)?;
        let updates = em.batch_at(updates, updates_dim, size, at)?;
        return Ok((em.op(scatter(axis + 1, batch_dims), &[x, idx, updates])?, at));
    }
    let x = em.batch_at(x, x_dim, size, 0)?;
    let idx = em.batch_at(idx, idx_dim, size, 0)?;
    let updates = em.batch_at(updates, updates_dim, size, 0)?;
    Ok((em.op(scatter(axis + 1, batch_dims + 1), &[x, idx, updates])?, 0))
}
