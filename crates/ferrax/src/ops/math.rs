//! Elementwise math beyond the operators: `pow`, `atan2`, `rem`, `max`, `min`,
//! `clamp`, `relu`, logical `and`/`or`, and the identities `stop_gradient` and `name`.
//!
//! The second operand is a tensor or a Rust scalar ([`Operand`]); both are promoted
//! and broadcast as the operators do.

use super::lax;
use super::operand::{Operand, binary_operands, promote_operands, unify_operands};
use crate::Tensor;
use crate::tracer::emit1;
use ferrax_ir::Prim;
use ferrax_ir::prim::BinaryOp;
use ferrax_ir::prim::UnaryOp;
use std::panic::Location;

impl Tensor {
    /// `self ^ y` elementwise, for a tensor or scalar exponent. Integer operands are
    /// converted to f32 (`pow` is a float operation); use [`Tensor::powi`] for a static
    /// integer exponent.
    #[track_caller]
    pub fn pow(&self, y: impl Into<Operand>) -> Tensor {
        binary_operands(BinaryOp::Pow, &self.into(), &y.into(), true, Location::caller())
    }

    /// The four-quadrant arctangent of `self / x` (NumPy's `arctan2(self, x)`);
    /// integer operands are converted to f32.
    #[track_caller]
    pub fn atan2(&self, x: impl Into<Operand>) -> Tensor {
        binary_operands(BinaryOp::Atan2, &self.into(), &x.into(), true, Location::caller())
    }

    /// Remainder of truncating division, with the sign of `self` (C's `fmod`; i32
    /// `rem(x, 0) = x`).
    #[track_caller]
    pub fn rem(&self, y: impl Into<Operand>) -> Tensor {
        binary_operands(BinaryOp::Rem, &self.into(), &y.into(), false, Location::caller())
    }

    /// Elementwise maximum with a tensor or scalar (NaN propagates), as
    /// `jnp.maximum`. For the maximum over axes, see [`Tensor::max_axes`].
    #[track_caller]
    pub fn maximum(&self, other: impl Into<Operand>) -> Tensor {
        binary_operands(BinaryOp::Max, &self.into(), &other.into(), false, Location::caller())
    }

    /// Elementwise minimum with a tensor or scalar (NaN propagates), as
    /// `jnp.minimum`. For the minimum over axes, see [`Tensor::min_axes`].
    #[track_caller]
    pub fn minimum(&self, other: impl Into<Operand>) -> Tensor {
        binary_operands(BinaryOp::Min, &self.into(), &other.into(), false, Location::caller())
    }

    /// The old name of [`Tensor::maximum`]: in `jax.numpy`, `max` reduces over axes,
    /// which is what this name will mean after the deprecation period.
    #[deprecated(note = "use `maximum` (elementwise, as jnp.maximum); `max` will reduce over axes as jnp.max")]
    #[track_caller]
    pub fn max(&self, other: impl Into<Operand>) -> Tensor {
        self.maximum(other)
    }

    /// The old name of [`Tensor::minimum`]; see [`Tensor::max`].
    #[deprecated(note = "use `minimum` (elementwise, as jnp.minimum); `min` will reduce over axes as jnp.min")]
    #[track_caller]
    pub fn min(&self, other: impl Into<Operand>) -> Tensor {
        self.minimum(other)
    }

    /// Limits every element to `[lo, hi]` (NumPy's `clip`); the bounds are tensors or
    /// scalars, promoted and broadcast with `self`. NaN propagates.
    #[track_caller]
    pub fn clamp(&self, lo: impl Into<Operand>, hi: impl Into<Operand>) -> Tensor {
        let location = Location::caller();
        let (x, lo, hi) = (self.into(), lo.into(), hi.into());
        let dtype = promote_operands(&[&x, &lo, &hi]);
        let [x, lo, hi] = unify_operands("clamp", [&x, &lo, &hi], dtype, location);
        lax::clamp(&lo, &x, &hi, location)
    }

    /// `max(self, 0)`.
    #[track_caller]
    pub fn relu(&self) -> Tensor {
        binary_operands(BinaryOp::Max, &self.into(), &0.into(), false, Location::caller())
    }

    /// Logical and of bool tensors (bitwise on i32).
    #[track_caller]
    pub fn and(&self, other: impl Into<Operand>) -> Tensor {
        binary_operands(BinaryOp::And, &self.into(), &other.into(), false, Location::caller())
    }

    /// Logical or of bool tensors (bitwise on i32).
    #[track_caller]
    pub fn or(&self, other: impl Into<Operand>) -> Tensor {
        binary_operands(BinaryOp::Or, &self.into(), &other.into(), false, Location::caller())
    }

    /// The same value, with a zero derivative: transforms treat it as a constant.
    #[track_caller]
    pub fn stop_gradient(&self) -> Tensor {
        lax::unary(UnaryOp::StopGradient, self, Location::caller())
    }

    /// The same value, tagged `name` for checkpoint policies (`"names:..."`).
    #[track_caller]
    pub fn name(&self, name: &str) -> Tensor {
        emit1(Prim::Name { name: name.to_string() }, &[self], Location::caller(), self.ty().clone())
    }
}

/// `a & b` on operands of one type, recorded at `location` (for ops built from masks).
pub(crate) fn and_at(a: &Tensor, b: &Tensor, location: &'static Location<'static>) -> Tensor {
    lax::binary(BinaryOp::And, a, b, location)
}
