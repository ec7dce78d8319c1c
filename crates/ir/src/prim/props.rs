//! The properties of each primitive that passes outside its family's rules need: how
//! fusion places it, what it costs, how accurately a backend may compute it, which
//! dtypes it takes. Each family declares its ops' rows next to their rules (a `props`
//! function in the family file); [`Prim::props`] dispatches to them. The fusion
//! partitioner, the cost model, the JIT's planner and its agreement policy all read
//! this table instead of deciding these things again.

use super::unary::UnaryDomain;
use crate::Prim;

/// How the fusion partitioner and the JIT's kernels treat an equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// One output element from the same element of each operand (equal shapes).
    Elementwise,
    /// No operand (`constant`, `iota`): duplicated into every kernel that reads it.
    Source,
    /// Moves or selects elements (index arithmetic inside a kernel).
    View,
    /// A reduction over axes (at most one per kernel).
    Reduction,
    /// Stays an equation of the schedule: a launch of its own (contractions,
    /// scatters, prefix scans, random bits, structured primitives).
    Launch,
}

/// The cost model's flops of one equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flops {
    /// Data movement: no flops.
    None,
    /// This many flops per output element.
    PerOutput(u64),
    /// One flop per output element, each also counted as a transcendental.
    Transcendental,
    /// `integer_pow[y]`: the multiplications of exponentiation by squaring.
    IntegerPow(i32),
    /// `2·M·N·K`: a multiply and an add per term of a contraction (`K` is
    /// [`Prim::contracted_size`]).
    Contraction,
    /// One flop per element of operand `k`.
    PerInputElement(usize),
    /// Costed by the bodies it runs, times their trip counts.
    Bodies,
}

/// Whether a view may read one operand element for several result elements (fusion
/// does not duplicate expensive producers into such a view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replicates {
    /// Never.
    No,
    /// When the result has more elements than the operand (an expanding broadcast).
    WhenLarger,
    /// Always possible (indices may repeat).
    Yes,
}

/// The properties of one primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Props {
    /// How fusion and the JIT place it.
    pub class: Class,
    /// Elementwise math that costs a call or a long instruction sequence per element,
    /// so fusion evaluates it more than once per element only at a real cost.
    pub expensive: bool,
    /// A max/min reduction (or arg-reduction), whose input fusion never duplicates.
    pub extreme: bool,
    /// See [`Replicates`].
    pub replicates: Replicates,
    /// The cost model's flops.
    pub flops: Flops,
    /// On float results, a backend may legitimately differ from the reference by more
    /// than the last bit (approximated transcendentals, reassociated sums).
    pub inexact: bool,
    /// The operands whose elements a float sum or product combines in an order a backend
    /// may change (empty: none): the error is relative to those terms, and the JIT's
    /// agreement policy and the precision tests read which operands they are.
    pub reassociates_over: &'static [usize],
    /// The dtypes the first operand may have.
    pub domain: UnaryDomain,
    /// The result is the operand itself (`stop_gradient`, `name`, `offload`,
    /// `reload`): only transforms and the memory planner see a difference, so the
    /// interpreter passes the value through and compiled code forwards it.
    pub identity: bool,
    /// Factorises or solves with a matrix: a backend's error is norm-wise (relative to
    /// the largest magnitude of the results), not element by element, which the JIT's
    /// agreement policy reads.
    pub factorises: bool,
}

impl Props {
    /// An elementwise op that is cheap, exact and one flop per element.
    pub(crate) const fn elementwise(domain: UnaryDomain) -> Props {
        Props {
            class: Class::Elementwise,
            expensive: false,
            extreme: false,
            replicates: Replicates::No,
            flops: Flops::PerOutput(1),
            inexact: false,
            reassociates_over: &[],
            domain,
            identity: false,
            factorises: false,
        }
    }

    /// An op of `class` with no flops, exact, on any dtype.
    pub(crate) const fn movement(class: Class) -> Props {
        Props {
            class,
            expensive: false,
            extreme: false,
            replicates: Replicates::No,
            flops: Flops::None,
            inexact: false,
            reassociates_over: &[],
            domain: UnaryDomain::Any,
            identity: false,
            factorises: false,
        }
    }
}

impl Prim {
    /// This primitive's row of the property table.
    pub fn props(&self) -> Props {
        match self {
            Prim::Unary(op) => super::unary::props(*op),
            Prim::Name { .. } => Props { flops: Flops::None, identity: true, ..Props::elementwise(UnaryDomain::Any) },
            Prim::Binary(op) => super::binary::props(*op),
            Prim::Compare(_) => Props::elementwise(UnaryDomain::Any),
            Prim::Ternary(op) => super::binary::ternary_props(*op),
            Prim::Shape(op) => super::shape::props(op),
            Prim::Index(op) => super::index::props(op),
            Prim::Reduction(op) => super::reduce::props(op),
            Prim::Linalg(op) => super::linalg::props(op),
            Prim::Random(op) => super::random::props(op),
            Prim::Memory(op) => super::memory::props(*op),
            Prim::Sort(op) => super::sort::props(*op),
            Prim::Control(_) => Props { flops: Flops::Bodies, ..Props::movement(Class::Launch) },
            Prim::Conv(op) => super::conv::props(op),
            Prim::Window(op) => super::window::props(op),
            Prim::Collective(op) => super::collective::props(op),
        }
    }
}

impl Prim {
    /// The number of terms summed per output element of a contraction whose left
    /// operand has type `lhs` and right operand (if any) `rhs` (1 for every other
    /// primitive).
    pub fn contracted_size(&self, lhs: &crate::Type, rhs: Option<&crate::Type>) -> u64 {
        match self {
            Prim::Linalg(op) => super::linalg::contracted_size(op, lhs),
            Prim::Conv(op) => super::conv::contracted_size(op, rhs),
            _ => 1,
        }
    }

    /// The `preferred` result dtype of a contraction (`dot_general`,
    /// `conv_general_dilated`), to read or change; `None` for primitives without one.
    pub fn preferred_mut(&mut self) -> Option<&mut Option<ferrax_array::DType>> {
        match self {
            Prim::Linalg(op) => op.preferred_mut(),
            Prim::Conv(op) => op.preferred_mut(),
            _ => None,
        }
    }
}
