//! Arithmetic operators (`+ - * /`, unary `-`) between tensors and with Rust scalars
//! on either side.

use super::lax;
use super::{binary_at, promote_weak};
use crate::Tensor;
use ferrax_ir::prim::{BinaryOp, UnaryOp};
use ferrax_ir::{Array, DType};
use std::ops::{Add, Div, Mul, Neg, Sub};
use std::panic::Location;

/// A weakly typed Rust scalar: it takes the dtype of the tensor it meets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A float literal.
    Float(f64),
    /// An integer literal.
    Int(i64),
    /// A bool literal.
    Bool(bool),
}

impl From<f32> for Scalar {
    fn from(x: f32) -> Scalar {
        Scalar::Float(f64::from(x))
    }
}

impl From<f64> for Scalar {
    fn from(x: f64) -> Scalar {
        Scalar::Float(x)
    }
}

impl From<i32> for Scalar {
    fn from(x: i32) -> Scalar {
        Scalar::Int(i64::from(x))
    }
}

impl From<bool> for Scalar {
    fn from(x: bool) -> Scalar {
        Scalar::Bool(x)
    }
}

impl Scalar {
    /// This value as a rank-0 array of `dtype` (floats round, ints wrap, bools are 0/1).
    pub fn to_array(self, dtype: DType) -> Array {
        let as_f64 = match self {
            Scalar::Float(x) => x,
            Scalar::Int(i) => i as f64,
            Scalar::Bool(b) => f64::from(u8::from(b)),
        };
        match dtype {
            DType::F32 => Array::scalar_f32(as_f64 as f32),
            DType::F64 => Array::scalar_f64(as_f64),
            DType::I32 => Array::scalar_i32(match self {
                Scalar::Int(i) => i as i32,
                _ => as_f64 as i32,
            }),
            DType::Bool => Array::scalar_bool(as_f64 != 0.0),
            DType::BF16 => Array::scalar(ferrax_ir::array::bf16_from_f64(as_f64)),
            DType::F16 => Array::scalar(ferrax_ir::array::f16_from_f64(as_f64)),
        }
    }
}

impl Tensor {
    /// A constant of this tensor's shape holding `scalar`, at the weakly promoted dtype.
    pub(crate) fn full_like_scalar(&self, scalar: Scalar, location: &'static Location<'static>) -> Tensor {
        let dtype = promote_weak(self.dtype(), &scalar);
        lax::constant(scalar.to_array(dtype), self.shape(), location)
    }
}

/// `op(tensor, scalar)` or, with `scalar_first`, `op(scalar, tensor)`.
fn with_scalar(
    op: BinaryOp,
    tensor: &Tensor,
    scalar: Scalar,
    scalar_first: bool,
    location: &'static Location<'static>,
) -> Tensor {
    let constant = tensor.full_like_scalar(scalar, location);
    if scalar_first { binary_at(op, &constant, tensor, location) } else { binary_at(op, tensor, &constant, location) }
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:ident) => {
        impl $trait<&Tensor> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                binary_at(BinaryOp::$op, self, rhs, Location::caller())
            }
        }

        impl $trait<Tensor> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                binary_at(BinaryOp::$op, &self, &rhs, Location::caller())
            }
        }

        impl $trait<&Tensor> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                binary_at(BinaryOp::$op, &self, rhs, Location::caller())
            }
        }

        impl $trait<Tensor> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                binary_at(BinaryOp::$op, self, &rhs, Location::caller())
            }
        }

        // A scalar on the right: one generic impl, so `x * 2.0` picks it before the
        // literal's type is settled and the result is known to be a `Tensor` at once
        // (per-type impls for f32 and f64 left the literal ambiguous until fallback,
        // and a method call on the result failed with "type annotations needed").
        impl<S: Into<Scalar>> $trait<S> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: S) -> Tensor {
                with_scalar(BinaryOp::$op, &self, rhs.into(), false, Location::caller())
            }
        }

        impl<S: Into<Scalar>> $trait<S> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: S) -> Tensor {
                with_scalar(BinaryOp::$op, self, rhs.into(), false, Location::caller())
            }
        }

        // A scalar on the left: f64 and i32 only, Python's float and int. A weak scalar
        // takes the tensor's dtype, so `1.0 - &x` is right for f32 tensors too, and with
        // one float impl the literal is settled at once (`(1.0 - &x).exp()` type-checks;
        // an f32 impl beside it made that "type annotations needed").
        binary_operator!(@scalars $trait, $method, $op, f64, i32);
    };
    (@scalars $trait:ident, $method:ident, $op:ident, $($scalar:ty),*) => {$(
        impl $trait<Tensor> for $scalar {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                with_scalar(BinaryOp::$op, &rhs, self.into(), true, Location::caller())
            }
        }

        impl $trait<&Tensor> for $scalar {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                with_scalar(BinaryOp::$op, rhs, self.into(), true, Location::caller())
            }
        }
    )*};
}

binary_operator!(Add, add, Add);
binary_operator!(Sub, sub, Sub);
binary_operator!(Mul, mul, Mul);
binary_operator!(Div, div, Div);

impl Neg for &Tensor {
    type Output = Tensor;
    #[track_caller]
    fn neg(self) -> Tensor {
        super::unary_at(UnaryOp::Neg, self, Location::caller())
    }
}

impl Neg for Tensor {
    type Output = Tensor;
    #[track_caller]
    fn neg(self) -> Tensor {
        super::unary_at(UnaryOp::Neg, &self, Location::caller())
    }
}
