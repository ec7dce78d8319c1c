//! `ferrax::lax`: the primitives with `jax.lax`'s signatures that have no `Tensor`
//! method of their own: convolution ([`conv_general_dilated`] and its [`ConvSpec`]),
//! windowed reductions ([`reduce_window`], its [`WindowSpec`]) and flax's pools built
//! on them ([`max_pool`], [`min_pool`], [`avg_pool`]), with one [`Padding`] for all;
//! and the collectives over named axes ([`psum`], [`pmax`], [`pmin`], [`pmean`],
//! [`all_gather`], [`psum_scatter`], [`ppermute`], [`all_to_all`], [`axis_index`]),
//! whose axes `vmap(f).axis_name("i")` binds. The op surface in `ops/` holds the
//! implementations.

pub use crate::ops::collective::{all_gather, all_to_all, axis_index, pmax, pmean, pmin, ppermute, psum, psum_scatter};
pub use crate::ops::conv::{ConvSpec, conv_general_dilated};
pub use crate::ops::padding::Padding;
pub use crate::ops::window::{WindowReduce, WindowSpec, avg_pool, max_pool, min_pool, reduce_window};
