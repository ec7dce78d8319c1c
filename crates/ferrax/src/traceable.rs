//! [`Traceable`]: what every transform accepts, so that transforms compose.
//!
//! A closure over tensors is traceable, and so is the object a transform returns:
//! `grad(f)`, `vmap(f)` and `jit(f)` trace their transformed function into the trace
//! that is open when applied. Every transform takes any `Traceable`, so they nest in
//! any order and depth, as in JAX: `jit(grad(f))` compiles a gradient, `vmap(grad(f))`
//! gives per-example gradients, `grad(grad(f))` a second derivative, `grad(jit(f))`
//! differentiates a compiled function (under a trace, `jit` traces `f` inline; the
//! outermost `jit` compiles everything in one module).
//!
//! Closures implement it through a blanket impl; a transform object implements it
//! for every argument tree its own `apply` accepts. Rust's closure traits are
//! fundamental, so the two never overlap.

use crate::Tensor;
use crate::tree::Tree;

/// A function from a tree of tensors to a tree of tensors that can be traced: a
/// closure, or a transform of one.
pub trait Traceable<In> {
    /// The tree of tensors it returns.
    type Out: Tree<Tensor>;

    /// Applies it inside the open trace (emitting its equations there).
    fn trace_apply(&self, args: In) -> Self::Out;
}

impl<F, In, Out> Traceable<In> for F
where
    F: Fn(In) -> Out,
    Out: Tree<Tensor>,
{
    type Out = Out;

    fn trace_apply(&self, args: In) -> Out {
        self(args)
    }
}
