//! Elementwise binary primitives: arithmetic, logic, comparisons, `select`, `clamp`.
//!
//! No implicit broadcasting or promotion: operands have the same type (the tracer
//! inserts `broadcast_in_dim` and `convert`).

use super::unary::{UnaryDomain, expect_domain};
use super::{expect_arity, expect_same};
use crate::Type;
use ferrax_array::Array;
use ferrax_array::DType;

/// An elementwise binary operation with a result of the operands' type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `x + y` (wrapping for i32).
    Add,
    /// `x - y`.
    Sub,
    /// `x * y`.
    Mul,
    /// `x / y`; i32 truncates and never traps (x/0 = -1, MIN/-1 = MIN).
    Div,
    /// Remainder with the sign of `x`; i32 rem(x, 0) = x, rem(MIN, -1) = 0.
    Rem,
    /// `x^y` (floats).
    Pow,
    /// Maximum; NaN propagates.
    Max,
    /// Minimum; NaN propagates.
    Min,
    /// `atan2(x, y)` (floats).
    Atan2,
    /// Logical (bool) or bitwise (i32) and.
    And,
    /// Logical (bool) or bitwise (i32) or.
    Or,
}

impl BinaryOp {
    /// Every binary operation.
    pub const ALL: [BinaryOp; 11] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Pow,
        BinaryOp::Max,
        BinaryOp::Min,
        BinaryOp::Atan2,
        BinaryOp::And,
        BinaryOp::Or,
    ];

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::Pow => "pow",
            BinaryOp::Max => "max",
            BinaryOp::Min => "min",
            BinaryOp::Atan2 => "atan2",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
        }
    }

    /// The operation named `name`.
    pub fn from_name(name: &str) -> Option<BinaryOp> {
        BinaryOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The dtypes the operation accepts.
    pub fn domain(self) -> UnaryDomain {
        match self {
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Rem
            | BinaryOp::Max
            | BinaryOp::Min => UnaryDomain::Numeric,
            BinaryOp::Pow | BinaryOp::Atan2 => UnaryDomain::Float,
            BinaryOp::And | BinaryOp::Or => UnaryDomain::Logical,
        }
    }
}

/// An elementwise comparison; the result is `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `==` (NaN is unequal to everything).
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CompareOp {
    /// Every comparison.
    pub const ALL: [CompareOp; 6] =
        [CompareOp::Eq, CompareOp::Ne, CompareOp::Lt, CompareOp::Le, CompareOp::Gt, CompareOp::Ge];

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }

    /// The comparison named `name`.
    pub fn from_name(name: &str) -> Option<CompareOp> {
        CompareOp::ALL.into_iter().find(|op| op.name() == name)
    }
}

// ---- type rules ----

pub(crate) fn infer_binary(op: BinaryOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 2)?;
    expect_same(op.name(), &inputs[0], &inputs[1])?;
    expect_domain(op.name(), op.domain(), &inputs[0])?;
    Ok(vec![inputs[0].clone()])
}

pub(crate) fn infer_compare(op: CompareOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 2)?;
    expect_same(op.name(), &inputs[0], &inputs[1])?;
    Ok(vec![inputs[0].with_dtype(DType::Bool)])
}

pub(crate) fn infer_select(inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("select", inputs, 3)?;
    let (pred, on_true, on_false) = (&inputs[0], &inputs[1], &inputs[2]);
    if pred.dtype != DType::Bool {
        return Err(format!("select: the predicate must be bool, got {pred}"));
    }
    expect_same("select", on_true, on_false)?;
    if pred.shape != on_true.shape {
        return Err(format!("select: predicate shape differs from the operands: {pred} vs {on_true}"));
    }
    Ok(vec![on_true.clone()])
}

pub(crate) fn infer_clamp(inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("clamp", inputs, 3)?;
    expect_same("clamp", &inputs[0], &inputs[1])?;
    expect_same("clamp", &inputs[1], &inputs[2])?;
    expect_domain("clamp", UnaryDomain::Numeric, &inputs[1])?;
    Ok(vec![inputs[1].clone()])
}

// ---- evaluation (the reference interpreter's rules) ----

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_binary(op: BinaryOp, x: &Array, y: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (op, x, y);
    Err("eval_binary is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_compare(op: CompareOp, x: &Array, y: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (op, x, y);
    Err("eval_compare is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_select(pred: &Array, on_true: &Array, on_false: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (pred, on_true, on_false);
    Err("eval_select is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_clamp(lo: &Array, x: &Array, hi: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (lo, x, hi);
    Err("eval_clamp is not written yet".into())
}
