//! Reductions: `reduce_sum`, `reduce_max`, `reduce_min`, `reduce_prod`, `argmax`,
//! `argmin`, `cumsum`. A reduction over zero elements gives the identity.

use super::unary::{UnaryDomain, expect_domain};
use super::{check_axes, check_axis, expect_arity};
use crate::Type;
use ferrax_array::Array;
use ferrax_array::{DType, Shape};

/// A reduction over axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum (identity 0).
    Sum,
    /// Maximum (identity -inf / i32::MIN); NaN propagates.
    Max,
    /// Minimum (identity +inf / i32::MAX); NaN propagates.
    Min,
    /// Product (identity 1).
    Prod,
}

impl ReduceOp {
    /// Every reduction.
    pub const ALL: [ReduceOp; 4] = [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod];

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "reduce_sum",
            ReduceOp::Max => "reduce_max",
            ReduceOp::Min => "reduce_min",
            ReduceOp::Prod => "reduce_prod",
        }
    }

    /// The reduction named `name`.
    pub fn from_name(name: &str) -> Option<ReduceOp> {
        ReduceOp::ALL.into_iter().find(|op| op.name() == name)
    }
}

/// `argmax` or `argmin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgOp {
    /// Index of the first maximum (a NaN counts as the maximum).
    Argmax,
    /// Index of the first minimum (a NaN counts as the minimum).
    Argmin,
}

impl ArgOp {
    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            ArgOp::Argmax => "argmax",
            ArgOp::Argmin => "argmin",
        }
    }
}

// ---- type rules ----

pub(crate) fn infer_reduce(op: ReduceOp, axes: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 1)?;
    let x = &inputs[0];
    expect_domain(op.name(), UnaryDomain::Numeric, x)?;
    check_axes(op.name(), "axis", axes, x.rank())?;
    let shape: Shape = (0..x.rank()).filter(|a| !axes.contains(a)).map(|a| x.shape[a]).collect();
    Ok(vec![Type { dtype: x.dtype, shape }])
}

pub(crate) fn infer_arg_reduce(
    op: ArgOp,
    axis: usize,
    index_dtype: DType,
    inputs: &[Type],
) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 1)?;
    let x = &inputs[0];
    expect_domain(op.name(), UnaryDomain::Numeric, x)?;
    check_axis(op.name(), "axis", axis, x.rank())?;
    if x.shape[axis] == 0 {
        return Err(format!("{}: axis {axis} of {x} has no elements", op.name()));
    }
    if index_dtype != DType::I32 {
        return Err(format!("{}: index_dtype must be i32, got {index_dtype}", op.name()));
    }
    let shape: Shape = (0..x.rank()).filter(|&a| a != axis).map(|a| x.shape[a]).collect();
    Ok(vec![Type { dtype: index_dtype, shape }])
}

pub(crate) fn infer_cumsum(axis: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("cumsum", inputs, 1)?;
    expect_domain("cumsum", UnaryDomain::Numeric, &inputs[0])?;
    check_axis("cumsum", "axis", axis, inputs[0].rank())?;
    Ok(vec![inputs[0].clone()])
}

// ---- evaluation (the reference interpreter's rules) ----

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_reduce(op: ReduceOp, axes: &[usize], x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (op, axes, x);
    Err("eval_reduce is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_arg_reduce(op: ArgOp, axis: usize, x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (op, axis, x);
    Err("eval_arg_reduce is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_cumsum(axis: usize, reverse: bool, x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (axis, reverse, x);
    Err("eval_cumsum is not written yet".into())
}
