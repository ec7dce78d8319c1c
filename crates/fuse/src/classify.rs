//! The classes of primitives the partitioner reasons about (notes section 9, step 1):
//! elementwise (cheap or expensive), views, sources, reductions, and launches (the
//! equations that stay in the schedule: `dot_general`, control flow, opaque primitives).

use ferrax_ir::prim::{BinaryOp, Prim, ReduceOp, UnaryOp};

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

/// The class of `prim`.
pub(crate) fn class(prim: &Prim) -> Class {
    match prim {
        Prim::Unary(_)
        | Prim::IntegerPow { .. }
        | Prim::Convert { .. }
        | Prim::StopGradient
        | Prim::Name { .. }
        | Prim::Binary(_)
        | Prim::Compare(_)
        | Prim::Select
        | Prim::Clamp => Class::Elementwise { expensive: is_expensive(prim) },
        Prim::Constant { .. } | Prim::Iota { .. } => Class::Source,
        Prim::BroadcastInDim { .. }
        | Prim::Reshape { .. }
        | Prim::Transpose { .. }
        | Prim::Rev { .. }
        | Prim::Slice { .. }
        | Prim::Pad { .. }
        | Prim::Concatenate { .. }
        | Prim::DynamicSlice { .. }
        | Prim::Gather { .. } => Class::View,
        Prim::Reduce { .. } | Prim::ArgReduce { .. } => Class::Reduction,
        Prim::DynamicUpdateSlice
        | Prim::ScatterAdd { .. }
        | Prim::Cumsum { .. }
        | Prim::DotGeneral(_)
        | Prim::RandomBits { .. }
        | Prim::Call { .. }
        | Prim::Cond { .. }
        | Prim::While { .. }
        | Prim::Scan(_)
        | Prim::CustomJvp { .. }
        | Prim::CustomVjp { .. }
        | Prim::Remat { .. } => Class::Launch,
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
/// element: `exp`, `log`, `log1p`, `expm1`, `tanh`, `logistic`, `sin`, `cos`, `tan`,
/// `erf`, `sqrt`, `rsqrt`, `pow`, `atan2`, `div`, `rem`.
pub(crate) fn is_expensive(prim: &Prim) -> bool {
    match prim {
        Prim::Unary(op) => match op {
            UnaryOp::Exp
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Expm1
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Tan
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Erf => true,
            UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Sign
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Round
            | UnaryOp::Not
            | UnaryOp::IsFinite => false,
        },
        Prim::Binary(op) => match op {
            BinaryOp::Div | BinaryOp::Rem | BinaryOp::Pow | BinaryOp::Atan2 => true,
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::And
            | BinaryOp::Or => false,
        },
        _ => false,
    }
}

/// True for the reductions whose input must not be duplicated into two kernels: a
/// max/min (or arg-max/min) reduction, as in softmax's `max` and `exp(x - max)`.
pub(crate) fn is_extreme_reduction(prim: &Prim) -> bool {
    match prim {
        Prim::Reduce { op, .. } => matches!(op, ReduceOp::Max | ReduceOp::Min),
        Prim::ArgReduce { .. } => true,
        _ => false,
    }
}

/// True when a view may read one operand element for several result elements (an
/// expanding `broadcast_in_dim`, a `gather` whose indices may repeat).
pub(crate) fn view_replicates(prim: &Prim, in_elems: usize, out_elems: usize) -> bool {
    match prim {
        Prim::BroadcastInDim { .. } => out_elems > in_elems,
        Prim::Gather { .. } => true,
        _ => false,
    }
}
