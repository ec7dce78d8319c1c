//! Neural-network building blocks: functions on [`Tensor`]s and layers whose
//! parameters are pytrees.
//!
//! # Functions
//!
//! Activations ([`gelu`], [`silu`]), normalisers ([`softmax`], [`log_softmax`],
//! [`logsumexp`], [`masked_softmax`]), losses ([`cross_entropy`] from probabilities,
//! [`sparse_cross_entropy`] from integer labels, [`mse`]) and [`one_hot`]. Where the
//! naive formula fails, they use the stable one: the exponentials are taken of
//! `x - max(x)`, with the max behind `stop_gradient` (the shift does not change the
//! value, so its derivative is not needed) and a non-finite max (an all `-inf` row)
//! replaced by 0 so that the shift itself produces no NaN; cross-entropy goes through
//! `log_softmax` of the logits, never `log(softmax)`; [`masked_softmax`] applies the mask
//! before taking the max and gives a fully masked row zeros.
//!
//! ```
//! use ferrax::{Array, Tensor, nn};
//! let logits = Array::from_f32(&[2], vec![0.0, 0.0]).unwrap();
//! let p = ferrax::eval(|x: Tensor| nn::softmax(&x, 0), &logits).unwrap();
//! assert_eq!(p.as_f32().unwrap(), &[0.5, 0.5]);
//! ```
//!
//! # Layers
//!
//! A layer is split as in flax: a small configuration value ([`Linear`],
//! [`LayerNorm`], [`MultiHeadAttention`]...: sizes and options, no arrays) and its
//! parameters, a struct generic over the leaf type ([`LinearParams<T>`]...) and
//! therefore a [`Tree`](crate::Tree). `LinearParams<Array>` holds the values, `LinearParams<Tensor>`
//! is what a traced function receives, so parameters go through `grad`, `vmap`, `jit`
//! and the optimisers of [`crate::optim`] like any other tree. Every layer implements
//! [`Layer`]:
//!
//! - [`Layer::init`]`(key)` draws the parameters from a PRNG key with the layer's
//!   initialisers (flax's defaults: [`Init::LecunNormal`] kernels, zero biases, unit
//!   scales). With a host key ([`Array`](crate::Array)) it returns host parameters,
//!   with a traced key it emits the initialisation into the trace;
//! - [`Layer::forward`]`(params, x, ctx)` applies the layer; the [`Context`] says
//!   whether this is training and carries the key that dropout splits. Each layer
//!   also has an inherent `apply(params, x)` with exactly the arguments it needs.
//!
//! ```
//! use ferrax::nn::{Layer, Linear, LinearParams};
//! use ferrax::{Array, Tensor, random};
//! let layer = Linear::new(3, 2);
//! let params: LinearParams<Array> = layer.init(&random::key(0)).unwrap();
//! assert_eq!(params.kernel.shape(), [3, 2]);
//! let x = Array::from_f32(&[4, 3], vec![1.0; 12]).unwrap();
//! let y = ferrax::eval(|(p, x): (LinearParams<Tensor>, Tensor)| layer.apply(&p, &x), &(params, x)).unwrap();
//! assert_eq!(y.shape(), [4, 2]);
//! ```
//!
//! A tuple of layers (up to 8) is a layer that applies them in order, with the tuple
//! of their parameters ([`Sequential`] wraps one, for readability); a `Vec` of layers
//! of one type is a stack of them, with a `Vec` of parameters. [`Activation`] turns a
//! function into a layer without parameters.
//!
//! Layers with state beside their parameters do not fit that signature and are
//! applied by hand: [`BatchNorm`] keeps its running statistics in a separate tree
//! ([`BatchNormState`]) that `apply_train` returns updated, as flax's `batch_stats`
//! collection. Convolution ([`Conv1d`], [`Conv2d`], [`Conv3d`]), pooling ([`MaxPool2d`],
//! [`AvgPool2d`] and the other ranks, one [`Pool`] type) and [`Flatten`] are layers of
//! the same shape, channels last as flax's.
//!
//! # Differences from flax
//!
//! - [`MultiHeadAttention`] stores the query, key, value and output projections as 2-D
//!   kernels `(d_in, heads·head_dim)` and `(heads·head_dim, d_out)`, where flax's
//!   `DenseGeneral` keeps `(d_in, heads, head_dim)` and `(heads, head_dim, d_out)`:
//!   the same numbers, reshaped, with the same fans (flax initialises the flattened
//!   kernel).
//! - [`LayerNorm`] and [`BatchNorm`] compute the variance as the mean of squared
//!   deviations from the mean (flax's default "fast variance" is `E[x²] - E[x]²`,
//!   which loses every digit when the mean is large against the spread).
//! - A fully masked attention row gives zero weights, not flax's uniform ones.
//! - Attention has no dropout on its weights; apply [`Dropout`] to its output instead.

mod attention;
mod conv;
mod functional;
mod init;
mod layers;
mod sequential;

pub use attention::{MultiHeadAttention, MultiHeadAttentionParams, causal_mask, dot_product_attention};
pub use conv::{
    AvgPool1d, AvgPool2d, AvgPool3d, Conv, Conv1d, Conv2d, Conv3d, ConvParams, Flatten, MaxPool1d, MaxPool2d,
    MaxPool3d, Pool, PoolKind,
};
pub use functional::{
    cross_entropy, gelu, log_softmax, logsumexp, masked_softmax, mse, one_hot, silu, softmax, sparse_cross_entropy,
};
pub use init::{Init, fans, truncated_normal};
pub use layers::{
    Activation, BatchNorm, BatchNormParams, BatchNormState, Dropout, Embedding, EmbeddingParams, LayerNorm,
    LayerNormParams, Linear, LinearParams,
};
pub use sequential::{Context, Layer, Sequential};

/// Defines a parameter struct generic over its leaf type `T` and implements
/// [`Tree`](crate::Tree) for it by hand (the derive is an optional feature of this
/// crate, and the layers must not depend on it). Every field's type is a tree of `T`.
macro_rules! params_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident<T> {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name<T> {
            $($(#[$field_meta])* pub $field: $ty,)+
        }

        impl<L, T: $crate::Tree<L>> $crate::Tree<L> for $name<T> {
            type With<M> = $name<<T as $crate::Tree<L>>::With<M>>;

            fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
                $($crate::Tree::<L>::for_each_leaf(&self.$field, f);)+
            }

            fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> Self::With<M> {
                $name { $($field: $crate::Tree::<L>::map_leaves(&self.$field, f),)+ }
            }

            fn write_structure(&self, out: &mut String) {
                out.push_str(concat!(stringify!($name), " {"));
                let mut first = true;
                $(
                    out.push_str(if first { " " } else { ", " });
                    first = false;
                    out.push_str(concat!(stringify!($field), ": "));
                    $crate::Tree::<L>::write_structure(&self.$field, out);
                )+
                let _ = first;
                out.push_str(" }");
            }
        }
    };
}
pub(crate) use params_struct;

/// The last axis of `x` must be `expected`: `Ok(())`, or the message naming the layer
/// and both sizes.
fn check_features(layer: &str, x: &Tensor, expected: usize) -> Result<(), String> {
    match x.shape().last() {
        Some(&n) if n == expected => Ok(()),
        _ => Err(format!("{layer}: input {} must have {expected} features in its last axis", x.ty())),
    }
}

use crate::Tensor;
