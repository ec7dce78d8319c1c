//! Convolution and pooling layers, channels last as flax's: [`Conv`] ([`Conv1d`],
//! [`Conv2d`], [`Conv3d`]) over `conv_general_dilated`, inputs `(batch, spatial...,
//! features)` and kernels `(spatial..., in / groups, out)` (HWIO); [`Pool`] (max and
//! average, [`MaxPool2d`] and friends) over `reduce_window`; and [`Flatten`], which joins
//! a convolutional stack to dense layers.
//!
//! ```
//! use ferrax::nn::{Activation, Context, Conv2d, Flatten, Layer, Linear, MaxPool2d};
//! use ferrax::{Array, Tensor, random};
//! let model = (Conv2d::new(3, 8, [3, 3]), Activation::Relu, MaxPool2d::max([2, 2]), Flatten, Linear::new(4 * 4 * 8, 10));
//! let params = model.init(&random::key(0)).unwrap();
//! let x = Array::from_f32(&[2, 8, 8, 3], vec![0.5; 2 * 8 * 8 * 3]).unwrap();
//! let logits = ferrax::eval(|(p, x)| model.forward(&p, &x, &mut Context::eval()), &(params, x)).unwrap();
//! assert_eq!(logits.shape(), [2, 10]);
//! ```

use super::{Context, Init, Layer, params_struct};
use crate::lax::{ConvSpec, Padding};
use crate::tracer::fail;
use crate::tree::Tree;
use crate::{Tensor, random};
use ferrax_ir::DType;
use std::panic::Location;

params_struct! {
    /// The parameters of [`Conv`]: `kernel` `(spatial..., in / groups, out)` and `bias`
    /// `(out,)` (absent when the layer has none).
    pub struct ConvParams<T> {
        /// The kernel, HWIO.
        pub kernel: T,
        /// The bias, `(out_features,)`.
        pub bias: Option<T>,
    }
}

/// A convolution over `D` spatial axes (flax's `Conv`): `y = conv(x, kernel) + bias`,
/// channels last. The input is `(batch, spatial..., in_features)` (one image without
/// its batch axis is taken too, as flax does).
#[derive(Clone, Debug, PartialEq)]
pub struct Conv<const D: usize> {
    /// Input features (the input's last axis).
    pub in_features: usize,
    /// Output features.
    pub out_features: usize,
    /// The window.
    pub kernel_size: [usize; D],
    /// The window's step (flax: 1).
    pub strides: [usize; D],
    /// The padding (flax: SAME).
    pub padding: Padding,
    /// Kernel dilation (flax's `kernel_dilation`: 1).
    pub dilation: [usize; D],
    /// Feature groups (`in_features` for a depthwise convolution).
    pub groups: usize,
    /// Whether there is a bias.
    pub use_bias: bool,
    /// The kernel's initialiser (flax: Lecun normal, fan-in = window · in / groups).
    pub kernel_init: Init,
    /// The bias' initialiser (flax: zeros).
    pub bias_init: Init,
    /// The parameters' dtype.
    pub dtype: DType,
}

/// A convolution over one spatial axis (sequences: `(batch, length, features)`).
pub type Conv1d = Conv<1>;
/// A convolution over two spatial axes (images: `(batch, height, width, features)`).
pub type Conv2d = Conv<2>;
/// A convolution over three spatial axes (volumes).
pub type Conv3d = Conv<3>;

/// The layout strings of a channels-last convolution over `d` spatial axes.
fn channels_last(d: usize) -> [String; 3] {
    let letters: String = "HWD".chars().take(d).collect();
    [format!("N{letters}C"), format!("{letters}IO"), format!("N{letters}C")]
}

impl<const D: usize> Conv<D> {
    /// `in_features -> out_features` with this window: unit strides, SAME padding, a
    /// bias, flax's initialisers, f32.
    pub fn new(in_features: usize, out_features: usize, kernel_size: [usize; D]) -> Conv<D> {
        Conv {
            in_features,
            out_features,
            kernel_size,
            strides: [1; D],
            padding: Padding::Same,
            dilation: [1; D],
            groups: 1,
            use_bias: true,
            kernel_init: Init::LecunNormal,
            bias_init: Init::Zeros,
            dtype: DType::F32,
        }
    }

    /// The convolution of `x` (channels last, with or without a batch axis).
    #[track_caller]
    pub fn apply(&self, params: &ConvParams<Tensor>, x: &Tensor) -> Tensor {
        let location = Location::caller();
        let unbatched = x.rank() == D + 1;
        if x.rank() != D + 2 && !unbatched {
            let message = format!("nn::Conv{D}d: the input {} must have {} or {} axes", x.ty(), D + 1, D + 2);
            return fail(location, message, x.ty().clone());
        }
        let x = if unbatched { x.expand_dims(0) } else { x.clone() };
        let [lhs, rhs, out] = channels_last(D);
        let spec = ConvSpec::new()
            .strides(&self.strides)
            .padding(self.padding.clone())
            .rhs_dilation(&self.dilation)
            .layout(&lhs, &rhs, &out)
            .feature_groups(self.groups);
        let y = crate::lax::conv_general_dilated(&x, &params.kernel, &spec);
        let y = match &params.bias {
            Some(b) => y + b,
            None => y,
        };
        if unbatched { y.squeeze(0) } else { y }
    }
}

impl<const D: usize> Layer for Conv<D> {
    type Params<T: Tree<T>> = ConvParams<T>;

    fn init_traced(&self, key: &Tensor) -> ConvParams<Tensor> {
        let [k, b] = random::split_into(key);
        let mut shape = self.kernel_size.to_vec();
        shape.extend([self.in_features / self.groups.max(1), self.out_features]);
        ConvParams {
            kernel: self.kernel_init.sample(&k, &shape, self.dtype),
            bias: self.use_bias.then(|| self.bias_init.sample(&b, &[self.out_features], self.dtype)),
        }
    }

    fn forward(&self, params: &ConvParams<Tensor>, x: &Tensor, _: &mut Context) -> Tensor {
        self.apply(params, x)
    }
}

/// Flattens every axis but the first (the batch): `(batch, ...) -> (batch, rest)`,
/// between convolutional and dense layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flatten;

impl Layer for Flatten {
    type Params<T: Tree<T>> = ();

    fn init_traced(&self, _: &Tensor) {}

    fn forward(&self, _: &(), x: &Tensor, _: &mut Context) -> Tensor {
        let batch = x.shape().first().copied().unwrap_or(1);
        let rest: usize = x.shape().iter().skip(1).product();
        x.reshape(&[batch, rest])
    }
}

/// Max or average pooling over `D` spatial axes of a channels-last input (flax's
/// `max_pool` and `avg_pool` as layers): `(batch, spatial..., features)`, one image
/// without its batch axis taken too.
#[derive(Clone, Debug, PartialEq)]
pub struct Pool<const D: usize> {
    /// Max (the gradient goes to each window's first maximum) or average.
    pub kind: PoolKind,
    /// The window.
    pub window: [usize; D],
    /// The window's step (flax: 1; the constructors take the window, as PyTorch's).
    pub strides: [usize; D],
    /// The padding (flax: VALID).
    pub padding: Padding,
}

/// What a [`Pool`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolKind {
    /// The maximum of each window.
    Max,
    /// The mean of each window, padding counted (flax's `count_include_pad=True`).
    Avg,
}

/// Max pooling over 1, 2 or 3 spatial axes.
pub type MaxPool1d = Pool<1>;
/// Max pooling over two spatial axes.
pub type MaxPool2d = Pool<2>;
/// Max pooling over three spatial axes.
pub type MaxPool3d = Pool<3>;
/// Average pooling over one spatial axis.
pub type AvgPool1d = Pool<1>;
/// Average pooling over two spatial axes.
pub type AvgPool2d = Pool<2>;
/// Average pooling over three spatial axes.
pub type AvgPool3d = Pool<3>;

impl<const D: usize> Pool<D> {
    /// Max pooling with non-overlapping windows (strides = window), VALID padding.
    pub fn max(window: [usize; D]) -> Pool<D> {
        Pool { kind: PoolKind::Max, window, strides: window, padding: Padding::Valid }
    }

    /// Average pooling with non-overlapping windows (strides = window), VALID padding.
    pub fn avg(window: [usize; D]) -> Pool<D> {
        Pool { kind: PoolKind::Avg, window, strides: window, padding: Padding::Valid }
    }

    /// The pooled `x`.
    #[track_caller]
    pub fn apply(&self, x: &Tensor) -> Tensor {
        let unbatched = x.rank() == D + 1;
        let x = if unbatched { x.expand_dims(0) } else { x.clone() };
        let y = match self.kind {
            PoolKind::Max => crate::lax::max_pool(&x, &self.window, &self.strides, self.padding.clone()),
            PoolKind::Avg => crate::lax::avg_pool(&x, &self.window, &self.strides, self.padding.clone(), true),
        };
        if unbatched { y.squeeze(0) } else { y }
    }
}

impl<const D: usize> Layer for Pool<D> {
    type Params<T: Tree<T>> = ();

    fn init_traced(&self, _: &Tensor) {}

    fn forward(&self, _: &(), x: &Tensor, _: &mut Context) -> Tensor {
        self.apply(x)
    }
}
