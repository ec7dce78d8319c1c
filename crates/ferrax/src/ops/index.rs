//! Indexing: static slicing with one [`Idx`] per axis ([`Tensor::slice`]), indexing by
//! integer tensors through `gather` (`index_select`, `take_along_axis`), and
//! `dynamic_slice`/`dynamic_update_slice` at traced start indices.
//!
//! ```
//! use ferrax::ops::index::{i, s};
//! use ferrax::{DType, Tensor, Type};
//! // x[0:2, :, 3] and x[::-1] of an f32[4,5,6]
//! let ir = ferrax::make_ir(
//!     |x: Tensor| (x.slice(&[s(0..2), s(..), i(3)]), x.slice(&[s(..).step(-1)])),
//!     &Type::new(DType::F32, &[4, 5, 6]),
//! )
//! .unwrap();
//! assert!(ir.contains("-> (f32[2,5], f32[4,5,6])"));
//! ```

use super::cast_at;
use super::lax;
use super::shape::reshape_at;
use crate::Tensor;
use crate::tracer::{emit1, fail};
use ferrax_ir::prim::{IndexOp, ShapeOp};
use ferrax_ir::{Prim, Shape, Type};
use std::ops::{Bound, RangeBounds};
use std::panic::Location;

/// What to take along one axis, as in NumPy's `x[...]`. Negative positions count from
/// the end of the axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idx {
    /// One position; the axis is dropped from the result.
    Index(i64),
    /// Positions `start, start + step, ...` before `stop` (NumPy's `start:stop:step`;
    /// bounds are clamped to the axis, `None` means the end in the step's direction).
    Range {
        /// First position.
        start: Option<i64>,
        /// Bound that is not reached.
        stop: Option<i64>,
        /// Distance between positions; negative walks backwards; not 0.
        step: i64,
    },
    /// The whole axis (NumPy's `:`).
    Full,
}

/// A range of positions along an axis: `s(1..3)`, `s(..)`, `s(2..)`, `s(..=4)`,
/// `s(-2..)`; add a step with [`Idx::step`].
pub fn s(range: impl RangeBounds<i64>) -> Idx {
    let start = match range.start_bound() {
        Bound::Included(&k) => Some(k),
        Bound::Excluded(&k) => Some(k.saturating_add(1)),
        Bound::Unbounded => None,
    };
    let stop = match range.end_bound() {
        Bound::Included(&-1) | Bound::Unbounded => None,
        Bound::Included(&k) => Some(k.saturating_add(1)),
        Bound::Excluded(&k) => Some(k),
    };
    Idx::Range { start, stop, step: 1 }
}

/// One position along an axis (the axis is dropped): `i(0)`, `i(-1)` for the last.
pub fn i(index: i64) -> Idx {
    Idx::Index(index)
}

impl Idx {
    /// The same range with step `step` (`s(..).step(-1)` reverses); an index is
    /// returned unchanged.
    pub fn step(self, step: i64) -> Idx {
        match self {
            Idx::Range { start, stop, .. } => Idx::Range { start, stop, step },
            Idx::Full => Idx::Range { start: None, stop: None, step },
            Idx::Index(_) => self,
        }
    }
}

/// One axis of a static slice: a strided box `[start, limit)` and whether to reverse
/// it (negative step) or drop it (an index).
struct AxisSlice {
    start: usize,
    limit: usize,
    stride: usize,
    reverse: bool,
    drop: bool,
}

impl Tensor {
    /// NumPy-style basic indexing: `x.slice(&[s(0..2), s(..), i(3)])` is `x[0:2, :, 3]`.
    /// Axes without an entry are taken whole. Emits one `slice`, then `rev` for
    /// negative steps and a `reshape` dropping indexed axes, each only when needed.
    #[track_caller]
    pub fn slice(&self, indices: &[Idx]) -> Tensor {
        let location = Location::caller();
        match plan_slices(self, indices) {
            Ok(axes) => slice_by_plan(self, &axes, location),
            Err(message) => fail(location, format!("slice: {}: {message}", self.ty()), self.ty().clone()),
        }
    }

    /// The entries of `self` at positions `indices` (an i32 tensor) along `axis`
    /// (NumPy's `take(x, indices, axis)`, through `gather`): the result's shape is
    /// `shape[..axis] + indices.shape + shape[axis + 1..]`. Out-of-range indices are
    /// clamped into the axis.
    #[track_caller]
    pub fn index_select(&self, axis: usize, indices: &Tensor) -> Tensor {
        gather_at(self, axis, 0, indices, Location::caller())
    }

    /// NumPy's `take_along_axis`: `indices` (i32) has the rank of `self` and picks, for
    /// every position of the other axes, entries along `axis`; its other axes broadcast
    /// against `self`'s. The result has `indices`' size on `axis`. Indices are clamped.
    #[track_caller]
    pub fn take_along_axis(&self, axis: usize, indices: &Tensor) -> Tensor {
        let location = Location::caller();
        if axis >= self.rank() || indices.rank() != self.rank() {
            let message = format!(
                "take_along_axis: {} x {}: needs indices of the operand's rank and an axis below it, got axis {axis}",
                self.ty(),
                indices.ty()
            );
            return fail(location, message, indices.ty().with_dtype(self.dtype()));
        }
        let mut shape: Shape = self.ty().shape.clone();
        shape[axis] = indices.shape()[axis];
        let indices = super::broadcast_at(indices, &shape, location);
        // gather's batch axes lead, so move `axis` last, gather, and move it back.
        let mut perm: Vec<usize> = (0..self.rank()).filter(|&a| a != axis).collect();
        perm.push(axis);
        let (x, indices) = (self.permute(&perm), indices.permute(&perm));
        let last = self.rank() - 1;
        let taken = gather_at(&x, last, last, &indices, location);
        let inverse: Vec<usize> = (0..self.rank()).map(|a| perm.iter().position(|&p| p == a).unwrap_or(a)).collect();
        taken.permute(&inverse)
    }

    /// The box of `sizes` starting at `starts` (one i32 scalar tensor per axis); the
    /// starts are clamped so the box fits.
    #[track_caller]
    pub fn dynamic_slice(&self, starts: &[Tensor], sizes: &[usize]) -> Tensor {
        let mut inputs = vec![self];
        inputs.extend(starts);
        let ty = Type::new(self.dtype(), sizes);
        emit1(Prim::Index(IndexOp::DynamicSlice { sizes: sizes.to_vec() }), &inputs, Location::caller(), ty)
    }

    /// `self` with the box at `starts` (one i32 scalar tensor per axis, clamped so the
    /// box fits) replaced by `update`, which is converted to this tensor's dtype.
    #[track_caller]
    pub fn dynamic_update_slice(&self, update: &Tensor, starts: &[Tensor]) -> Tensor {
        let location = Location::caller();
        let update = cast_at(update, self.dtype(), location);
        let mut inputs = vec![self, &update];
        inputs.extend(starts);
        emit1(Prim::dynamic_update_slice(), &inputs, location, self.ty().clone())
    }
}

/// Resolves every axis's [`Idx`] against its size, or says what is wrong.
fn plan_slices(x: &Tensor, indices: &[Idx]) -> Result<Vec<AxisSlice>, String> {
    if indices.len() > x.rank() {
        return Err(format!("{} indices for {} axes", indices.len(), x.rank()));
    }
    let full = std::iter::repeat(Idx::Full);
    let per_axis = indices.iter().copied().chain(full).zip(x.shape().iter().copied());
    per_axis
        .enumerate()
        .map(|(axis, (idx, size))| plan_axis(idx, size).map_err(|e| format!("axis {axis}: {e}")))
        .collect()
}

fn plan_axis(idx: Idx, size: usize) -> Result<AxisSlice, String> {
    let n = size as i64;
    match idx {
        Idx::Full => Ok(AxisSlice { start: 0, limit: size, stride: 1, reverse: false, drop: false }),
        Idx::Index(k) => {
            let position = if k < 0 { k + n } else { k };
            if !(0..n).contains(&position) {
                return Err(format!("index {k} is out of range for size {size}"));
            }
            let start = position as usize;
            Ok(AxisSlice { start, limit: start + 1, stride: 1, reverse: false, drop: true })
        }
        Idx::Range { step: 0, .. } => Err("step must not be 0".into()),
        Idx::Range { start, stop, step } if step > 0 => Ok(forward_range(start, stop, step, n)),
        Idx::Range { start, stop, step } => Ok(backward_range(start, stop, step, n)),
    }
}

/// A position of NumPy's slice syntax, negatives from the end, clamped to `lo..=hi`.
fn clamp_position(k: i64, n: i64, lo: i64, hi: i64) -> i64 {
    (if k < 0 { k + n } else { k }).clamp(lo, hi)
}

fn forward_range(start: Option<i64>, stop: Option<i64>, step: i64, n: i64) -> AxisSlice {
    let start = start.map_or(0, |k| clamp_position(k, n, 0, n));
    let stop = stop.map_or(n, |k| clamp_position(k, n, 0, n)).max(start);
    AxisSlice { start: start as usize, limit: stop as usize, stride: step as usize, reverse: false, drop: false }
}

/// A negative step: the same positions as a forward strided box, reversed (when
/// there are at least two).
fn backward_range(start: Option<i64>, stop: Option<i64>, step: i64, n: i64) -> AxisSlice {
    let first = start.map_or(n - 1, |k| clamp_position(k, n, -1, n - 1));
    let stop = stop.map_or(-1, |k| clamp_position(k, n, -1, n - 1));
    let stride = step.unsigned_abs() as i64;
    let count = if first > stop { (first - stop - 1) / stride + 1 } else { 0 };
    if count == 0 {
        return AxisSlice { start: 0, limit: 0, stride: 1, reverse: false, drop: false };
    }
    let lowest = first - (count - 1) * stride;
    let reverse = count > 1;
    AxisSlice { start: lowest as usize, limit: first as usize + 1, stride: stride as usize, reverse, drop: false }
}

/// Emits the `slice`, `rev` and `reshape` that `axes` call for (only those needed).
fn slice_by_plan(x: &Tensor, axes: &[AxisSlice], location: &'static Location<'static>) -> Tensor {
    let whole = axes.iter().zip(x.shape()).all(|(a, &size)| a.start == 0 && a.limit == size && a.stride == 1);
    let mut out = x.clone();
    if !whole {
        let start = axes.iter().map(|a| a.start).collect();
        let limit = axes.iter().map(|a| a.limit).collect();
        out = lax::slice(x, start, limit, axes.iter().map(|a| a.stride).collect(), location);
    }
    let reversed: Vec<usize> = (0..axes.len()).filter(|&a| axes[a].reverse).collect();
    if !reversed.is_empty() {
        out = emit1(Prim::Shape(ShapeOp::Rev { axes: reversed }), &[&out], location, out.ty().clone());
    }
    let kept: Shape = (0..axes.len()).filter(|&a| !axes[a].drop).map(|a| out.shape()[a]).collect();
    reshape_at(&out, &kept, location)
}

pub(crate) fn gather_at(
    x: &Tensor,
    axis: usize,
    batch_dims: usize,
    indices: &Tensor,
    location: &'static Location<'static>,
) -> Tensor {
    let mut shape: Shape = x.shape().iter().take(axis).copied().collect();
    shape.extend(indices.shape().iter().skip(batch_dims).copied());
    shape.extend(x.shape().iter().skip(axis + 1).copied());
    emit1(Prim::Index(IndexOp::Gather { axis, batch_dims }), &[x, indices], location, Type { dtype: x.dtype(), shape })
}
