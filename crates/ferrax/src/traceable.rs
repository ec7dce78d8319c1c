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

/// What the tracing entry points ([`crate::trace`], [`crate::make_ir`],
/// [`crate::eval`]) accept: any closure that runs once (`FnOnce`), or a transform object
/// (owned or borrowed), so `make_ir(jit(hvp(f)), &spec)` shows the module a transform
/// builds.
pub trait TraceOnce<In> {
    /// The tree of tensors it returns.
    type Out: Tree<Tensor>;

    /// Applies it once inside the open trace.
    fn trace_once(self, args: In) -> Self::Out;
}

impl<F, In, Out> TraceOnce<In> for F
where
    F: FnOnce(In) -> Out,
    Out: Tree<Tensor>,
{
    type Out = Out;

    fn trace_once(self, args: In) -> Out {
        self(args)
    }
}

/// A transform object is [`TraceOnce`] through its [`Traceable`] impl, and a reference
/// to one is both: the object itself stays with its owner (and its caches).
macro_rules! transform_objects {
    ($($name:ident<$($p:ident),+>),* $(,)?) => {$(
        impl<$($p,)+ In> TraceOnce<In> for $name<$($p),+>
        where
            $name<$($p),+>: Traceable<In>,
        {
            type Out = <$name<$($p),+> as Traceable<In>>::Out;

            #[track_caller]
            fn trace_once(self, args: In) -> Self::Out {
                self.trace_apply(args)
            }
        }

        impl<'a, $($p,)+ In> TraceOnce<In> for &'a $name<$($p),+>
        where
            $name<$($p),+>: Traceable<In>,
        {
            type Out = <$name<$($p),+> as Traceable<In>>::Out;

            #[track_caller]
            fn trace_once(self, args: In) -> Self::Out {
                self.trace_apply(args)
            }
        }

        impl<'a, $($p,)+ In> Traceable<In> for &'a $name<$($p),+>
        where
            $name<$($p),+>: Traceable<In>,
        {
            type Out = <$name<$($p),+> as Traceable<In>>::Out;

            #[track_caller]
            fn trace_apply(&self, args: In) -> Self::Out {
                (**self).trace_apply(args)
            }
        }
    )*};
}

use crate::autodiff::{Grad, GradAux, ValueAndGrad, ValueAndGradAux};
use crate::batching::{Hessian, Jacobian, JacobianAux, Vmap};
use crate::custom::{CustomJvp, CustomVjp};
use crate::jit::Jit;
use crate::transforms::{Checkpoint, Hvp, Jvp, Linearize, Linearized, Vjp, VjpAux};

transform_objects!(
    Grad<F>,
    ValueAndGrad<F>,
    GradAux<F>,
    ValueAndGradAux<F>,
    Vmap<F>,
    Jacobian<F>,
    JacobianAux<F>,
    Hessian<F>,
    Jit<F>,
    CustomJvp<F, J>,
    CustomVjp<F, Fw, Bw>,
    Jvp<F>,
    Vjp<F>,
    VjpAux<F>,
    Hvp<F>,
    Linearize<F>,
    Linearized<P>,
    Checkpoint<F>,
);
