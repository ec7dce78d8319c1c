//! Structural primitives: `broadcast_in_dim`, `reshape`, `transpose`, `rev`, `slice`,
//! `pad`, `concatenate`, `iota`, `constant`. They move or create elements without
//! arithmetic.

use super::{check_axes, check_axis, check_len, expect_arity};
use crate::Type;
use ferrax_array::{Array, DType, Shape};

// ---- type rules ----

pub(crate) fn infer_broadcast_in_dim(shape: &[usize], dims: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "broadcast_in_dim";
    expect_arity(op, inputs, 1)?;
    let x = &inputs[0];
    check_len(op, "dims", dims.len(), x.rank())?;
    for (i, &d) in dims.iter().enumerate() {
        check_axis(op, "dims entry", d, shape.len())?;
        if i > 0 && dims[i - 1] >= d {
            return Err(format!("{op}: dims must be strictly increasing, got {dims:?}"));
        }
        if x.shape[i] != shape[d] && x.shape[i] != 1 {
            return Err(format!(
                "{op}: operand axis {i} has size {} but output axis {d} has size {} (must be equal or 1)",
                x.shape[i], shape[d]
            ));
        }
    }
    Ok(vec![Type::new(x.dtype, shape)])
}

pub(crate) fn infer_reshape(shape: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("reshape", inputs, 1)?;
    let x = &inputs[0];
    let out = Type::new(x.dtype, shape);
    match (x.element_count(), out.element_count()) {
        (Some(a), Some(b)) if a == b => Ok(vec![out]),
        (a, b) => Err(format!(
            "reshape: element counts differ: {x} has {} but {out} has {}",
            a.map_or("too many".into(), |n| n.to_string()),
            b.map_or("too many".into(), |n| n.to_string())
        )),
    }
}

pub(crate) fn infer_transpose(perm: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "transpose";
    expect_arity(op, inputs, 1)?;
    let x = &inputs[0];
    check_len(op, "perm", perm.len(), x.rank())?;
    check_axes(op, "perm entry", perm, x.rank()).map_err(|e| format!("{e} ({perm:?} is not a permutation)"))?;
    let shape: Shape = perm.iter().map(|&p| x.shape[p]).collect();
    Ok(vec![Type { dtype: x.dtype, shape }])
}

pub(crate) fn infer_rev(axes: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("rev", inputs, 1)?;
    check_axes("rev", "axis", axes, inputs[0].rank())?;
    Ok(vec![inputs[0].clone()])
}

pub(crate) fn infer_slice(
    start: &[usize],
    limit: &[usize],
    strides: &[usize],
    inputs: &[Type],
) -> Result<Vec<Type>, String> {
    let op = "slice";
    expect_arity(op, inputs, 1)?;
    let x = &inputs[0];
    check_len(op, "start", start.len(), x.rank())?;
    check_len(op, "limit", limit.len(), x.rank())?;
    check_len(op, "strides", strides.len(), x.rank())?;
    let mut shape = Shape::new();
    for axis in 0..x.rank() {
        let (s, l, st, d) = (start[axis], limit[axis], strides[axis], x.shape[axis]);
        if st == 0 {
            return Err(format!("{op}: stride of axis {axis} is 0 (strides must be > 0)"));
        }
        if s > l || l > d {
            return Err(format!("{op}: axis {axis} bounds start={s}, limit={l} do not fit 0 <= start <= limit <= {d}"));
        }
        shape.push((l - s).div_ceil(st));
    }
    Ok(vec![Type { dtype: x.dtype, shape }])
}

pub(crate) fn infer_pad(low: &[i64], high: &[i64], interior: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "pad";
    expect_arity(op, inputs, 2)?;
    let (x, value) = (&inputs[0], &inputs[1]);
    if value.dtype != x.dtype || value.rank() != 0 {
        return Err(format!("{op}: padding value must be a {} scalar, got {value}", x.dtype));
    }
    check_len(op, "low", low.len(), x.rank())?;
    check_len(op, "high", high.len(), x.rank())?;
    check_len(op, "interior", interior.len(), x.rank())?;
    let mut shape = Shape::new();
    for axis in 0..x.rank() {
        let d = x.shape[axis] as i128;
        let size = low[axis] as i128 + high[axis] as i128 + d + (d - 1).max(0) * interior[axis] as i128;
        let size = usize::try_from(size).map_err(|_| {
            format!(
                "{op}: axis {axis} of size {d} padded by low={}, high={}, interior={} has size {size}",
                low[axis], high[axis], interior[axis]
            )
        })?;
        shape.push(size);
    }
    Ok(vec![Type { dtype: x.dtype, shape }])
}

pub(crate) fn infer_concatenate(axis: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "concatenate";
    let Some(first) = inputs.first() else {
        return Err(format!("{op}: expects at least 1 operand, got 0"));
    };
    check_axis(op, "axis", axis, first.rank())?;
    let mut shape = first.shape.clone();
    for (i, x) in inputs.iter().enumerate().skip(1) {
        let same_other_dims =
            x.rank() == first.rank() && (0..x.rank()).all(|a| a == axis || x.shape[a] == first.shape[a]);
        if x.dtype != first.dtype || !same_other_dims {
            return Err(format!(
                "{op}: operand {i} is {x}, which does not match operand 0 {first} except on axis {axis}"
            ));
        }
        shape[axis] = shape[axis].checked_add(x.shape[axis]).ok_or_else(|| format!("{op}: size overflows"))?;
    }
    Ok(vec![Type { dtype: first.dtype, shape }])
}

pub(crate) fn infer_iota(dtype: DType, shape: &[usize], dim: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("iota", inputs, 0)?;
    check_axis("iota", "dim", dim, shape.len())?;
    if dtype == DType::Bool {
        return Err("iota: dtype must be numeric, got bool".into());
    }
    Ok(vec![Type::new(dtype, shape)])
}

pub(crate) fn infer_constant(value: &Array, shape: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("constant", inputs, 0)?;
    if value.rank() != 0 && value.shape() != shape {
        return Err(format!(
            "constant: value has shape {:?} but the result shape is {shape:?} (give a scalar or the full shape)",
            value.shape()
        ));
    }
    Ok(vec![Type::new(value.dtype(), shape)])
}

// ---- evaluation (the reference interpreter's rules) ----

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_broadcast_in_dim(shape: &[usize], dims: &[usize], x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (shape, dims, x);
    Err("eval_broadcast_in_dim is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_reshape(shape: &[usize], x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (shape, x);
    Err("eval_reshape is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_transpose(perm: &[usize], x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (perm, x);
    Err("eval_transpose is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_rev(axes: &[usize], x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (axes, x);
    Err("eval_rev is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_slice(
    start: &[usize],
    limit: &[usize],
    strides: &[usize],
    x: &Array,
) -> Result<ferrax_array::Array, String> {
    let _ = (start, limit, strides, x);
    Err("eval_slice is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_pad(
    low: &[i64],
    high: &[i64],
    interior: &[usize],
    x: &Array,
    value: &Array,
) -> Result<ferrax_array::Array, String> {
    let _ = (low, high, interior, x, value);
    Err("eval_pad is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_concatenate(axis: usize, xs: &[&Array]) -> Result<ferrax_array::Array, String> {
    let _ = (axis, xs);
    Err("eval_concatenate is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_iota(dtype: DType, shape: &[usize], dim: usize) -> Result<ferrax_array::Array, String> {
    let _ = (dtype, shape, dim);
    Err("eval_iota is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_constant(value: &Array, shape: &[usize]) -> Result<ferrax_array::Array, String> {
    let _ = (value, shape);
    Err("eval_constant is not written yet".into())
}
