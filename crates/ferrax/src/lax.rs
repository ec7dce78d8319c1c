//! `ferrax::lax`: the primitives with `jax.lax`'s signatures that have no `Tensor`
//! method of their own: convolution ([`conv_general_dilated`] and its [`ConvSpec`]),
//! windowed reductions ([`reduce_window`], its [`WindowSpec`]) and flax's pools built
//! on them ([`max_pool`], [`min_pool`], [`avg_pool`]), with one [`Padding`] for all;
//! the op surface in `ops/` holds the implementations.

pub use crate::ops::conv::{ConvSpec, conv_general_dilated};
pub use crate::ops::padding::Padding;
pub use crate::ops::window::{WindowReduce, WindowSpec, avg_pool, max_pool, min_pool, reduce_window};
