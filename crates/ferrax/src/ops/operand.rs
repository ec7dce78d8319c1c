//! Operands that are either tensors or weakly typed Rust scalars, and the promotion
//! and broadcasting of several of them at once (`clamp(lo, hi)`, `where_(c, a, b)`).
//!
//! The rules are those of the operators (see the parent module): tensors promote
//! along `bool < i32 < f32 < f64` and broadcast NumPy-style; a scalar takes the
//! tensors' dtype unless its kind is higher (a float scalar with integer tensors gives
//! f32), and becomes a `constant` of the common shape.

use super::lax;
use super::{Scalar, broadcast_at, broadcast_shapes, cast_at, promote, promote_weak};
use crate::Tensor;
use crate::tracer::{emit1, fail};
use ferrax_ir::prim::{BinaryOp, CompareOp};
use ferrax_ir::{DType, Prim, Shape, Type};
use std::panic::Location;

/// An operand of an elementwise operation: a tensor or a weakly typed Rust scalar.
///
/// Operations taking `impl Into<Operand>` accept `&Tensor`, `Tensor`, `f32`, `f64`,
/// `i32` and `bool`: `x.maximum(0.0)`, `x.maximum(&y)`.
#[derive(Clone, Debug)]
pub enum Operand {
    /// A traced value.
    Tensor(Tensor),
    /// A Rust literal, typed by the tensors it meets.
    Scalar(Scalar),
}

impl From<Tensor> for Operand {
    fn from(tensor: Tensor) -> Operand {
        Operand::Tensor(tensor)
    }
}

impl From<&Tensor> for Operand {
    fn from(tensor: &Tensor) -> Operand {
        Operand::Tensor(tensor.clone())
    }
}

macro_rules! scalar_operand {
    ($($ty:ty),*) => {$(
        impl From<$ty> for Operand {
            fn from(scalar: $ty) -> Operand {
                Operand::Scalar(scalar.into())
            }
        }
    )*};
}

scalar_operand!(f32, f64, i32, bool, Scalar);

impl Operand {
    /// The operand as it appears in an error message: its type, or the literal.
    pub(crate) fn describe(&self) -> String {
        match self {
            Operand::Tensor(t) => t.ty().to_string(),
            Operand::Scalar(Scalar::Float(x)) => format!("{x:?}"),
            Operand::Scalar(Scalar::Int(i)) => i.to_string(),
            Operand::Scalar(Scalar::Bool(b)) => b.to_string(),
        }
    }

    fn tensor(&self) -> Option<&Tensor> {
        match self {
            Operand::Tensor(t) => Some(t),
            Operand::Scalar(_) => None,
        }
    }
}

/// The operands' descriptions joined as in the tracer's messages: `f32[2] x 2.0`.
pub(crate) fn describe_all(operands: &[&Operand]) -> String {
    operands.iter().map(|op| op.describe()).collect::<Vec<_>>().join(" x ")
}

/// The dtype a scalar has on its own: f32, i32 or bool.
fn scalar_dtype(scalar: &Scalar) -> DType {
    match scalar {
        Scalar::Float(_) => DType::F32,
        Scalar::Int(_) => DType::I32,
        Scalar::Bool(_) => DType::Bool,
    }
}

/// The dtype `operands` promote to: the tensors' common dtype, raised by the scalars'
/// kinds; without tensors, the highest of the scalars' own dtypes.
pub(crate) fn promote_operands(operands: &[&Operand]) -> DType {
    let strong = operands.iter().filter_map(|op| op.tensor()).map(Tensor::dtype).reduce(promote);
    let scalars = operands.iter().filter_map(|op| match op {
        Operand::Scalar(s) => Some(s),
        Operand::Tensor(_) => None,
    });
    match strong {
        Some(dtype) => scalars.fold(dtype, promote_weak),
        None => scalars.map(scalar_dtype).max().unwrap_or(DType::F32),
    }
}

/// The NumPy broadcast of the tensors' shapes (scalars have shape `[]`).
pub(crate) fn broadcast_operands(operands: &[&Operand]) -> Option<Shape> {
    operands.iter().filter_map(|op| op.tensor()).try_fold(Shape::new(), |shape, t| broadcast_shapes(&shape, t.shape()))
}

/// `operand` as a tensor of `dtype` and `shape` (which it must broadcast to).
pub(crate) fn materialize(
    operand: &Operand,
    dtype: DType,
    shape: &[usize],
    location: &'static Location<'static>,
) -> Tensor {
    match operand {
        Operand::Tensor(t) => broadcast_at(&cast_at(t, dtype, location), shape, location),
        Operand::Scalar(s) => lax::constant(s.to_array(dtype), shape, location),
    }
}

/// The operands' common shape, or an error naming `op` and every operand (and a
/// poisoned tensor of `dtype` to return).
pub(crate) fn common_shape(
    op: &str,
    operands: &[&Operand],
    dtype: DType,
    location: &'static Location<'static>,
) -> Result<Shape, Tensor> {
    broadcast_operands(operands).ok_or_else(|| {
        let types: Vec<String> = operands.iter().map(|op| op.describe()).collect();
        let first = operands.iter().find_map(|op| op.tensor()).map_or(Shape::new(), |t| t.ty().shape.clone());
        let message = format!("{op}: cannot broadcast {}", types.join(" with "));
        fail(location, message, Type { dtype, shape: first })
    })
}

/// Every operand as a tensor of `dtype` and the operands' common shape (poisoned
/// tensors after an error).
pub(crate) fn unify_operands<const N: usize>(
    op: &str,
    operands: [&Operand; N],
    dtype: DType,
    location: &'static Location<'static>,
) -> [Tensor; N] {
    match common_shape(op, &operands, dtype, location) {
        Ok(shape) => operands.map(|operand| materialize(operand, dtype, &shape, location)),
        Err(poisoned) => operands.map(|_| poisoned.clone()),
    }
}

/// `op(a, b)` elementwise after promotion (raised to at least f32 when `float_only`)
/// and broadcasting.
pub(crate) fn binary_operands(
    op: BinaryOp,
    a: &Operand,
    b: &Operand,
    float_only: bool,
    location: &'static Location<'static>,
) -> Tensor {
    let mut dtype = promote_operands(&[a, b]);
    if float_only && !dtype.is_float() {
        dtype = DType::F32;
    }
    let [a, b] = unify_operands(op.name(), [a, b], dtype, location);
    let ty = a.ty().clone();
    emit1(Prim::Binary(op), &[&a, &b], location, ty)
}

/// `op(a, b)` elementwise after promotion and broadcasting; the result is bool.
pub(crate) fn compare_operands(
    op: CompareOp,
    a: &Operand,
    b: &Operand,
    location: &'static Location<'static>,
) -> Tensor {
    let dtype = promote_operands(&[a, b]);
    let [a, b] = unify_operands(op.name(), [a, b], dtype, location);
    let ty = a.ty().with_dtype(DType::Bool);
    emit1(Prim::Compare(op), &[&a, &b], location, ty)
}
