//! The interface of the batching rules (vmap), and their dispatch.
//!
//! Every value of a batched program either varies along one *batch axis* (`Some(d)`)
//! or is the same for every example (`None`). [`Prim::batch`] is called for an
//! equation with at least one batched input: the rule emits the batched equation(s)
//! and returns the outputs with their batch axes. Rules leave unbatched operands
//! unbatched where they can and move batch axes only when they must. Family rules
//! cover most primitives: every elementwise primitive batches the same way, and
//! reductions renumber their axes.
//!
//! Structured primitives batch their bodies through [`BatchContext`]; bodies are
//! batched with every batched parameter and output at axis 0.

use super::{collective, control, conv, index, linalg, memory, random, reduce, shape, sort, unary, window};
use crate::{Emitter, Func, Module, Prim, Value};

/// What a batching rule of a structured primitive needs from the pass driving it.
pub trait BatchContext {
    /// The module being built.
    fn module(&self) -> &Module;

    /// The size of the batch axis.
    fn axis_size(&self) -> usize;

    /// The axis name this batch axis binds, if any: collectives over it become
    /// operations along the batch axis (`collective.rs`).
    fn bound_axis(&self) -> Option<&str> {
        None
    }

    /// The Func `name` batched: parameters marked in `in_batched` (and outputs marked
    /// in `force_out`, plus any that vary) gain a batch axis at position 0.
    fn batch_func(&mut self, name: &str, in_batched: &[bool], force_out: &[bool]) -> Result<BatchFunc, String>;

    /// Adds a helper Func a rule built; returns its (possibly renamed) name.
    fn add_func(&mut self, func: Func) -> String;
}

/// A Func batched by [`BatchContext::batch_func`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchFunc {
    /// Its name in the module.
    pub name: String,
    /// Which outputs are batched (at axis 0).
    pub out_batched: Vec<bool>,
}

/// The outputs of a batched equation and their batch axes.
pub type Batched = (Vec<Value>, Vec<Option<usize>>);

impl Prim {
    /// Emits this equation batched (see the module docs). `dims[i]` is input i's batch
    /// axis; at least one is `Some`.
    pub fn batch(
        &self,
        em: &mut Emitter,
        cx: &mut dyn BatchContext,
        inputs: &[Value],
        dims: &[Option<usize>],
    ) -> Result<Batched, String> {
        let size = cx.axis_size();
        match self {
            Prim::Unary(_) | Prim::Name { .. } | Prim::Binary(_) | Prim::Compare(_) | Prim::Ternary(_) => {
                unary::batch_elementwise(em, self, size, inputs, dims)
            }
            Prim::Shape(op) => shape::batch_structural(em, op, size, inputs, dims),
            Prim::Index(op) => index::batch_index(em, op, size, inputs, dims),
            Prim::Reduction(op) => reduce::batch_reduce(em, op, size, inputs, dims),
            Prim::Linalg(op) => linalg::batch(em, op, size, inputs, dims),
            Prim::Random(op) => random::batch(em, cx, op, inputs, dims),
            Prim::Memory(op) => memory::batch(em, *op, inputs, dims),
            Prim::Sort(op) => sort::batch(em, *op, size, inputs, dims),
            Prim::Control(op) => control::batch_control(em, cx, op, inputs, dims),
            Prim::Conv(op) => conv::batch(em, op, size, inputs, dims),
            Prim::Window(op) => window::batch(em, op, size, inputs, dims),
            Prim::Collective(op) => collective::batch(em, op, cx.bound_axis(), size, inputs, dims),
        }
    }
}
