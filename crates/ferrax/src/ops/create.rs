//! Tensors made from nothing: constants (`Tensor::zeros`, `ones`, `full`, `constant`)
//! and counters ([`iota`], [`arange`]). Like every operation they belong to the
//! innermost open trace, so they can only be made inside one.

use super::Scalar;
use super::lax;
use crate::Tensor;
use ferrax_ir::{Array, DType};
use std::panic::Location;

/// Host arrays with more elements than this are hoisted into parameters rather than
/// written into the IR as `constant` equations.
pub const INLINE_CONSTANT_LIMIT: usize = 64;

impl Tensor {
    /// A tensor of `dtype` and `shape` filled with 0 (`false` for bool).
    #[track_caller]
    pub fn zeros(dtype: DType, shape: &[usize]) -> Tensor {
        full_at(dtype, shape, Scalar::Int(0), Location::caller())
    }

    /// A tensor of `dtype` and `shape` filled with 1 (`true` for bool).
    #[track_caller]
    pub fn ones(dtype: DType, shape: &[usize]) -> Tensor {
        full_at(dtype, shape, Scalar::Int(1), Location::caller())
    }

    /// A tensor of `dtype` and `shape` filled with `value`, converted to `dtype`
    /// (floats round, and truncate toward zero for i32).
    #[track_caller]
    pub fn full(dtype: DType, shape: &[usize], value: impl Into<Scalar>) -> Tensor {
        full_at(dtype, shape, value.into(), Location::caller())
    }

    /// Zeros of this tensor's type.
    #[track_caller]
    pub fn zeros_like(&self) -> Tensor {
        full_at(self.dtype(), self.shape(), Scalar::Int(0), Location::caller())
    }

    /// Ones of this tensor's type.
    #[track_caller]
    pub fn ones_like(&self) -> Tensor {
        full_at(self.dtype(), self.shape(), Scalar::Int(1), Location::caller())
    }

    /// The host array `value` as a constant of the trace: inline in the IR when it has
    /// at most [`INLINE_CONSTANT_LIMIT`] elements, otherwise hoisted into a parameter of
    /// the traced entry that the API binds at every call (so a large captured buffer is
    /// never copied into IR text). Either way it is a constant: never differentiated.
    #[track_caller]
    pub fn constant(value: &Array) -> Tensor {
        if value.len() > INLINE_CONSTANT_LIMIT {
            return crate::tracer::hoist(value, Location::caller());
        }
        lax::constant(value.clone(), value.shape(), Location::caller())
    }
}

/// A tensor of `dtype` and `shape` counting 0, 1, 2, ... along axis `dim` (constant
/// along the others). `dtype` is numeric.
#[track_caller]
pub fn iota(dtype: DType, shape: &[usize], dim: usize) -> Tensor {
    lax::iota(dtype, shape, dim, Location::caller())
}

/// `[0, 1, ..., n - 1]` of `dtype` (a 1-D [`iota`]).
#[track_caller]
pub fn arange(dtype: DType, n: usize) -> Tensor {
    lax::iota(dtype, &[n], 0, Location::caller())
}

fn full_at(dtype: DType, shape: &[usize], value: Scalar, location: &'static Location<'static>) -> Tensor {
    lax::constant(value.to_array(dtype), shape, location)
}
