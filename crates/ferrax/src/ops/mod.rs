//! Operations on [`Tensor`]s: each emits IR through the tracer, with NumPy-style
//! broadcasting and JAX-style dtype promotion made explicit as `broadcast_in_dim` and
//! `convert` equations.
//!
//! Promotion: tensor with tensor follows `bool < i32 < f32 < f64`. Rust scalars are
//! weakly typed, like JAX's Python scalars: they take the tensor's dtype (`x_f32 * 2.0`
//! stays f32), except that a float scalar with an integer or bool tensor gives f32 and
//! an integer scalar with a bool tensor gives i32.
//!
//! Every public operation is `#[track_caller]`: its IR equations carry the user's
//! source line, and so does any error it records.

mod arith;
pub mod collective;
pub mod compare;
pub mod conv;
pub mod create;
pub mod index;
pub(crate) mod lax;
mod linalg;
mod math;
pub mod operand;
pub mod padding;
mod reduce;
pub mod shape;
pub mod sort;
pub mod window;

pub use arith::Scalar;
pub(crate) use math::and_at;
pub use reduce::Axes;
pub(crate) use reduce::div_at;

use crate::Tensor;
use crate::tracer::{emit1, fail};
use ferrax_ir::prim::{BinaryOp, UnaryOp};
use ferrax_ir::{DType, Prim, Shape, Type};
use std::panic::Location;

/// The dtype two tensors promote to, on JAX's lattice: `bool < i32 < bf16, f16 < f32 <
/// f64`, where `bf16` and `f16` meet at `f32` (neither holds the other's values) and an
/// integer with a 16-bit float gives the 16-bit float.
pub fn promote(a: DType, b: DType) -> DType {
    if a == b {
        return a;
    }
    match (a, b) {
        (DType::BF16, DType::F16) | (DType::F16, DType::BF16) => DType::F32,
        _ => a.max(b),
    }
}

/// The dtype a tensor of `dtype` combined with a weakly typed scalar promotes to.
pub fn promote_weak(dtype: DType, scalar: &Scalar) -> DType {
    match (scalar, dtype) {
        (Scalar::Float(_), DType::Bool | DType::I32) => DType::F32,
        (Scalar::Int(_), DType::Bool) => DType::I32,
        _ => dtype,
    }
}

/// The NumPy broadcast of two shapes (aligned at the right; sizes equal or 1).
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Option<Shape> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y || y == 1 => Some(x),
            (1, y) => Some(y),
            _ => None,
        })
        .collect()
}

impl Tensor {
    /// `x^n` for a static integer `n` (`integer_pow`).
    #[track_caller]
    pub fn powi(&self, n: i32) -> Tensor {
        emit1(Prim::Unary(UnaryOp::IntegerPow { y: n }), &[self], Location::caller(), self.ty().clone())
    }

    /// Converts to `dtype` (no equation when it already is).
    #[track_caller]
    pub fn cast(&self, dtype: DType) -> Tensor {
        cast_at(self, dtype, Location::caller())
    }

    /// `x.astype(dtype)`, JAX's name for [`Tensor::cast`]: to a float, the value rounded
    /// once to nearest even; to `i32`, truncated (saturating, NaN to 0); to `bool`,
    /// `x != 0`.
    #[track_caller]
    pub fn astype(&self, dtype: DType) -> Tensor {
        cast_at(self, dtype, Location::caller())
    }

    /// Broadcasts to `shape` (NumPy rules: aligned at the right, size-1 axes expand).
    #[track_caller]
    pub fn broadcast_to(&self, shape: &[usize]) -> Tensor {
        broadcast_at(self, shape, Location::caller())
    }
}

/// A rank-0 constant of `dtype` holding `scalar`.
pub(crate) fn scalar_constant(scalar: Scalar, dtype: DType, location: &'static Location<'static>) -> Tensor {
    lax::constant(scalar.to_array(dtype), &[], location)
}

pub(crate) fn cast_at(x: &Tensor, dtype: DType, location: &'static Location<'static>) -> Tensor {
    if x.dtype() == dtype {
        return x.clone();
    }
    lax::convert(x, dtype, location)
}

pub(crate) fn broadcast_at(x: &Tensor, shape: &[usize], location: &'static Location<'static>) -> Tensor {
    if x.shape() == shape {
        return x.clone();
    }
    let target = Type::new(x.dtype(), shape);
    let fits = x.rank() <= shape.len() && broadcast_shapes(x.shape(), shape).is_some_and(|s| s.as_slice() == shape);
    if !fits {
        return fail(location, format!("broadcast_to: cannot broadcast {} to {target}", x.ty()), target);
    }
    let offset = shape.len() - x.rank();
    let dims = (offset..shape.len()).collect();
    lax::broadcast_in_dim(x, shape, dims, location)
}

/// Promotes and broadcasts two operands to a common type.
pub(crate) fn unify(a: &Tensor, b: &Tensor, op: &str, location: &'static Location<'static>) -> (Tensor, Tensor) {
    let dtype = promote(a.dtype(), b.dtype());
    let Some(shape) = broadcast_shapes(a.shape(), b.shape()) else {
        let message = format!("{op}: cannot broadcast {} with {}", a.ty(), b.ty());
        let poisoned = fail(location, message, Type::new(dtype, a.shape()));
        return (poisoned.clone(), poisoned);
    };
    let a = broadcast_at(&cast_at(a, dtype, location), &shape, location);
    let b = broadcast_at(&cast_at(b, dtype, location), &shape, location);
    (a, b)
}

/// `op(a, b)` elementwise after promotion and broadcasting.
pub(crate) fn binary_at(op: BinaryOp, a: &Tensor, b: &Tensor, location: &'static Location<'static>) -> Tensor {
    let (a, b) = unify(a, b, op.name(), location);
    lax::binary(op, &a, &b, location)
}

/// `op(x)` elementwise; integer operands of float-only ops are converted to f32 first,
/// as `jnp` does.
pub(crate) fn unary_at(op: UnaryOp, x: &Tensor, location: &'static Location<'static>) -> Tensor {
    let x = if !op.domain().accepts(x.dtype()) && op.domain() == ferrax_ir::prim::unary::UnaryDomain::Float {
        cast_at(x, DType::F32, location)
    } else {
        x.clone()
    };
    lax::unary(op, &x, location)
}

macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {
        impl Tensor {
            $(
                $(#[$doc])*
                #[track_caller]
                pub fn $name(&self) -> Tensor {
                    unary_at(UnaryOp::$op, self, Location::caller())
                }
            )*
        }
    };
}

unary_methods! {
    /// `e^x`.
    exp => Exp,
    /// Natural logarithm.
    log => Log,
    /// `log(1 + x)`.
    log1p => Log1p,
    /// `e^x - 1`.
    expm1 => Expm1,
    /// Sine.
    sin => Sin,
    /// Cosine.
    cos => Cos,
    /// Tangent.
    tan => Tan,
    /// Hyperbolic tangent.
    tanh => Tanh,
    /// The logistic sigmoid `1 / (1 + e^-x)`.
    sigmoid => Logistic,
    /// Square root.
    sqrt => Sqrt,
    /// `1 / sqrt(x)`.
    rsqrt => Rsqrt,
    /// Absolute value.
    abs => Abs,
    /// -1, 0 or 1.
    sign => Sign,
    /// Round toward -inf.
    floor => Floor,
    /// Round toward +inf.
    ceil => Ceil,
    /// Round half to even.
    round => Round,
    /// The error function.
    erf => Erf,
    /// Neither inf nor NaN (bool result).
    is_finite => IsFinite,
    /// Logical (bool) or bitwise (i32) not.
    not => Not,
}
