//! Structural operations: `reshape`, `transpose`/`permute`/`swap_axes`,
//! `expand_dims`/`squeeze`, `rev`, `pad`, and the free functions [`concat()`] and
//! [`stack`]. None of them computes; they move elements.

use super::lax;
use super::operand::Operand;
use super::{cast_at, promote};
use crate::Tensor;
use crate::tracer::{emit1, fail};
use ferrax_ir::prim::ShapeOp;
use ferrax_ir::{DType, Prim, Shape, Type};
use std::panic::Location;

impl Tensor {
    /// The same elements, in C order, with shape `shape` (no equation when it is the
    /// current shape). The element counts must agree.
    #[track_caller]
    pub fn reshape(&self, shape: &[usize]) -> Tensor {
        reshape_at(self, shape, Location::caller())
    }

    /// Reverses the order of the axes (a matrix transpose for rank 2).
    #[track_caller]
    pub fn transpose(&self) -> Tensor {
        let perm: Vec<usize> = (0..self.rank()).rev().collect();
        permute_at(self, &perm, Location::caller())
    }

    /// Output axis `i` is axis `perm[i]` of `self`; `perm` is a permutation of the axes.
    #[track_caller]
    pub fn permute(&self, perm: &[usize]) -> Tensor {
        permute_at(self, perm, Location::caller())
    }

    /// Exchanges axes `a` and `b`.
    #[track_caller]
    pub fn swap_axes(&self, a: usize, b: usize) -> Tensor {
        let mut perm: Vec<usize> = (0..self.rank()).collect();
        if a < perm.len() && b < perm.len() {
            perm.swap(a, b);
        } else {
            let message = format!("swap_axes: {}: axes {a} and {b} must be < the rank {}", self.ty(), self.rank());
            return fail(Location::caller(), message, self.ty().clone());
        }
        permute_at(self, &perm, Location::caller())
    }

    /// Inserts an axis of size 1 at position `axis` (`0..=rank`).
    #[track_caller]
    pub fn expand_dims(&self, axis: usize) -> Tensor {
        expand_dims_at("expand_dims", self, axis, Location::caller())
    }

    /// Removes axis `axis`, which must have size 1.
    #[track_caller]
    pub fn squeeze(&self, axis: usize) -> Tensor {
        let location = Location::caller();
        if self.shape().get(axis) != Some(&1) {
            let message = format!("squeeze: {}: axis {axis} is not an axis of size 1", self.ty());
            return fail(location, message, self.ty().clone());
        }
        let mut shape: Shape = self.ty().shape.clone();
        shape.remove(axis);
        reshape_at(self, &shape, location)
    }

    /// Reverses the order of the elements along each of `axes`.
    #[track_caller]
    pub fn rev(&self, axes: &[usize]) -> Tensor {
        emit1(Prim::Shape(ShapeOp::Rev { axes: axes.to_vec() }), &[self], Location::caller(), self.ty().clone())
    }

    /// Pads each axis with `low[i]` elements before, `high[i]` after (negative values
    /// crop) and `interior[i]` between elements, all equal to `value` (a scalar, or a
    /// rank-0 tensor, converted to this tensor's dtype as `jnp.pad` does).
    #[track_caller]
    pub fn pad(&self, low: &[i64], high: &[i64], interior: &[usize], value: impl Into<Operand>) -> Tensor {
        let location = Location::caller();
        let value = match value.into() {
            Operand::Tensor(t) => cast_at(&t, self.dtype(), location),
            Operand::Scalar(s) => lax::constant(s.to_array(self.dtype()), &[], location),
        };
        let prim = Prim::Shape(ShapeOp::Pad { low: low.to_vec(), high: high.to_vec(), interior: interior.to_vec() });
        let fallback = self.ty().clone();
        emit1(prim, &[self, &value], location, fallback)
    }
}

/// Joins `tensors` along `axis` (NumPy's `concatenate`), after promoting them to a
/// common dtype. Every other axis must agree.
#[track_caller]
pub fn concat(tensors: &[Tensor], axis: usize) -> Tensor {
    concat_at("concat", tensors, axis, Location::caller())
}

/// Stacks `tensors`, which must have the same shape, along a new axis `axis`
/// (`0..=rank`), after promoting them to a common dtype.
#[track_caller]
pub fn stack(tensors: &[Tensor], axis: usize) -> Tensor {
    let location = Location::caller();
    if let Some(other) = tensors.iter().find(|t| t.shape() != tensors[0].shape()) {
        let message = format!("stack: {} x {}: shapes differ", tensors[0].ty(), other.ty());
        return fail(location, message, tensors[0].ty().clone());
    }
    let expanded: Vec<Tensor> = tensors.iter().map(|t| expand_dims_at("stack", t, axis, location)).collect();
    concat_at("stack", &expanded, axis, location)
}

pub(crate) fn reshape_at(x: &Tensor, shape: &[usize], location: &'static Location<'static>) -> Tensor {
    if x.shape() == shape {
        return x.clone();
    }
    lax::reshape(x, shape, location)
}

fn permute_at(x: &Tensor, perm: &[usize], location: &'static Location<'static>) -> Tensor {
    if perm.iter().copied().eq(0..x.rank()) {
        return x.clone();
    }
    lax::transpose(x, perm.to_vec(), location)
}

fn expand_dims_at(op: &str, x: &Tensor, axis: usize, location: &'static Location<'static>) -> Tensor {
    if axis > x.rank() {
        let message = format!("{op}: {}: axis {axis} is out of range 0..={}", x.ty(), x.rank());
        return fail(location, message, x.ty().clone());
    }
    let mut shape: Shape = x.ty().shape.clone();
    shape.insert(axis, 1);
    reshape_at(x, &shape, location)
}

fn concat_at(op: &str, tensors: &[Tensor], axis: usize, location: &'static Location<'static>) -> Tensor {
    let Some(dtype) = tensors.iter().map(Tensor::dtype).reduce(promote) else {
        return fail(location, format!("{op}: no tensors to join"), Type::new(DType::F32, &[0]));
    };
    let cast: Vec<Tensor> = tensors.iter().map(|t| cast_at(t, dtype, location)).collect();
    let mut shape: Shape = cast[0].ty().shape.clone();
    if let Some(size) = shape.get_mut(axis) {
        *size = cast.iter().map(|t| t.shape().get(axis).copied().unwrap_or(0)).sum();
    }
    let inputs: Vec<&Tensor> = cast.iter().collect();
    emit1(Prim::Shape(ShapeOp::Concatenate { axis }), &inputs, location, Type { dtype, shape })
}
