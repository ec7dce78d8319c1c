//! Windowed reductions (pooling) and the two linear maps that differentiate max and
//! min pooling, as `jax.lax`/XLA define them.
//!
//! - `reduce_window[op, window_dimensions, window_strides, padding, base_dilation,
//!   window_dilation](x, init)`: `op` is `"sum"`, `"max"` or `"min"`. The operand is
//!   first dilated (`base_dilation - 1` holes between elements along each axis) and
//!   padded (`padding = [[low, high], ...]`, non-negative); each window (of
//!   `window_dimensions` taps, `window_dilation - 1` apart) starts every
//!   `window_strides` elements of that padded operand, and its result combines the real
//!   elements it covers (holes and padding are the identity) starting from `init`.
//!   `init` is a scalar of `x`'s dtype that must be the identity of `op` (`0` for sum,
//!   `-inf`/`i32::MIN` for max, `+inf`/`i32::MAX` for min, as JAX's pooling passes):
//!   the type rule sees only its type, so evaluation checks its value and refuses
//!   anything else. It is a constant of the computation: it gets no tangent and no
//!   cotangent.
//! - `select_and_gather_add[select, <window>](t, x)`: for each window of `x` (same
//!   window attributes), the element of `t` at the position the window *selects* in
//!   `x`: its first maximum (`select="max"`) or first minimum (`"min"`) in row-major
//!   window order, NaN counting as the extreme (so the first NaN wins; `reduce_window`
//!   max propagates it). A window that covers no real element selects nothing and
//!   gives 0. This is the jvp of max/min pooling, linear in `t`.
//! - `select_and_scatter_add[select, <window>](s, x)`: the transpose of the gather in
//!   its first operand: zeros of `x`'s type, and each element of `s` (one per window)
//!   added at the position its window selects in `x`; overlapping windows add up. As
//!   XLA's `SelectAndScatter` with `ge`/`le`, the whole cotangent of a window goes to
//!   its first maximum (minimum).
//!
//! The pair is the choice of the design among the equivalent formulations (a
//! one-hot mask built from slices and selects would also do): each is one pass over
//! the windows, neither materialises a mask of `window size × output` elements, and the
//! transposes pair them exactly (each is the other's transpose in the first operand,
//! both are constant in `x`), so derivatives of every order are the same two ops.
//! Unlike JAX, whose max-pooling vjp refuses window dilation, every window attribute
//! is accepted by both.
//!
//! Rules: `reduce_window` sum's jvp is `reduce_window` sum of the tangent; its
//! transpose is JAX's: the cotangent padded (interior `strides - 1`, edges from the
//! window, padding and dilations, possibly cropping) and reduced by a `reduce_window`
//! sum with strides `base_dilation`. Max/min's jvp is `select_and_gather_add` of the
//! tangent. Batching inserts a window axis of size 1 (stride 1, no padding or
//! dilation) at the batch axis.

mod eval;
mod rules;

pub use eval::{Geometry, check_init, eval, reduce_window_slice, select_and_gather_slice, select_and_scatter_slice};
pub(crate) use rules::{batch, jvp, transpose};

use super::props::{Class, Flops, Props};
use super::unary::{UnaryDomain, expect_domain};
use super::{check_len, expect_arity};
use crate::Type;
use crate::attr::AttrVisitor;
use ferrax_array::Shape;
use std::fmt;
use std::str::FromStr;

/// The combination of `reduce_window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowReduce {
    /// Sum (identity 0).
    Sum,
    /// Maximum (identity -inf, `i32::MIN`); NaN propagates.
    Max,
    /// Minimum (identity +inf, `i32::MAX`); NaN propagates.
    Min,
}

impl fmt::Display for WindowReduce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WindowReduce::Sum => "sum",
            WindowReduce::Max => "max",
            WindowReduce::Min => "min",
        })
    }
}

impl FromStr for WindowReduce {
    type Err = String;

    fn from_str(s: &str) -> Result<WindowReduce, String> {
        match s {
            "sum" => Ok(WindowReduce::Sum),
            "max" => Ok(WindowReduce::Max),
            "min" => Ok(WindowReduce::Min),
            other => Err(format!("reduce_window: unknown op \"{other}\" (expected \"sum\", \"max\" or \"min\")")),
        }
    }
}

/// Which element a window selects: its first maximum or its first minimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Select {
    /// The first maximum (XLA's `ge` selector).
    Max,
    /// The first minimum (XLA's `le` selector).
    Min,
}

impl fmt::Display for Select {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Select::Max => "max",
            Select::Min => "min",
        })
    }
}

impl FromStr for Select {
    type Err = String;

    fn from_str(s: &str) -> Result<Select, String> {
        match s {
            "max" => Ok(Select::Max),
            "min" => Ok(Select::Min),
            other => Err(format!("unknown select \"{other}\" (expected \"max\" or \"min\")")),
        }
    }
}

/// The window of a windowed op: one entry per operand axis in every list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    /// Taps per axis (at least 1).
    pub dimensions: Vec<usize>,
    /// Distance between consecutive windows' starts, in the dilated padded operand (at
    /// least 1; default 1).
    pub strides: Vec<usize>,
    /// `[low, high]` padding of the dilated operand per axis (default 0).
    pub padding: Vec<[usize; 2]>,
    /// Operand dilation per axis: `d - 1` holes between elements (at least 1; default 1).
    pub base_dilation: Vec<usize>,
    /// Window dilation per axis: taps `d` apart (at least 1; default 1).
    pub window_dilation: Vec<usize>,
}

impl Window {
    /// A window of `dimensions` with stride 1, no padding and no dilation.
    pub fn new(dimensions: &[usize]) -> Window {
        let n = dimensions.len();
        Window {
            dimensions: dimensions.to_vec(),
            strides: vec![1; n],
            padding: vec![[0, 0]; n],
            base_dilation: vec![1; n],
            window_dilation: vec![1; n],
        }
    }

    /// Hands the window's attributes to `v`; the defaults have one entry per window
    /// dimension, which is visited first.
    fn visit<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        v.usizes("window_dimensions", &mut self.dimensions, None)?;
        let n = self.dimensions.len();
        v.usizes("window_strides", &mut self.strides, Some(vec![1; n]))?;
        v.pairs("padding", &mut self.padding, Some(vec![[0, 0]; n]))?;
        v.usizes("base_dilation", &mut self.base_dilation, Some(vec![1; n]))?;
        v.usizes("window_dilation", &mut self.window_dilation, Some(vec![1; n]))
    }

    /// The window with an axis of one tap (stride 1, no padding or dilation) inserted
    /// at `at`: the same op on an operand with an extra (batch) axis there.
    pub fn with_axis(&self, at: usize) -> Window {
        let mut w = self.clone();
        w.dimensions.insert(at, 1);
        w.strides.insert(at, 1);
        w.padding.insert(at, [0, 0]);
        w.base_dilation.insert(at, 1);
        w.window_dilation.insert(at, 1);
        w
    }

    /// Checks the lists against an operand of rank `rank`, and that taps, strides and
    /// dilations are positive.
    pub(crate) fn check(&self, op: &str, rank: usize) -> Result<(), String> {
        check_len(op, "window_dimensions", self.dimensions.len(), rank)?;
        check_len(op, "window_strides", self.strides.len(), rank)?;
        check_len(op, "padding", self.padding.len(), rank)?;
        check_len(op, "base_dilation", self.base_dilation.len(), rank)?;
        check_len(op, "window_dilation", self.window_dilation.len(), rank)?;
        let lists = [
            ("window_dimensions", &self.dimensions),
            ("window_strides", &self.strides),
            ("base_dilation", &self.base_dilation),
            ("window_dilation", &self.window_dilation),
        ];
        for (name, list) in lists {
            if let Some(a) = list.iter().position(|&d| d == 0) {
                return Err(format!("{op}: '{name}' must be positive, got {list:?} (axis {a})"));
            }
        }
        Ok(())
    }

    /// The result shape of the windows over an operand of `shape` (checked first): per
    /// axis `floor((low + dilated + high - window_extent) / stride) + 1`, or 0 when the
    /// window is larger than the padded operand.
    pub fn out_shape(&self, op: &str, shape: &[usize]) -> Result<Shape, String> {
        self.check(op, shape.len())?;
        let overflow = || format!("{op}: the window arithmetic over {shape:?} overflows");
        let mut out = Shape::new();
        for (a, &n) in shape.iter().enumerate() {
            let padded = dilate(n, self.base_dilation[a])
                .and_then(|d| d.checked_add(self.padding[a][0]))
                .and_then(|d| d.checked_add(self.padding[a][1]))
                .ok_or_else(overflow)?;
            let extent = dilate(self.dimensions[a], self.window_dilation[a]).ok_or_else(overflow)?;
            out.push(if padded < extent { 0 } else { (padded - extent) / self.strides[a] + 1 });
        }
        Ok(out)
    }

    /// The number of taps of one window (saturating: a cost, not a size).
    fn taps(&self) -> u64 {
        self.dimensions.iter().fold(1u64, |acc, &d| acc.saturating_mul(d as u64))
    }
}

/// The extent of `n` elements `d` apart: `(n - 1)·d + 1`, 0 for none.
pub(crate) fn dilate(n: usize, d: usize) -> Option<usize> {
    if n == 0 { Some(0) } else { (n - 1).checked_mul(d)?.checked_add(1) }
}

/// The window family.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WindowOp {
    /// `reduce_window[op, <window>](x, init)` (see the module docs).
    ReduceWindow {
        /// The combination.
        op: WindowReduce,
        /// The windows.
        window: Window,
    },
    /// `select_and_gather_add[select, <window>](t, x)`: per window of `x`, `t` at the
    /// selected position (0 where a window covers no element).
    SelectAndGatherAdd {
        /// First maximum or first minimum.
        select: Select,
        /// The windows.
        window: Window,
    },
    /// `select_and_scatter_add[select, <window>](s, x)`: per window of `x`, its
    /// element of `s` added at the selected position of zeros shaped like `x`.
    SelectAndScatterAdd {
        /// First maximum or first minimum.
        select: Select,
        /// The windows.
        window: Window,
    },
}

impl WindowOp {
    /// The op's name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            WindowOp::ReduceWindow { .. } => "reduce_window",
            WindowOp::SelectAndGatherAdd { .. } => "select_and_gather_add",
            WindowOp::SelectAndScatterAdd { .. } => "select_and_scatter_add",
        }
    }

    /// The op's windows.
    pub fn window(&self) -> &Window {
        match self {
            WindowOp::ReduceWindow { window, .. }
            | WindowOp::SelectAndGatherAdd { window, .. }
            | WindowOp::SelectAndScatterAdd { window, .. } => window,
        }
    }

    /// The same op over other windows.
    pub fn with_window(&self, window: Window) -> WindowOp {
        match self {
            WindowOp::ReduceWindow { op, .. } => WindowOp::ReduceWindow { op: *op, window },
            WindowOp::SelectAndGatherAdd { select, .. } => WindowOp::SelectAndGatherAdd { select: *select, window },
            WindowOp::SelectAndScatterAdd { select, .. } => WindowOp::SelectAndScatterAdd { select: *select, window },
        }
    }

    /// The op named `name`, with placeholder attributes that `visit_attrs` fills.
    pub(crate) fn blank(name: &str) -> Option<WindowOp> {
        let window = Window::new(&[]);
        match name {
            "reduce_window" => Some(WindowOp::ReduceWindow { op: WindowReduce::Sum, window }),
            "select_and_gather_add" => Some(WindowOp::SelectAndGatherAdd { select: Select::Max, window }),
            "select_and_scatter_add" => Some(WindowOp::SelectAndScatterAdd { select: Select::Max, window }),
            _ => None,
        }
    }

    /// Hands every attribute to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            WindowOp::ReduceWindow { op, window } => {
                v.parsed("op", op, "sum")?;
                window.visit(v)
            }
            WindowOp::SelectAndGatherAdd { select, window } | WindowOp::SelectAndScatterAdd { select, window } => {
                v.parsed("select", select, "max")?;
                window.visit(v)
            }
        }
    }
}

// ---- type rule ----

/// The type rule: `reduce_window` takes a numeric operand and a scalar `init` of its
/// dtype and gives the windows' shape; `select_and_gather_add` takes `t` and `x` of the
/// same type and gives the windows' shape; `select_and_scatter_add` takes `s` shaped
/// like the windows of `x`, of `x`'s dtype, and gives `x`'s type.
pub(crate) fn infer(op: &WindowOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let name = op.name();
    expect_arity(name, inputs, 2)?;
    let (first, x) = (&inputs[0], &inputs[1]);
    match op {
        WindowOp::ReduceWindow { op: _, window } => {
            expect_domain(name, UnaryDomain::Numeric, first)?;
            if x.rank() != 0 || x.dtype != first.dtype {
                return Err(format!("{name}: init must be a scalar of the operand's dtype {}, got {x}", first.dtype));
            }
            Ok(vec![Type { dtype: first.dtype, shape: window.out_shape(name, &first.shape)? }])
        }
        WindowOp::SelectAndGatherAdd { select: _, window } => {
            expect_domain(name, UnaryDomain::Numeric, x)?;
            super::expect_same(name, first, x)?;
            Ok(vec![Type { dtype: first.dtype, shape: window.out_shape(name, &x.shape)? }])
        }
        WindowOp::SelectAndScatterAdd { select: _, window } => {
            expect_domain(name, UnaryDomain::Numeric, x)?;
            let windows = Type { dtype: x.dtype, shape: window.out_shape(name, &x.shape)? };
            if *first != windows {
                return Err(format!("{name}: the source must have the windows' type {windows}, got {first}"));
            }
            Ok(vec![x.clone()])
        }
    }
}

/// The property-table row: a launch of its own (the JIT runs it as a host loop),
/// exact (one fixed order of combination, shared with the JIT), numeric operands. The
/// cost model counts one flop per tap of every window for `reduce_window` and the
/// gather, one add per source element for the scatter.
pub(crate) fn props(op: &WindowOp) -> Props {
    let flops = match op {
        WindowOp::ReduceWindow { window, .. } | WindowOp::SelectAndGatherAdd { window, .. } => {
            Flops::PerOutput(window.taps())
        }
        WindowOp::SelectAndScatterAdd { .. } => Flops::PerInputElement(0),
    };
    Props { flops, domain: UnaryDomain::Numeric, ..Props::movement(Class::Launch) }
}
