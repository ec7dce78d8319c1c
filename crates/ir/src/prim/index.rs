//! Indexing primitives: `dynamic_slice`, `dynamic_update_slice`, `gather`,
//! `scatter_add`. Indices are i32 and clamped so that every access is in bounds.

use super::{check_axis, check_len, expect_arity};
use crate::Type;
use ferrax_array::Array;
use ferrax_array::{DType, Shape};

fn check_start_indices(op: &str, indices: &[Type], rank: usize) -> Result<(), String> {
    if indices.len() != rank {
        return Err(format!("{op}: expects {rank} start indices (one per axis), got {}", indices.len()));
    }
    for (i, ty) in indices.iter().enumerate() {
        if ty.dtype != DType::I32 || ty.rank() != 0 {
            return Err(format!("{op}: start index {i} must be i32[], got {ty}"));
        }
    }
    Ok(())
}

// ---- type rules ----

pub(crate) fn infer_dynamic_slice(sizes: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "dynamic_slice";
    let Some((x, indices)) = inputs.split_first() else {
        return Err(format!("{op}: expects an operand and start indices, got 0 operands"));
    };
    check_start_indices(op, indices, x.rank())?;
    check_len(op, "sizes", sizes.len(), x.rank())?;
    for (axis, (&size, &dim)) in sizes.iter().zip(x.shape.iter()).enumerate() {
        if size > dim {
            return Err(format!("{op}: size {size} of axis {axis} exceeds the operand's {dim} ({x})"));
        }
    }
    Ok(vec![Type::new(x.dtype, sizes)])
}

pub(crate) fn infer_dynamic_update_slice(inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "dynamic_update_slice";
    if inputs.len() < 2 {
        return Err(format!("{op}: expects an operand, an update and start indices, got {} operands", inputs.len()));
    }
    let (x, update) = (&inputs[0], &inputs[1]);
    if update.dtype != x.dtype
        || update.rank() != x.rank()
        || update.shape.iter().zip(x.shape.iter()).any(|(u, d)| u > d)
    {
        return Err(format!("{op}: update {update} does not fit in operand {x}"));
    }
    check_start_indices(op, &inputs[2..], x.rank())?;
    Ok(vec![x.clone()])
}

/// The result shape of `gather`: `x.shape[:axis] + idx.shape[batch_dims:] + x.shape[axis+1:]`.
fn gather_shape(op: &str, axis: usize, batch_dims: usize, x: &Type, idx: &Type) -> Result<Shape, String> {
    if idx.dtype != DType::I32 {
        return Err(format!("{op}: indices must be i32, got {idx}"));
    }
    check_axis(op, "axis", axis, x.rank())?;
    if batch_dims > axis || batch_dims > idx.rank() {
        return Err(format!(
            "{op}: batch_dims={batch_dims} must be <= axis ({axis}) and <= the indices' rank ({})",
            idx.rank()
        ));
    }
    if x.shape[..batch_dims] != idx.shape[..batch_dims] {
        return Err(format!("{op}: the {batch_dims} leading batch axes differ: {x} vs {idx}"));
    }
    let mut shape: Shape = x.shape[..axis].into();
    shape.extend_from_slice(&idx.shape[batch_dims..]);
    shape.extend_from_slice(&x.shape[axis + 1..]);
    Ok(shape)
}

pub(crate) fn infer_gather(axis: usize, batch_dims: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("gather", inputs, 2)?;
    let shape = gather_shape("gather", axis, batch_dims, &inputs[0], &inputs[1])?;
    Ok(vec![Type { dtype: inputs[0].dtype, shape }])
}

pub(crate) fn infer_scatter_add(axis: usize, batch_dims: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "scatter_add";
    expect_arity(op, inputs, 3)?;
    let (x, idx, updates) = (&inputs[0], &inputs[1], &inputs[2]);
    if x.dtype == DType::Bool {
        return Err(format!("{op}: operand must be numeric, got {x}"));
    }
    let shape = gather_shape(op, axis, batch_dims, x, idx)?;
    let expected = Type { dtype: x.dtype, shape };
    if *updates != expected {
        return Err(format!("{op}: updates must be {expected}, got {updates}"));
    }
    Ok(vec![x.clone()])
}

// ---- evaluation (the reference interpreter's rules) ----

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_dynamic_slice(sizes: &[usize], x: &Array, starts: &[&Array]) -> Result<ferrax_array::Array, String> {
    let _ = (sizes, x, starts);
    Err("eval_dynamic_slice is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_dynamic_update_slice(
    x: &Array,
    update: &Array,
    starts: &[&Array],
) -> Result<ferrax_array::Array, String> {
    let _ = (x, update, starts);
    Err("eval_dynamic_update_slice is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_gather(
    axis: usize,
    batch_dims: usize,
    x: &Array,
    indices: &Array,
) -> Result<ferrax_array::Array, String> {
    let _ = (axis, batch_dims, x, indices);
    Err("eval_gather is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_scatter_add(
    axis: usize,
    batch_dims: usize,
    x: &Array,
    indices: &Array,
    updates: &Array,
) -> Result<ferrax_array::Array, String> {
    let _ = (axis, batch_dims, x, indices, updates);
    Err("eval_scatter_add is not written yet".into())
}
