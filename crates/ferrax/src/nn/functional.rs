//! The stateless functions of `ferrax::nn` (re-exported there): activations
//! (`gelu`, `silu`), normalisers (`softmax`, `log_softmax`, `logsumexp`,
//! `masked_softmax`), losses (`cross_entropy` from probabilities,
//! `sparse_cross_entropy` from integer labels, `mse`) and `one_hot`.
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

/// [`softmax`] over the entries where `mask` (bool, broadcasting to `x`'s shape) is
/// true; the masked-out entries get exactly 0 and no gradient. The mask is applied
/// before the max is taken, so a masked entry, however large, cannot push the
/// others' exponentials to 0; a row with every entry masked gives zeros, not NaN
/// (flax, which fills masked logits with the dtype's lowest value, gives such a row a
/// uniform distribution instead).
///
/// ```
/// use ferrax::{Array, Tensor, nn};
/// let x = Array::from_f32(&[2, 2], vec![1.0, 100.0, 3.0, 4.0]).unwrap();
/// let mask = Array::from_bool(&[2, 2], vec![true, false, false, false]).unwrap();
/// let p = ferrax::eval(|(x, m): (Tensor, Tensor)| nn::masked_softmax(&x, &m, 1), &(x, mask)).unwrap();
/// assert_eq!(p.as_f32().unwrap(), &[1.0, 0.0, 0.0, 0.0]);
/// ```
#[track_caller]
pub fn masked_softmax(x: &Tensor, mask: &Tensor, axis: usize) -> Tensor {
    let location = Location::caller();
    if mask.dtype() != DType::Bool || broadcast_shapes(x.shape(), mask.shape()).as_deref() != Some(x.shape()) {
        let message = format!("masked_softmax: {} x {}: the mask must be bool and broadcast to x", x.ty(), mask.ty());
        return fail(location, message, x.ty().clone());
    }
    if axis >= x.rank() {
        return fail(location, format!("masked_softmax: axis {axis} out of range for {}", x.ty()), x.ty().clone());
    }
    let kept = where_(mask, x, f64::NEG_INFINITY);
    let unnormalized = where_(mask, (&kept - stable_shift(&kept, &[axis])).exp(), 0.0);
    let total = unnormalized.sum_axes([axis], true);
    // An empty row sums to 0: dividing by 1 there keeps its zeros (and their
    // gradients) finite.
    let safe = where_(&total.gt(0.0), &total, 1.0);
    &unnormalized / safe
}

/// The Gaussian error linear unit `x·Φ(x)`. With `approximate` (JAX's default,
/// `jax.nn.gelu(x, approximate=True)`), the tanh form
/// `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`; without, the exact
/// `0.5·x·(1 + erf(x/√2))`. They differ by less than 1e-3 everywhere.
///
/// ```
/// use ferrax::{Array, Tensor, nn};
/// let x = Array::from_f64(&[2], vec![0.0, 1.0]).unwrap();
/// let exact = ferrax::eval(|x: Tensor| nn::gelu(&x, false), &x).unwrap().to_f64_vec();
/// assert!((exact[1] - 0.841344746068543).abs() < 1e-12);
/// let tanh = ferrax::eval(|x: Tensor| nn::gelu(&x, true), &x).unwrap().to_f64_vec();
/// assert!((tanh[1] - exact[1]).abs() < 1e-3);
/// ```
#[track_caller]
pub fn gelu(x: &Tensor, approximate: bool) -> Tensor {
    if approximate {
        let sqrt_2_over_pi = (2.0 / std::f64::consts::PI).sqrt();
        let inner = (x + x.powi(3) * 0.044715) * sqrt_2_over_pi;
        x * (inner.tanh() + 1.0) * 0.5
    } else {
        x * ((x * std::f64::consts::FRAC_1_SQRT_2).erf() + 1.0) * 0.5
    }
}

/// The sigmoid linear unit (swish) `x·sigmoid(x)` (`jax.nn.silu`).
#[track_caller]
pub fn silu(x: &Tensor) -> Tensor {
    x * x.sigmoid()
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

/// Softmax cross-entropy from integer labels (optax's
/// `softmax_cross_entropy_with_integer_labels`, then the mean): `labels` (i32) has
/// `logits`' shape without the class axis (the last), and the loss is the mean over
/// those positions of `-log_softmax(logits)[label]`. The label's entry is taken with
/// a gather (`take_along_axis`), not a one-hot product, so the cost does not grow with
/// the number of classes; a label outside `0..classes` is clamped into it, as JAX's
/// gather does.
///
/// ```
/// use ferrax::{Array, Tensor, nn};
/// let logits = Array::from_f64(&[2, 2], vec![0.0, 0.0, 0.0, 2f64.ln()]).unwrap();
/// let labels = Array::from_i32(&[2], vec![0, 1]).unwrap();
/// let f = |(z, y): (Tensor, Tensor)| nn::sparse_cross_entropy(&z, &y);
/// let loss = ferrax::eval(f, &(logits, labels)).unwrap().to_f64_vec()[0];
/// assert!((loss - 0.5 * (2f64.ln() + (1.5f64).ln())).abs() < 1e-12);
/// ```
#[track_caller]
pub fn sparse_cross_entropy(logits: &Tensor, labels: &Tensor) -> Tensor {
    let location = Location::caller();
    let operands = format!("sparse_cross_entropy: {} x {}", logits.ty(), labels.ty());
    let Some(classes) = logits.rank().checked_sub(1) else {
        return fail(location, format!("{operands}: logits need a class axis"), Type::scalar(logits.dtype()));
    };
    if labels.dtype() != DType::I32 || labels.shape() != &logits.shape()[..classes] {
        let message = format!("{operands}: labels must be i32 of the logits' shape without the class axis");
        return fail(location, message, Type::scalar(logits.dtype()));
    }
    let picked = log_softmax(logits, classes).take_along_axis(classes, &labels.expand_dims(classes));
    -picked.mean_all()
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
