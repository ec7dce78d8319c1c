//! Sorting: `Tensor::sort`, `Tensor::argsort`, `Tensor::top_k` and the multi-operand
//! [`sort`] (`jax.lax.sort`). Keys order `-0.0` equal to `0.0` and NaN after `+inf`;
//! the sort is stable. `argsort` is not a primitive: it sorts an `iota` alongside the
//! keys and returns the sorted `iota`.

use super::lax;
use crate::Tensor;
use ferrax_ir::DType;
use std::panic::Location;

/// Sorts every tensor of `operands` (same shape, any dtypes) along `dimension` by the
/// first `num_keys` of them, lexicographically and stably (`jax.lax.sort`): one result
/// per operand. Errors (shapes differ, `num_keys` out of `1..=operands.len()`, axis out
/// of range) are recorded at the caller's line.
#[track_caller]
pub fn sort(operands: &[&Tensor], dimension: usize, num_keys: usize) -> Vec<Tensor> {
    lax::sort(operands, dimension, num_keys, Location::caller())
}

impl Tensor {
    /// This tensor sorted ascending along `axis` (stable; NaNs last).
    #[track_caller]
    pub fn sort(&self, axis: usize) -> Tensor {
        let location = Location::caller();
        let mut out = lax::sort(&[self], axis, 1, location);
        out.pop()
            .unwrap_or_else(|| crate::tracer::fail(location, "sort: expected one result".into(), self.ty().clone()))
    }

    /// The i32 positions that sort this tensor along `axis` (stable: equal elements
    /// keep their order), as `jnp.argsort`.
    #[track_caller]
    pub fn argsort(&self, axis: usize) -> Tensor {
        let location = Location::caller();
        let ty = self.ty().with_dtype(DType::I32);
        if axis >= self.rank() {
            let message = format!("argsort: axis {axis} is out of range for rank {}", self.rank());
            return crate::tracer::fail(location, message, ty);
        }
        let iota = lax::iota(DType::I32, self.shape(), axis, location);
        let mut out = lax::sort(&[self, &iota], axis, 1, location);
        out.pop()
            .filter(|_| out.len() == 1)
            .unwrap_or_else(|| crate::tracer::fail(location, "argsort: expected two results".into(), ty))
    }

    /// The `k` largest elements along the last axis in descending order and their i32
    /// indices (`jax.lax.top_k`): ties keep the lower index first, NaN counts as the
    /// largest.
    #[track_caller]
    pub fn top_k(&self, k: usize) -> (Tensor, Tensor) {
        lax::top_k(self, k, Location::caller())
    }
}
