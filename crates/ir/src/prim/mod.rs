//! The primitive set and, per family, every rule of each primitive.
//!
//! [`Prim`] is a closed enum with named parameters. Each family lives in one file that
//! holds all of its rules: the type rule (which is also the verifier's check), the
//! reference evaluation, and later the jvp, transpose and batching rules. The
//! dispatchers here `match` on every variant with no `_ =>` arm, so adding a primitive
//! makes the compiler list every rule still to write (see docs/adding-a-primitive.md).

pub mod ad;
pub mod batch;
pub mod binary;
pub mod collective;
pub mod control;
pub mod conv;
pub mod elements;
pub mod index;
pub(crate) mod layout;
pub mod linalg;
pub mod memory;
pub mod props;
pub mod random;
pub mod reduce;
pub mod shape;
pub mod sort;
pub mod sum_order;
pub mod unary;
pub mod window;

pub use binary::{BinaryOp, CompareOp, TernaryOp};
pub use collective::CollectiveOp;
pub use control::{ControlOp, LinearSolveParams, RematPolicy, RootParams, ScanParams, Trips};
pub use conv::{Conv, ConvOp, ConvSpec};
pub use index::IndexOp;
pub use linalg::{DotDims, Eigh, LinalgOp, Qr, Svd, TriSolve, eigh_pivot, lu_factor, qr_complement, svd_canonical};
pub use memory::MemoryOp;
pub use props::{Class, Flops, Props, Replicates};
pub use random::RandomOp;
pub use reduce::{ArgOp, ReduceOp, ReductionOp};
pub use shape::ShapeOp;
pub use sort::SortOp;
pub use unary::UnaryOp;
pub use window::{Select, Window, WindowOp, WindowReduce};

use crate::attr::{AttrReader, AttrValue, AttrVisitor, AttrWriter};
use crate::{Module, Type};
use ferrax_array::Array;

/// A primitive with its static parameters, grouped by family: each family's rules live
/// in its own file and match only the family's own ops, so a new op in an existing
/// family is one variant and its arms in that file.
#[derive(Clone, Debug, PartialEq)]
pub enum Prim {
    /// Elementwise unary math, logic, conversion and `stop_gradient` (`unary.rs`).
    Unary(UnaryOp),
    /// Identity that tags a value for checkpoint policies (`unary.rs`).
    Name {
        /// The tag.
        name: String,
    },
    /// Elementwise binary arithmetic and logic (`binary.rs`).
    Binary(BinaryOp),
    /// Elementwise comparison; the result is `bool` (`binary.rs`).
    Compare(CompareOp),
    /// `select` and `clamp` (`binary.rs`).
    Ternary(TernaryOp),
    /// Structural primitives: broadcasts, reshapes, slices, pads, literals (`shape/`).
    Shape(ShapeOp),
    /// Dynamic slices, gathers and scatters (`index.rs`).
    Index(IndexOp),
    /// Reductions, arg-reductions and prefix scans (`reduce.rs`).
    Reduction(ReductionOp),
    /// Contractions (`linalg.rs`).
    Linalg(LinalgOp),
    /// Random bits (`random.rs`).
    Random(RandomOp),
    /// `offload` and `reload`: where a value is kept between the passes (`memory.rs`).
    Memory(MemoryOp),
    /// `sort` and `top_k` (`sort.rs`).
    Sort(SortOp),
    /// Calls, branches, loops, custom rules and remat regions (`control/`).
    Control(ControlOp),
    /// `conv_general_dilated` (`conv/`).
    Conv(ConvOp),
    /// Windowed reductions (pooling) and their derivatives' selections (`window/`).
    Window(WindowOp),
    /// Collectives over named axes of workers (`collective.rs`).
    Collective(CollectiveOp),
}

/// Each family's op is a primitive, so rules and builders can emit a family op (a
/// `UnaryOp`, a `ShapeOp`, ...) where a [`Prim`] is expected.
macro_rules! family_into_prim {
    ($($op:ty => $variant:ident),* $(,)?) => {
        $(impl From<$op> for Prim {
            fn from(op: $op) -> Prim {
                Prim::$variant(op)
            }
        })*
    };
}

family_into_prim!(
    UnaryOp => Unary,
    BinaryOp => Binary,
    CompareOp => Compare,
    TernaryOp => Ternary,
    ShapeOp => Shape,
    IndexOp => Index,
    ReductionOp => Reduction,
    LinalgOp => Linalg,
    RandomOp => Random,
    MemoryOp => Memory,
    SortOp => Sort,
    ControlOp => Control,
    ConvOp => Conv,
    WindowOp => Window,
    CollectiveOp => Collective,
);

impl Prim {
    /// The primitive's name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            Prim::Unary(op) => op.name(),
            Prim::Name { .. } => "name",
            Prim::Binary(op) => op.name(),
            Prim::Compare(op) => op.name(),
            Prim::Ternary(op) => op.name(),
            Prim::Shape(op) => op.name(),
            Prim::Index(op) => op.name(),
            Prim::Reduction(op) => op.name(),
            Prim::Linalg(op) => op.name(),
            Prim::Random(op) => op.name(),
            Prim::Memory(op) => op.name(),
            Prim::Sort(op) => op.name(),
            Prim::Control(op) => op.name(),
            Prim::Conv(op) => op.name(),
            Prim::Window(op) => op.name(),
            Prim::Collective(op) => op.name(),
        }
    }

    /// True for the elementwise primitives: one output element from the same element of
    /// each operand (unary, `name`, binary, comparisons, `select`, `clamp`).
    pub fn is_elementwise(&self) -> bool {
        self.props().class == Class::Elementwise
    }

    /// The primitive named `name` in the text form, with placeholder parameters that
    /// [`Prim::visit_attrs`] then fills.
    fn blank(name: &str) -> Option<Prim> {
        if name == "name" {
            return Some(Prim::Name { name: String::new() });
        }
        (UnaryOp::blank(name).map(Prim::Unary))
            .or_else(|| BinaryOp::from_name(name).map(Prim::Binary))
            .or_else(|| CompareOp::from_name(name).map(Prim::Compare))
            .or_else(|| TernaryOp::from_name(name).map(Prim::Ternary))
            .or_else(|| ShapeOp::blank(name).map(Prim::Shape))
            .or_else(|| IndexOp::blank(name).map(Prim::Index))
            .or_else(|| ReductionOp::blank(name).map(Prim::Reduction))
            .or_else(|| LinalgOp::blank(name).map(Prim::Linalg))
            .or_else(|| RandomOp::blank(name).map(Prim::Random))
            .or_else(|| MemoryOp::blank(name).map(Prim::Memory))
            .or_else(|| SortOp::blank(name).map(Prim::Sort))
            .or_else(|| ControlOp::blank(name).map(Prim::Control))
            .or_else(|| ConvOp::blank(name).map(Prim::Conv))
            .or_else(|| WindowOp::blank(name).map(Prim::Window))
            .or_else(|| CollectiveOp::blank(name).map(Prim::Collective))
    }

    /// Hands every attribute to `v` in declared order: the one declaration of a
    /// primitive's attributes (names, kinds, defaults), read by the printer through
    /// [`Prim::attrs`] and filled by the parser through [`Prim::from_attrs`].
    pub fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            Prim::Unary(op) => op.visit_attrs(v),
            Prim::Name { name } => v.string("name", name),
            Prim::Binary(_) | Prim::Compare(_) | Prim::Ternary(_) | Prim::Memory(_) => Ok(()),
            Prim::Shape(op) => op.visit_attrs(v),
            Prim::Index(op) => op.visit_attrs(v),
            Prim::Reduction(op) => op.visit_attrs(v),
            Prim::Linalg(op) => op.visit_attrs(v),
            Prim::Random(op) => op.visit_attrs(v),
            Prim::Sort(op) => op.visit_attrs(v),
            Prim::Control(op) => op.visit_attrs(v),
            Prim::Conv(op) => op.visit_attrs(v),
            Prim::Window(op) => op.visit_attrs(v),
            Prim::Collective(op) => op.visit_attrs(v),
        }
    }

    /// Every attribute, in declared order, defaults included (what the printer writes).
    pub fn attrs(&self) -> Vec<(&'static str, AttrValue)> {
        let mut w = AttrWriter::default();
        // The writer only reads the fields (visiting takes `&mut` because the same
        // declaration fills them when parsing) and never returns an error.
        let _ = self.clone().visit_attrs(&mut w);
        w.attrs
    }

    /// Builds a primitive from its name and written attributes. `out_types` are the
    /// declared result types (a constant's literal is read at its result dtype).
    pub fn from_attrs(op: &str, attrs: Vec<(String, AttrValue)>, out_types: &[Type]) -> Result<Prim, String> {
        let mut r = AttrReader::new(op, attrs, out_types)?;
        let mut prim = Prim::blank(op).ok_or_else(|| format!("unknown primitive '{op}'"))?;
        prim.visit_attrs(&mut r)?;
        r.finish()?;
        Ok(prim)
    }

    /// Renames the Funcs this primitive refers to with `rename`.
    pub fn rename_callees(&mut self, rename: &mut dyn FnMut(&str) -> String) {
        if let Prim::Control(op) = self {
            op.rename_callees(rename);
        }
    }

    /// The Funcs this primitive refers to, in attribute order.
    pub fn callees(&self) -> Vec<&str> {
        match self {
            Prim::Control(op) => op.callees(),
            _ => vec![],
        }
    }

    /// The result types of this primitive applied to operands of `inputs` types: the
    /// type rule, shared by the builder and the verifier. `module` resolves the Funcs
    /// that structured primitives refer to. The error says what is wrong, with both
    /// sides of a mismatch; the caller adds the place (which names the primitive).
    pub fn infer(&self, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
        self.infer_rule(inputs, module).map_err(|message| {
            let prefix = format!("{}: ", self.name());
            message.strip_prefix(&prefix).map(str::to_string).unwrap_or(message)
        })
    }

    fn infer_rule(&self, inputs: &[Type], module: &Module) -> Result<Vec<Type>, String> {
        match self {
            Prim::Unary(op) => unary::infer_unary(op, inputs),
            Prim::Name { .. } => unary::infer_identity("name", inputs),
            Prim::Binary(op) => binary::infer_binary(*op, inputs),
            Prim::Compare(op) => binary::infer_compare(*op, inputs),
            Prim::Ternary(op) => binary::infer_ternary(*op, inputs),
            Prim::Shape(op) => shape::infer(op, inputs),
            Prim::Index(op) => index::infer(op, inputs),
            Prim::Reduction(op) => reduce::infer(op, inputs),
            Prim::Linalg(op) => linalg::infer(op, inputs),
            Prim::Random(op) => random::infer(op, inputs),
            Prim::Memory(op) => memory::infer(*op, inputs),
            Prim::Sort(op) => sort::infer(*op, inputs),
            Prim::Control(op) => control::infer(op, inputs, module),
            Prim::Conv(op) => conv::infer(op, inputs),
            Prim::Window(op) => window::infer(op, inputs),
            Prim::Collective(op) => collective::infer(op, inputs),
        }
    }
}

/// `expects 2 operands, got 3`: an arity error of the reference evaluation.
pub(crate) fn arity(expected: usize, got: usize) -> String {
    format!("expects {expected} operand{}, got {got}", if expected == 1 { "" } else { "s" })
}

/// The `N` operands of an evaluated equation, or an arity error.
pub(crate) fn operands<'x, const N: usize>(a: &[&'x Array]) -> Result<[&'x Array; N], String> {
    <[&Array; N]>::try_from(a).map_err(|_| arity(N, a.len()))
}

/// Checks the operand count: `add: expects 2 operands, got 3`.
pub(crate) fn expect_arity(op: &str, inputs: &[Type], n: usize) -> Result<(), String> {
    if inputs.len() == n {
        Ok(())
    } else {
        Err(format!("{op}: expects {n} operand{}, got {}", if n == 1 { "" } else { "s" }, inputs.len()))
    }
}

/// Checks that `axis` indexes a rank-`rank` operand.
pub(crate) fn check_axis(op: &str, what: &str, axis: usize, rank: usize) -> Result<(), String> {
    if axis < rank { Ok(()) } else { Err(format!("{op}: {what} {axis} is out of range for rank {rank}")) }
}

/// Checks a list of distinct in-range axes.
pub(crate) fn check_axes(op: &str, what: &str, axes: &[usize], rank: usize) -> Result<(), String> {
    for (i, &axis) in axes.iter().enumerate() {
        check_axis(op, what, axis, rank)?;
        if axes[..i].contains(&axis) {
            return Err(format!("{op}: {what} {axis} is repeated in {axes:?}"));
        }
    }
    Ok(())
}

/// Checks that a list attribute has one entry per axis.
pub(crate) fn check_len(op: &str, attr: &str, len: usize, rank: usize) -> Result<(), String> {
    if len == rank { Ok(()) } else { Err(format!("{op}: '{attr}' has {len} entries but the operand has rank {rank}")) }
}

/// Checks that two operand types are equal: `add: operand types differ: f32[2] vs f32[3]`.
pub(crate) fn expect_same(op: &str, a: &Type, b: &Type) -> Result<(), String> {
    if a == b { Ok(()) } else { Err(format!("{op}: operand types differ: {a} vs {b}")) }
}
