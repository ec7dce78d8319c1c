//! Reductions over axes (`sum_axes`, `mean`, `max_axes`, `min_axes`, `prod_axes`,
//! with or without keepdims), `argmax`/`argmin`, `cumsum`, `cummax` and `cummin`.
//!
//! Bool operands count as i32 for sums, products and cumulative sums (NumPy counts
//! `true`s); `mean` always computes in a float dtype. With `keepdims`, a reduction is
//! followed by a `reshape` that puts the reduced axes back with size 1.

use super::cast_at;
use super::lax;
use super::operand::binary_operands;
use crate::Tensor;
use crate::tracer::emit1;
use ferrax_ir::prim::ReductionOp;
use ferrax_ir::prim::{ArgOp, BinaryOp, ReduceOp};
use ferrax_ir::{DType, Prim, Shape, Type};
use std::ops::RangeFull;
use std::panic::Location;

/// The axes a reduction runs over, as `jnp`'s `axis` argument: `..` for every axis, or
/// a list (`[0]`, `&[0, 2]`, a `Vec` or slice). A bare integer is not an `Axes`, so a
/// scalar operand can never be mistaken for an axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axes(Option<Vec<usize>>);

impl Axes {
    /// The axes of a tensor of rank `rank` this selects.
    fn of_rank(&self, rank: usize) -> Vec<usize> {
        self.0.clone().unwrap_or_else(|| (0..rank).collect())
    }
}

impl From<RangeFull> for Axes {
    fn from(_: RangeFull) -> Axes {
        Axes(None)
    }
}

impl From<&[usize]> for Axes {
    fn from(axes: &[usize]) -> Axes {
        Axes(Some(axes.to_vec()))
    }
}

impl<const N: usize> From<[usize; N]> for Axes {
    fn from(axes: [usize; N]) -> Axes {
        Axes(Some(axes.to_vec()))
    }
}

impl<const N: usize> From<&[usize; N]> for Axes {
    fn from(axes: &[usize; N]) -> Axes {
        Axes(Some(axes.to_vec()))
    }
}

impl From<Vec<usize>> for Axes {
    fn from(axes: Vec<usize>) -> Axes {
        Axes(Some(axes))
    }
}

impl From<&Vec<usize>> for Axes {
    fn from(axes: &Vec<usize>) -> Axes {
        Axes(Some(axes.clone()))
    }
}

impl Tensor {
    /// Sum over `axes` (`..` for all, as `jnp.sum(x)`; `[0]`; `&[0, 1]`).
    #[track_caller]
    pub fn sum(&self, axes: impl Into<Axes>) -> Tensor {
        let axes = axes.into().of_rank(self.rank());
        reduce_at(ReduceOp::Sum, self, &axes, false, Location::caller())
    }

    /// Sum over `axes`; with `keepdims` they stay as axes of size 1. A bool tensor
    /// counts its `true`s (as i32). An empty `axes` reduces nothing.
    #[track_caller]
    pub fn sum_axes(&self, axes: impl Into<Axes>, keepdims: bool) -> Tensor {
        let axes = &axes.into().of_rank(self.rank())[..];
        reduce_at(ReduceOp::Sum, &bool_as_i32(self, Location::caller()), axes, keepdims, Location::caller())
    }

    /// Sum of every element (a scalar).
    #[track_caller]
    pub fn sum_all(&self) -> Tensor {
        self.sum_axes(all_axes(self), false)
    }

    /// Mean over `axes` (sum / count), in the tensor's float dtype (f32 for i32 and
    /// bool tensors); with `keepdims` the axes stay with size 1. The mean of zero
    /// elements is NaN.
    #[track_caller]
    pub fn mean(&self, axes: impl Into<Axes>, keepdims: bool) -> Tensor {
        let axes = &axes.into().of_rank(self.rank())[..];
        let location = Location::caller();
        let x = if self.dtype().is_float() { self.clone() } else { cast_at(self, DType::F32, location) };
        let sum = reduce_at(ReduceOp::Sum, &x, axes, keepdims, location);
        let count: usize = axes.iter().filter_map(|&a| self.shape().get(a)).product();
        binary_operands(BinaryOp::Div, &(&sum).into(), &(count as f64).into(), false, location)
    }

    /// Mean of every element (a scalar).
    #[track_caller]
    pub fn mean_all(&self) -> Tensor {
        self.mean(all_axes(self), false)
    }

    /// Maximum over `axes` (NaN propagates; -inf or i32::MIN over zero elements); with
    /// `keepdims` the axes stay with size 1. For the elementwise maximum, see
    /// [`Tensor::maximum`].
    #[track_caller]
    pub fn max_axes(&self, axes: impl Into<Axes>, keepdims: bool) -> Tensor {
        let axes = &axes.into().of_rank(self.rank())[..];
        extreme_at(ReduceOp::Max, self, axes, keepdims, Location::caller())
    }

    /// Minimum over `axes` (NaN propagates; +inf or i32::MAX over zero elements); with
    /// `keepdims` the axes stay with size 1.
    #[track_caller]
    pub fn min_axes(&self, axes: impl Into<Axes>, keepdims: bool) -> Tensor {
        let axes = &axes.into().of_rank(self.rank())[..];
        extreme_at(ReduceOp::Min, self, axes, keepdims, Location::caller())
    }

    /// Product over `axes` (1 over zero elements); with `keepdims` the axes stay with
    /// size 1. Bool tensors multiply as i32.
    #[track_caller]
    pub fn prod_axes(&self, axes: impl Into<Axes>, keepdims: bool) -> Tensor {
        let axes = &axes.into().of_rank(self.rank())[..];
        reduce_at(ReduceOp::Prod, &bool_as_i32(self, Location::caller()), axes, keepdims, Location::caller())
    }

    /// The i32 index of the first maximum along `axis` (which is removed).
    #[track_caller]
    pub fn argmax(&self, axis: usize) -> Tensor {
        arg_at(ArgOp::Argmax, self, axis, Location::caller())
    }

    /// The i32 index of the first minimum along `axis` (which is removed).
    #[track_caller]
    pub fn argmin(&self, axis: usize) -> Tensor {
        arg_at(ArgOp::Argmin, self, axis, Location::caller())
    }

    /// Inclusive running sum along `axis`, from the end when `reverse`. Bool tensors
    /// sum as i32.
    #[track_caller]
    pub fn cumsum(&self, axis: usize, reverse: bool) -> Tensor {
        let x = bool_as_i32(self, Location::caller());
        let ty = x.ty().clone();
        emit1(Prim::Reduction(ReductionOp::Cumsum { axis, reverse }), &[&x], Location::caller(), ty)
    }

    /// Running maximum along `axis`, from the end when `reverse` (`jax.lax.cummax`):
    /// a NaN propagates to every later element. Bool tensors compare as i32.
    #[track_caller]
    pub fn cummax(&self, axis: usize, reverse: bool) -> Tensor {
        let x = bool_as_i32(self, Location::caller());
        let ty = x.ty().clone();
        emit1(Prim::Reduction(ReductionOp::Cummax { axis, reverse }), &[&x], Location::caller(), ty)
    }

    /// Running minimum along `axis`, from the end when `reverse` (`jax.lax.cummin`).
    #[track_caller]
    pub fn cummin(&self, axis: usize, reverse: bool) -> Tensor {
        let x = bool_as_i32(self, Location::caller());
        let ty = x.ty().clone();
        emit1(Prim::Reduction(ReductionOp::Cummin { axis, reverse }), &[&x], Location::caller(), ty)
    }
}

/// `0..rank`.
fn all_axes(x: &Tensor) -> Vec<usize> {
    (0..x.rank()).collect()
}

/// `x` converted to i32 if it is bool (NumPy sums and multiplies `true`s as ints).
fn bool_as_i32(x: &Tensor, location: &'static Location<'static>) -> Tensor {
    if x.dtype() == DType::Bool { cast_at(x, DType::I32, location) } else { x.clone() }
}

/// `op` over `axes`, then a `reshape` restoring them with size 1 when `keepdims`.
/// Bad axes are the reduction's type error; the shapes here skip them.
fn reduce_at(op: ReduceOp, x: &Tensor, axes: &[usize], keepdims: bool, location: &'static Location<'static>) -> Tensor {
    let reduced = lax::reduce(op, x, axes, location);
    if !keepdims {
        return reduced;
    }
    let shape: Shape = (0..x.rank()).map(|a| if axes.contains(&a) { 1 } else { x.shape()[a] }).collect();
    if reduced.shape() == shape.as_slice() {
        return reduced;
    }
    lax::reshape(&reduced, &shape, location)
}

/// `reduce_max`/`reduce_min`; bool tensors go through i32 and back.
fn extreme_at(
    op: ReduceOp,
    x: &Tensor,
    axes: &[usize],
    keepdims: bool,
    location: &'static Location<'static>,
) -> Tensor {
    let reduced = reduce_at(op, &bool_as_i32(x, location), axes, keepdims, location);
    cast_at(&reduced, x.dtype(), location)
}

/// `argmax`/`argmin` along `axis` (bool tensors as i32).
fn arg_at(op: ArgOp, x: &Tensor, axis: usize, location: &'static Location<'static>) -> Tensor {
    let x = bool_as_i32(x, location);
    let shape: Shape = (0..x.rank()).filter(|&a| a != axis).map(|a| x.shape()[a]).collect();
    let prim = Prim::Reduction(ReductionOp::ArgReduce { op, axis, index_dtype: DType::I32 });
    emit1(prim, &[&x], location, Type { dtype: DType::I32, shape })
}

/// `a / b` with the operators' promotion and broadcasting, recorded at `location` (for
/// means and averages built from a sum and a count).
pub(crate) fn div_at(a: &Tensor, b: &Tensor, location: &'static Location<'static>) -> Tensor {
    super::binary_at(BinaryOp::Div, a, b, location)
}
