//! The classes of primitives the partitioner reasons about, read from the property
//! table of `ferrax_ir::prim`:
//! elementwise (cheap or expensive), views, sources, reductions, and launches (the
//! equations that stay in the schedule: `dot_general`, control flow, opaque primitives).

use ferrax_ir::prim::{Class as PropClass, Prim, Replicates};

/// How the partitioner treats an equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Elementwise on equal shapes; `expensive` per [`is_expensive`].
    Elementwise {
        /// Evaluated more than once per element only at a real cost.
        expensive: bool,
    },
    /// `constant` or `iota`: no operand, duplicated into every kernel that reads it.
    Source,
    /// A shape-changing view (index arithmetic inside a kernel).
    View,
    /// A reduction (at most one per kernel).
    Reduction,
    /// Stays an equation of the schedule (a launch of its own).
    Launch,
}

/// The class of `prim`, from its row of the property table.
pub(crate) fn class(prim: &Prim) -> Class {
    let props = prim.props();
    match props.class {
        PropClass::Elementwise => Class::Elementwise { expensive: props.expensive },
        PropClass::Source => Class::Source,
        PropClass::View => Class::View,
        PropClass::Reduction => Class::Reduction,
        PropClass::Launch => Class::Launch,
    }
}

/// True for elementwise primitives (one output element from the same element of each
/// operand: unary, `integer_pow`, `convert`, `stop_gradient`, `name`, binary, compare,
/// `select`, `clamp`).
pub fn is_elementwise(prim: &Prim) -> bool {
    matches!(class(prim), Class::Elementwise { .. })
}

/// Whether `prim` may appear inside a kernel (the contract's kernel-able set).
pub fn is_kernel_prim(prim: &Prim) -> bool {
    !matches!(class(prim), Class::Launch)
}

/// True for elementwise math that costs a call or a long instruction sequence per
/// element (see [`ferrax_ir::prim::Props::expensive`]).
pub(crate) fn is_expensive(prim: &Prim) -> bool {
    prim.props().expensive
}

/// True for the reductions whose input must not be duplicated into two kernels: a
/// max/min (or arg-max/min) reduction, as in softmax's `max` and `exp(x - max)`.
pub(crate) fn is_extreme_reduction(prim: &Prim) -> bool {
    prim.props().extreme
}

/// True when a view may read one operand element for several result elements (an
/// expanding `broadcast_in_dim`, a `gather` whose indices may repeat).
pub(crate) fn view_replicates(prim: &Prim, in_elems: usize, out_elems: usize) -> bool {
    match prim.props().replicates {
        Replicates::No => false,
        Replicates::WhenLarger => out_elems > in_elems,
        Replicates::Yes => true,
    }
}
