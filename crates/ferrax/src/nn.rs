//! Neural-network building blocks on [`Tensor`]s: `softmax`, `log_softmax`,
//! `logsumexp`, `cross_entropy`, `mse`, `one_hot`.
//!
//! The exponentials are numerically stable: they are taken of `x - max(x)`, with the
//! max behind `stop_gradient` (the shift does not change the value, so its derivative
//! is not needed), and a non-finite max (an all `-inf` row) replaced by 0 so that the
//! shift itself produces no NaN.
//!
//! ```
//! use ferrax::{Array, Tensor, nn};
//! let logits = Array::from_f32(&[2], vec![0.0, 0.0]).unwrap();
//! let p = ferrax::eval(|x: Tensor| nn::softmax(&x, 0), &logits).unwrap();
//! assert_eq!(p.as_f32().unwrap(), &[0.5, 0.5]);
//! ```

use crate::Tensor;
use crate::ops::broadcast_shapes;
use crate::ops::compare::where_;
use crate::tracer::{emit1, fail};
use ferrax_ir::prim::CompareOp;
use ferrax_ir::{DType, Prim, Shape, Type};
use std::panic::Location;

/// `exp(x) / sum(exp(x))` along `axis`: the entries along it are positive and sum to 1.
#[track_caller]
pub fn softmax(x: &Tensor, axis: usize) -> Tensor {
    let unnormalized = (x - stable_shift(x, &[axis])).exp();
    &unnormalized / unnormalized.sum_axes([axis], true)
}

/// `log(softmax(x, axis))`, computed as `x - logsumexp(x)` without the round trip
/// through `exp` and `log`.
#[track_caller]
pub fn log_softmax(x: &Tensor, axis: usize) -> Tensor {
    let shifted = x - stable_shift(x, &[axis]);
    &shifted - shifted.exp().sum_axes([axis], true).log()
}

/// `log(sum(exp(x)))` over `axes`, which are removed; stable for large entries, and
/// `-inf` where every entry is `-inf`.
#[track_caller]
pub fn logsumexp(x: &Tensor, axes: &[usize]) -> Tensor {
    let shift = stable_shift(x, axes);
    let total = (x - &shift).exp().sum_axes(axes, true).log() + shift;
    let kept: Shape = (0..x.rank()).filter(|a| !axes.contains(a)).map(|a| x.shape()[a]).collect();
    total.reshape(&kept)
}

/// Softmax cross-entropy: the mean over the batch (every axis but the last) of
/// `-sum(labels * log_softmax(logits))` over the classes (the last axis). `labels` are
/// probabilities (one-hot rows, say) broadcasting against `logits`. A 1-D `logits` is
/// a single example.
#[track_caller]
pub fn cross_entropy(logits: &Tensor, labels: &Tensor) -> Tensor {
    let operands = format!("cross_entropy: {} x {}", logits.ty(), labels.ty());
    let Some(classes) = logits.rank().checked_sub(1) else {
        return fail(Location::caller(), format!("{operands}: logits need a class axis"), Type::scalar(logits.dtype()));
    };
    if broadcast_shapes(logits.shape(), labels.shape()).as_deref() != Some(logits.shape()) {
        let message = format!("{operands}: labels must broadcast to the logits' shape");
        return fail(Location::caller(), message, Type::scalar(logits.dtype()));
    }
    let per_example = -(labels * log_softmax(logits, classes)).sum_axes([classes], false);
    if per_example.rank() == 0 { per_example } else { per_example.mean_all() }
}

/// Mean squared error: the mean over every element of `(a - b)^2` (a scalar).
#[track_caller]
pub fn mse(a: &Tensor, b: &Tensor) -> Tensor {
    (a - b).powi(2).mean_all()
}

/// `labels` (an i32 tensor of class numbers) as one-hot vectors of `num_classes`
/// entries in a new last axis, of `dtype`: 1 at the label's position, 0 elsewhere (all
/// 0 for a label outside `0..num_classes`). Traced as an `eq` of the broadcast labels
/// with an `iota`, then a `convert`.
#[track_caller]
pub fn one_hot(labels: &Tensor, num_classes: usize, dtype: DType) -> Tensor {
    let location = Location::caller();
    let mut shape: Shape = labels.ty().shape.clone();
    shape.push(num_classes);
    if labels.dtype() != DType::I32 {
        let message = format!("one_hot: {}: labels must be i32", labels.ty());
        return fail(location, message, Type { dtype, shape });
    }
    let dims: Vec<usize> = (0..labels.rank()).collect();
    let class = labels.rank();
    let wide = crate::ops::lax::broadcast_in_dim(labels, &shape, dims, location);
    let positions = crate::ops::create::iota(DType::I32, &shape, class);
    let hot = emit1(Prim::Compare(CompareOp::Eq), &[&wide, &positions], location, Type::new(DType::Bool, &shape));
    hot.cast(dtype)
}

/// `stop_gradient(max(x))` over `axes` (kept with size 1), or 0 where that max is not
/// finite: the shift that keeps `exp` from overflowing.
#[track_caller]
fn stable_shift(x: &Tensor, axes: &[usize]) -> Tensor {
    let max = x.max_axes(axes, true).stop_gradient();
    where_(&max.is_finite(), &max, 0.0)
}
