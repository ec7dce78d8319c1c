//! `ferrax::lax`: the primitives with `jax.lax`'s signatures that have no `Tensor`
//! method of their own. Convolution ([`conv_general_dilated`], its [`ConvSpec`] and
//! [`Padding`]) is the first; the op surface in `ops/` holds the implementations.

pub use crate::ops::conv::{ConvSpec, Padding, conv_general_dilated};
