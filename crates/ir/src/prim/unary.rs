//! Elementwise unary primitives: math, logic, `integer_pow`, `convert`,
//! `stop_gradient` and `name`.

use super::expect_arity;
use crate::Type;
use ferrax_array::Array;
use ferrax_array::DType;

/// An elementwise unary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `e^x`.
    Exp,
    /// Natural logarithm.
    Log,
    /// `log(1 + x)`, accurate near 0.
    Log1p,
    /// `e^x - 1`, accurate near 0.
    Expm1,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Tangent.
    Tan,
    /// Hyperbolic tangent.
    Tanh,
    /// `1 / (1 + e^-x)`.
    Logistic,
    /// Square root.
    Sqrt,
    /// `1 / sqrt(x)`.
    Rsqrt,
    /// Absolute value (wraps for `i32::MIN`).
    Abs,
    /// -1, 0 or 1 (NaN for NaN, signed zero kept).
    Sign,
    /// Round toward -inf.
    Floor,
    /// Round toward +inf.
    Ceil,
    /// Round half to even.
    Round,
    /// The error function.
    Erf,
    /// Logical not (bool) or bitwise not (i32).
    Not,
    /// Neither inf nor NaN; the result is bool.
    IsFinite,
}

/// Which dtypes a unary operation accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryDomain {
    /// f32, f64.
    Float,
    /// i32, f32, f64.
    Numeric,
    /// bool, i32.
    Logical,
}

impl UnaryOp {
    /// Every unary operation.
    pub const ALL: [UnaryOp; 20] = [
        UnaryOp::Neg,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Log1p,
        UnaryOp::Expm1,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::Tanh,
        UnaryOp::Logistic,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Abs,
        UnaryOp::Sign,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Erf,
        UnaryOp::Not,
        UnaryOp::IsFinite,
    ];

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Log1p => "log1p",
            UnaryOp::Expm1 => "expm1",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tan => "tan",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Logistic => "logistic",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Abs => "abs",
            UnaryOp::Sign => "sign",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Round => "round",
            UnaryOp::Erf => "erf",
            UnaryOp::Not => "not",
            UnaryOp::IsFinite => "is_finite",
        }
    }

    /// The operation named `name`.
    pub fn from_name(name: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The dtypes the operation accepts.
    pub fn domain(self) -> UnaryDomain {
        match self {
            UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign => UnaryDomain::Numeric,
            UnaryOp::Not => UnaryDomain::Logical,
            UnaryOp::Exp
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Expm1
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Tan
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Round
            | UnaryOp::Erf
            | UnaryOp::IsFinite => UnaryDomain::Float,
        }
    }
}

impl UnaryDomain {
    /// True when `dtype` is in the domain.
    pub fn accepts(self, dtype: DType) -> bool {
        match self {
            UnaryDomain::Float => dtype.is_float(),
            UnaryDomain::Numeric => dtype != DType::Bool,
            UnaryDomain::Logical => matches!(dtype, DType::Bool | DType::I32),
        }
    }

    /// A description for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            UnaryDomain::Float => "a float operand (f32, f64)",
            UnaryDomain::Numeric => "a numeric operand (i32, f32, f64)",
            UnaryDomain::Logical => "a bool or i32 operand",
        }
    }
}

/// Checks that a dtype is in a domain: `exp: expects a float operand (f32, f64), got i32[3]`.
pub(crate) fn expect_domain(op: &str, domain: UnaryDomain, ty: &Type) -> Result<(), String> {
    if domain.accepts(ty.dtype) { Ok(()) } else { Err(format!("{op}: expects {}, got {ty}", domain.describe())) }
}

// ---- type rules ----

pub(crate) fn infer_unary(op: UnaryOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 1)?;
    expect_domain(op.name(), op.domain(), &inputs[0])?;
    let dtype = if op == UnaryOp::IsFinite { DType::Bool } else { inputs[0].dtype };
    Ok(vec![inputs[0].with_dtype(dtype)])
}

pub(crate) fn infer_integer_pow(inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("integer_pow", inputs, 1)?;
    expect_domain("integer_pow", UnaryDomain::Numeric, &inputs[0])?;
    Ok(vec![inputs[0].clone()])
}

pub(crate) fn infer_convert(dtype: DType, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("convert", inputs, 1)?;
    Ok(vec![inputs[0].with_dtype(dtype)])
}

pub(crate) fn infer_identity(op: &str, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op, inputs, 1)?;
    Ok(vec![inputs[0].clone()])
}

// ---- evaluation (the reference interpreter's rules) ----

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_unary(op: UnaryOp, x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (op, x);
    Err("eval_unary is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_integer_pow(y: i32, x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (y, x);
    Err("eval_integer_pow is not written yet".into())
}

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_convert(dtype: DType, x: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (dtype, x);
    Err("eval_convert is not written yet".into())
}
