//! Windowed reductions and pooling: [`reduce_window`] (`jax.lax.reduce_window` with
//! `lax.add`, `lax.max` or `lax.min`) and the functional [`max_pool`], [`min_pool`] and
//! [`avg_pool`] of flax (`flax.linen.max_pool`, `avg_pool`).
//!
//! A window is described by a [`WindowSpec`]: taps per axis, strides, [`Padding`]
//! (`Same`, `Valid` or explicit `(low, high)` pairs, resolved to pairs when the
//! operation is traced, by [`Padding::resolve`]), base dilation (holes between the
//! operand's elements) and window dilation (holes between the taps). Pooling works on
//! channels-last arrays as flax's does: for a window of `k` axes, the operand is
//! `[batch..., spatial (k axes)..., features]` and the window covers the `k` axes
//! before the last; any leading axes are batch axes.
//!
//! Derivatives: sum pooling's is a sum over the same windows; max and min pooling
//! send each window's cotangent to the first maximum (minimum) in it, as XLA does.

use super::lax;
use crate::Tensor;
use crate::ops::operand::Operand;
use crate::ops::{Scalar, div_at};
use crate::tracer::fail;
use ferrax_ir::DType;
use ferrax_ir::prim::Window;
use std::panic::Location;

pub use ferrax_ir::prim::WindowReduce;

pub use super::padding::Padding;

/// The windows of [`reduce_window`]: one entry per operand axis in each list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowSpec {
    /// Taps per axis.
    pub dimensions: Vec<usize>,
    /// Step between windows per axis (default 1).
    pub strides: Vec<usize>,
    /// The padding (default `Valid`).
    pub padding: Padding,
    /// Operand dilation per axis (default 1: none).
    pub base_dilation: Vec<usize>,
    /// Window dilation per axis (default 1: none).
    pub window_dilation: Vec<usize>,
}

impl WindowSpec {
    /// Windows of `dimensions` taps, stride 1, no padding, no dilation.
    pub fn new(dimensions: &[usize]) -> WindowSpec {
        let ones = vec![1; dimensions.len()];
        WindowSpec {
            dimensions: dimensions.to_vec(),
            strides: ones.clone(),
            padding: Padding::Valid,
            base_dilation: ones.clone(),
            window_dilation: ones,
        }
    }

    /// With these strides.
    pub fn strides(mut self, strides: &[usize]) -> WindowSpec {
        self.strides = strides.to_vec();
        self
    }

    /// With this padding.
    pub fn padding(mut self, padding: Padding) -> WindowSpec {
        self.padding = padding;
        self
    }

    /// With this operand dilation.
    pub fn base_dilation(mut self, dilation: &[usize]) -> WindowSpec {
        self.base_dilation = dilation.to_vec();
        self
    }

    /// With this window dilation.
    pub fn window_dilation(mut self, dilation: &[usize]) -> WindowSpec {
        self.window_dilation = dilation.to_vec();
        self
    }

    /// The IR's window over an operand of `shape`: the padding resolved as
    /// `lax.reduce_window` does (on the undilated taps).
    fn resolve(&self, shape: &[usize]) -> Result<Window, String> {
        let pairs = self.padding.resolve(shape, &self.dimensions, &self.strides)?;
        let mut padding = Vec::with_capacity(pairs.len());
        for (axis, (lo, hi)) in pairs.into_iter().enumerate() {
            match (usize::try_from(lo), usize::try_from(hi)) {
                (Ok(lo), Ok(hi)) => padding.push([lo, hi]),
                _ => return Err(format!("padding: ({lo}, {hi}) on axis {axis} is negative")),
            }
        }
        Ok(Window {
            dimensions: self.dimensions.clone(),
            strides: self.strides.clone(),
            padding,
            base_dilation: self.base_dilation.clone(),
            window_dilation: self.window_dilation.clone(),
        })
    }
}

/// `jax.lax.reduce_window(x, init, op, ...)`: each window of `x` (see [`WindowSpec`])
/// combined by `op`, starting from `init`, which must be the identity of `op` (`0.0`
/// for sum, `f64::NEG_INFINITY` for max, `f64::INFINITY` for min; for i32, `0`,
/// `i32::MIN`, `i32::MAX`): running the traced function refuses any other value. A
/// Rust scalar `init` takes `x`'s dtype.
///
/// ```
/// use ferrax::lax::{Padding, WindowReduce, WindowSpec, reduce_window};
/// use ferrax::{Array, Tensor, eval};
/// let x = Array::from_f32(&[5], vec![1.0, 3.0, 2.0, 5.0, 4.0]).unwrap();
/// let spec = WindowSpec::new(&[2]).strides(&[2]).padding(Padding::Same);
/// let out = eval(|x: Tensor| reduce_window(&x, f64::NEG_INFINITY, WindowReduce::Max, &spec), &x).unwrap();
/// assert_eq!(out.to_f64_vec(), [3.0, 5.0, 4.0]);
/// ```
#[track_caller]
pub fn reduce_window(x: &Tensor, init: impl Into<Operand>, op: WindowReduce, spec: &WindowSpec) -> Tensor {
    reduce_window_at(x, init.into(), op, spec, Location::caller())
}

fn reduce_window_at(x: &Tensor, init: Operand, op: WindowReduce, spec: &WindowSpec, location: Loc) -> Tensor {
    let init = match init {
        Operand::Tensor(t) => t,
        Operand::Scalar(s) => scalar_of(x.dtype(), s, location),
    };
    match spec.resolve(x.shape()) {
        Ok(window) => lax::reduce_window(x, &init, op, window, location),
        Err(message) => fail(location, format!("reduce_window: {message}"), x.ty().clone()),
    }
}

type Loc = &'static Location<'static>;

/// A rank-0 constant of `dtype` holding `value`; infinities become i32's extremes.
fn scalar_of(dtype: DType, value: Scalar, location: Loc) -> Tensor {
    let value = match (dtype, value) {
        (DType::I32, Scalar::Float(v)) if v == f64::INFINITY => Scalar::Int(i64::from(i32::MAX)),
        (DType::I32, Scalar::Float(v)) if v == f64::NEG_INFINITY => Scalar::Int(i64::from(i32::MIN)),
        (_, v) => v,
    };
    lax::constant(value.to_array(dtype), &[], location)
}

/// The window of a pooling over `x`'s axes before the last (flax's layout): ones over
/// the leading batch axes and the features.
fn pool_spec(
    x: &Tensor,
    window: &[usize],
    strides: &[usize],
    padding: &Padding,
    what: &str,
) -> Result<WindowSpec, String> {
    let (k, rank) = (window.len(), x.rank());
    if rank < k + 1 {
        return Err(format!(
            "{what}: a window of {k} axes needs an operand of rank at least {}, got {}",
            k + 1,
            x.ty()
        ));
    }
    if strides.len() != k {
        return Err(format!("{what}: {} strides for a window of {k} axes", strides.len()));
    }
    let batch = rank - k - 1;
    let embed = |inner: &[usize]| -> Vec<usize> {
        std::iter::repeat_n(1, batch).chain(inner.iter().copied()).chain(std::iter::once(1)).collect()
    };
    let padding = match padding {
        Padding::Explicit(pairs) if pairs.len() == k => Padding::Explicit(
            std::iter::repeat_n((0, 0), batch).chain(pairs.iter().copied()).chain(std::iter::once((0, 0))).collect(),
        ),
        Padding::Explicit(pairs) => {
            return Err(format!("{what}: {} (low, high) pairs for a window of {k} axes", pairs.len()));
        }
        other => other.clone(),
    };
    Ok(WindowSpec::new(&embed(window)).strides(&embed(strides)).padding(padding))
}

/// flax's `max_pool`: the maximum of each window over the `window.len()` axes before
/// the last of `x` (`[batch..., spatial..., features]`), with `strides` (one per window
/// axis) and `padding` (`Same`, `Valid`, or pairs for the window axes); padding never
/// wins. Its gradient goes to the first maximum of each window.
///
/// ```
/// use ferrax::lax::{Padding, max_pool};
/// use ferrax::{Array, Tensor, eval};
/// // One image of 2x4 pixels with one channel, 2x2 windows moved by 2.
/// let x = Array::from_f32(&[1, 2, 4, 1], vec![1.0, 5.0, 2.0, 0.0, 3.0, 4.0, 8.0, 7.0]).unwrap();
/// let out = eval(|x: Tensor| max_pool(&x, &[2, 2], &[2, 2], Padding::Valid), &x).unwrap();
/// assert_eq!(out.to_f64_vec(), [5.0, 8.0]);
/// ```
#[track_caller]
pub fn max_pool(x: &Tensor, window: &[usize], strides: &[usize], padding: Padding) -> Tensor {
    extreme_pool(x, window, strides, &padding, WindowReduce::Max, Location::caller())
}

/// The minimum over each window, as [`max_pool`] (its gradient goes to the first
/// minimum).
#[track_caller]
pub fn min_pool(x: &Tensor, window: &[usize], strides: &[usize], padding: Padding) -> Tensor {
    extreme_pool(x, window, strides, &padding, WindowReduce::Min, Location::caller())
}

fn extreme_pool(
    x: &Tensor,
    window: &[usize],
    strides: &[usize],
    padding: &Padding,
    op: WindowReduce,
    at: Loc,
) -> Tensor {
    let what = if op == WindowReduce::Max { "max_pool" } else { "min_pool" };
    let init = if op == WindowReduce::Max { f64::NEG_INFINITY } else { f64::INFINITY };
    match pool_spec(x, window, strides, padding, what) {
        Ok(spec) => reduce_window_at(x, Operand::Scalar(Scalar::Float(init)), op, &spec, at),
        Err(message) => fail(at, message, x.ty().clone()),
    }
}

/// flax's `avg_pool`: the mean of each window over the axes before the last, as
/// [`max_pool`] lays them out. With `count_include_pad` (flax's default, `true`) every
/// window's sum is divided by the window's size, padding included; without, by the
/// number of the operand's elements it covers. Float operands.
///
/// ```
/// use ferrax::lax::{Padding, avg_pool};
/// use ferrax::{Array, Tensor, eval};
/// let x = Array::from_f32(&[1, 3, 1], vec![1.0, 2.0, 6.0]).unwrap();
/// let with = eval(|x: Tensor| avg_pool(&x, &[2], &[2], Padding::Same, true), &x).unwrap();
/// assert_eq!(with.to_f64_vec(), [1.5, 3.0]);
/// let without = eval(|x: Tensor| avg_pool(&x, &[2], &[2], Padding::Same, false), &x).unwrap();
/// assert_eq!(without.to_f64_vec(), [1.5, 6.0]);
/// ```
#[track_caller]
pub fn avg_pool(x: &Tensor, window: &[usize], strides: &[usize], padding: Padding, count_include_pad: bool) -> Tensor {
    let at = Location::caller();
    let spec = match pool_spec(x, window, strides, &padding, "avg_pool") {
        Ok(spec) => spec,
        Err(message) => return fail(at, message, x.ty().clone()),
    };
    if !x.dtype().is_float() {
        return fail(at, format!("avg_pool: expects a float operand, got {}", x.ty()), x.ty().clone());
    }
    let sums = reduce_window_at(x, Operand::Scalar(Scalar::Float(0.0)), WindowReduce::Sum, &spec, at);
    if count_include_pad {
        let size: usize = window.iter().product();
        let size = lax::constant(Scalar::Float(size as f64).to_array(x.dtype()), &[], at);
        return div_at(&sums, &size, at);
    }
    // The count of real elements per window: the same windows over ones shaped like
    // one example's spatial axes (batch and feature axes of size 1, which broadcast).
    let (rank, batch) = (x.rank(), x.rank() - window.len() - 1);
    let ones_shape: Vec<usize> = (0..rank).map(|a| if a < batch || a + 1 == rank { 1 } else { x.shape()[a] }).collect();
    let ones = lax::constant(Scalar::Int(1).to_array(x.dtype()), &ones_shape, at);
    let counts = reduce_window_at(&ones, Operand::Scalar(Scalar::Float(0.0)), WindowReduce::Sum, &spec, at);
    div_at(&sums, &counts, at)
}
