//! Convolution: `conv_general_dilated`, with `jax.lax`'s semantics.
//!
//! `conv_general_dilated[window_strides, padding=[[lo,hi],...], lhs_dilation,
//! rhs_dilation, dimension_numbers=["NHWC","HWIO","NHWC"], feature_group_count,
//! batch_group_count, preferred](lhs, rhs)`:
//!
//! - The three layout strings name the axes of the input (`N` batch, `C` feature), the
//!   kernel (`O` output feature, `I` input feature) and the result (`N`, `C`); every
//!   other letter is a spatial axis, matched by letter between the three strings. The
//!   spatial axes are numbered in the kernel string's order, and `window_strides`,
//!   `padding` and both dilations list one entry per spatial axis in that order (as
//!   JAX's `conv_general_permutations`).
//! - Per spatial axis the input is dilated (`lhs_dilation - 1` zeros between
//!   elements), then padded (`lo` before, `hi` after; negative amounts crop), and the
//!   kernel, dilated by `rhs_dilation`, slides over it with `window_strides`: the
//!   result has `(padded - dilated_kernel) / stride + 1` positions (none when the
//!   kernel is longer than the padded input).
//! - `feature_group_count = G` splits the input features into `G` groups and the
//!   kernel's output features likewise; output feature group `g` sees input group `g`
//!   only, so the kernel's `I` is the input's `C / G` (`G = C` with `I = 1` is a
//!   depthwise convolution). `batch_group_count = B` splits the input batch into `B`
//!   groups (group `b` is the batch slice `b·N/B .. (b+1)·N/B`) and the output features
//!   likewise, so the result's batch is `N / B`; it is what the kernel's gradient of a
//!   grouped convolution is. At most one of the two counts exceeds 1.
//! - `preferred` is `dot_general`'s: `f32` for bf16/f16 operands returns the f32
//!   accumulation instead of rounding it.
//!
//! The rules: type rule and attributes here; the reference loop in `eval.rs`; jvp and
//! both transposes (each a convolution, as JAX's `_conv_general_dilated_transpose_lhs`
//! and `_rhs`) in `ad.rs`; the batching rule (the batch axis folded into `N`, into the
//! feature groups or into `O`) in `batch.rs`.

mod ad;
mod batch;
mod eval;

pub(crate) use ad::{jvp, transpose};
pub(crate) use batch::batch;
pub(crate) use eval::eval;

use super::expect_arity;
use super::props::{Class, Flops, Props};
use super::unary::{UnaryDomain, expect_domain};
use crate::Type;
use crate::attr::AttrVisitor;
use ferrax_array::{DType, Shape};

/// The convolution family.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConvOp {
    /// `conv_general_dilated`: XLA's general convolution (see the module docs).
    ConvGeneralDilated(Box<Conv>),
}

/// The parameters of a `conv_general_dilated`; the per-axis lists have one entry per
/// spatial axis, in the order the kernel's layout string lists them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Conv {
    /// The step of the window along each spatial axis (at least 1).
    pub window_strides: Vec<usize>,
    /// `(lo, hi)` padding of the dilated input along each spatial axis (negative crops).
    pub padding: Vec<(i64, i64)>,
    /// Input dilation: the distance between input elements after dilating (at least 1).
    pub lhs_dilation: Vec<usize>,
    /// Kernel dilation: the distance between kernel taps (at least 1).
    pub rhs_dilation: Vec<usize>,
    /// The input, kernel and result layouts, as `["NHWC", "HWIO", "NHWC"]`.
    pub dimension_numbers: [String; 3],
    /// The number of feature groups (at least 1).
    pub feature_group_count: usize,
    /// The number of batch groups (at least 1).
    pub batch_group_count: usize,
    /// The result's dtype when it is not the operands' (f32 for bf16/f16 operands).
    pub preferred: Option<DType>,
}

/// The axes of one operand: its batch (or `O`) axis, its feature (or `I`) axis, and its
/// spatial axes in the kernel's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvSpec {
    /// `N` of the input and result, `O` of the kernel.
    pub batch: usize,
    /// `C` of the input and result, `I` of the kernel.
    pub feature: usize,
    /// The spatial axes, in the order the kernel's layout lists their letters.
    pub spatial: Vec<usize>,
}

impl ConvSpec {
    /// The spec with its batch and feature axes exchanged (JAX's `_conv_spec_transpose`).
    pub fn swapped(&self) -> ConvSpec {
        ConvSpec { batch: self.feature, feature: self.batch, spatial: self.spatial.clone() }
    }

    /// The layout string of this spec, writing spatial axis `i` as `letters[i]` and the
    /// batch and feature axes as `b` and `f`.
    fn layout(&self, b: char, f: char, letters: &[char]) -> String {
        let rank = self.spatial.len() + 2;
        let mut out = vec!['?'; rank];
        out[self.batch] = b;
        out[self.feature] = f;
        for (&axis, &c) in self.spatial.iter().zip(letters) {
            out[axis] = c;
        }
        out.into_iter().collect()
    }
}

/// The three specs of a convolution: input, kernel, result.
pub type ConvSpecs = [ConvSpec; 3];

/// Letters for spatial axes when layouts are built from specs (never `N`, `C`, `O`, `I`).
const SPATIAL_LETTERS: [char; 20] =
    ['H', 'W', 'D', 'T', 'U', 'V', 'X', 'Y', 'Z', 'A', 'B', 'E', 'F', 'G', 'J', 'K', 'L', 'M', 'P', 'Q'];

/// The layout strings of three specs (inverse of [`specs`]).
pub fn layouts(specs: &ConvSpecs) -> Result<[String; 3], String> {
    let n = specs[1].spatial.len();
    let letters = SPATIAL_LETTERS
        .get(..n)
        .ok_or_else(|| format!("conv_general_dilated: {n} spatial axes is more than {}", SPATIAL_LETTERS.len()))?;
    Ok([specs[0].layout('N', 'C', letters), specs[1].layout('O', 'I', letters), specs[2].layout('N', 'C', letters)])
}

/// The axes named by the layout strings, as JAX's `conv_general_permutations`: each
/// string names its batch/feature pair once, has no repeated letter, and all three
/// name the same spatial letters; spatial axes are ordered as the kernel lists them.
pub fn specs(dn: &[String; 3]) -> Result<ConvSpecs, String> {
    let op = "conv_general_dilated";
    let pairs = [('N', 'C'), ('O', 'I'), ('N', 'C')];
    let names = ["lhs", "rhs", "out"];
    let chars: Vec<Vec<char>> = dn.iter().map(|s| s.chars().collect()).collect();
    for ((s, &(a, b)), name) in chars.iter().zip(&pairs).zip(names) {
        let count = |c: char| s.iter().filter(|&&x| x == c).count();
        if count(a) != 1 || count(b) != 1 {
            return Err(format!(
                "{op}: the {name} layout \"{}\" must name '{a}' and '{b}' once each",
                s.iter().collect::<String>()
            ));
        }
        for (i, c) in s.iter().enumerate() {
            if s[..i].contains(c) {
                return Err(format!("{op}: the {name} layout \"{}\" repeats '{c}'", s.iter().collect::<String>()));
            }
        }
    }
    let spatial_set = |s: &[char], (a, b): (char, char)| {
        let mut v: Vec<char> = s.iter().copied().filter(|&c| c != a && c != b).collect();
        v.sort_unstable();
        v
    };
    let rhs_spatial = spatial_set(&chars[1], pairs[1]);
    for i in [0, 2] {
        if spatial_set(&chars[i], pairs[i]) != rhs_spatial {
            return Err(format!(
                "{op}: the layouts {:?}, {:?} and {:?} must name the same spatial axes",
                dn[0], dn[1], dn[2]
            ));
        }
    }
    let order: Vec<char> = chars[1].iter().copied().filter(|&c| c != 'O' && c != 'I').collect();
    let spec = |s: &[char], (a, b): (char, char)| {
        let pos = |c: char| s.iter().position(|&x| x == c).unwrap_or(0);
        ConvSpec { batch: pos(a), feature: pos(b), spatial: order.iter().map(|&c| pos(c)).collect() }
    };
    Ok([spec(&chars[0], pairs[0]), spec(&chars[1], pairs[1]), spec(&chars[2], pairs[2])])
}

impl ConvOp {
    /// The `preferred` result dtype attribute.
    pub(crate) fn preferred_mut(&mut self) -> Option<&mut Option<DType>> {
        match self {
            ConvOp::ConvGeneralDilated(c) => Some(&mut c.preferred),
        }
    }

    /// The op's name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            ConvOp::ConvGeneralDilated(_) => "conv_general_dilated",
        }
    }

    /// The op named `name`, with placeholder parameters that `visit_attrs` fills.
    pub(crate) fn blank(name: &str) -> Option<ConvOp> {
        match name {
            "conv_general_dilated" => Some(ConvOp::ConvGeneralDilated(Box::new(Conv {
                window_strides: vec![],
                padding: vec![],
                lhs_dilation: vec![],
                rhs_dilation: vec![],
                dimension_numbers: [String::new(), String::new(), String::new()],
                feature_group_count: 1,
                batch_group_count: 1,
                preferred: None,
            }))),
            _ => None,
        }
    }

    /// Hands every attribute of the op to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            ConvOp::ConvGeneralDilated(c) => {
                v.usizes("window_strides", &mut c.window_strides, None)?;
                v.int_pairs("padding", &mut c.padding)?;
                v.usizes("lhs_dilation", &mut c.lhs_dilation, None)?;
                v.usizes("rhs_dilation", &mut c.rhs_dilation, None)?;
                let mut dn = c.dimension_numbers.to_vec();
                v.strings("dimension_numbers", &mut dn)?;
                c.dimension_numbers = <[String; 3]>::try_from(dn).map_err(|dn| {
                    format!("conv_general_dilated: dimension_numbers must list 3 layouts, got {}", dn.len())
                })?;
                v.usize_or("feature_group_count", &mut c.feature_group_count, 1)?;
                v.usize_or("batch_group_count", &mut c.batch_group_count, 1)?;
                v.opt_dtype("preferred", &mut c.preferred)
            }
        }
    }
}

/// `(in - 1)·dilation + 1`, or 0 for an empty axis (JAX's `_dilate_shape`).
pub(crate) fn dilate(n: usize, dilation: usize) -> Option<usize> {
    if n == 0 { Some(0) } else { (n - 1).checked_mul(dilation)?.checked_add(1) }
}

/// The number of window positions along one spatial axis: the dilated input padded by
/// `(lo, hi)`, a window of `k` taps dilated by `rd`, moved by `stride`.
pub(crate) fn out_size(input: usize, k: usize, stride: usize, pad: (i64, i64), ld: usize, rd: usize) -> Option<usize> {
    let padded = i128::try_from(dilate(input, ld)?).ok()? + i128::from(pad.0) + i128::from(pad.1);
    let window = i128::try_from(dilate(k, rd)?).ok()?;
    if padded < window {
        return Some(0);
    }
    usize::try_from((padded - window) / i128::try_from(stride).ok()? + 1).ok()
}

/// The type rule (which is also the verifier's check): the layouts, the per-axis lists,
/// the group counts against the feature and batch sizes, and the result shape.
pub fn infer_conv(c: &Conv, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "conv_general_dilated";
    expect_arity(op, inputs, 2)?;
    let (lhs, rhs) = (&inputs[0], &inputs[1]);
    expect_domain(op, UnaryDomain::Float, lhs)?;
    if lhs.dtype != rhs.dtype {
        return Err(format!("{op}: operand dtypes differ: {lhs} vs {rhs}"));
    }
    let [ls, rs, os] = specs(&c.dimension_numbers)?;
    let n_spatial = rs.spatial.len();
    for (ty, side, layout) in [(lhs, "lhs", &c.dimension_numbers[0]), (rhs, "rhs", &c.dimension_numbers[1])] {
        if ty.rank() != n_spatial + 2 {
            return Err(format!(
                "{op}: the {side} {ty} has rank {} but its layout \"{layout}\" has {}",
                ty.rank(),
                n_spatial + 2
            ));
        }
    }
    let lists = [
        ("window_strides", c.window_strides.len()),
        ("padding", c.padding.len()),
        ("lhs_dilation", c.lhs_dilation.len()),
        ("rhs_dilation", c.rhs_dilation.len()),
    ];
    for (name, len) in lists {
        if len != n_spatial {
            return Err(format!("{op}: '{name}' has {len} entries but there are {n_spatial} spatial axes"));
        }
    }
    for (name, list) in
        [("window_strides", &c.window_strides), ("lhs_dilation", &c.lhs_dilation), ("rhs_dilation", &c.rhs_dilation)]
    {
        if let Some(i) = list.iter().position(|&s| s == 0) {
            return Err(format!("{op}: '{name}' must be at least 1 on every axis, got {list:?} (axis {i})"));
        }
    }
    let (g, b) = (c.feature_group_count, c.batch_group_count);
    if g == 0 || b == 0 {
        return Err(format!("{op}: feature_group_count ({g}) and batch_group_count ({b}) must be at least 1"));
    }
    if g > 1 && b > 1 {
        return Err(format!("{op}: at most one of feature_group_count ({g}) and batch_group_count ({b}) may exceed 1"));
    }
    let (n, cin) = (lhs.shape[ls.batch], lhs.shape[ls.feature]);
    let (o, i) = (rhs.shape[rs.batch], rhs.shape[rs.feature]);
    if cin % g != 0 || cin / g != i {
        return Err(format!(
            "{op}: the lhs {lhs} has {cin} input features, which must be the rhs {rhs}'s {i} input features times \
             feature_group_count {g}"
        ));
    }
    if o % g != 0 {
        return Err(format!("{op}: the rhs {rhs}'s {o} output features are not divisible by feature_group_count {g}"));
    }
    if n % b != 0 {
        return Err(format!("{op}: the lhs {lhs}'s batch of {n} is not divisible by batch_group_count {b}"));
    }
    if o % b != 0 {
        return Err(format!("{op}: the rhs {rhs}'s {o} output features are not divisible by batch_group_count {b}"));
    }
    let mut shape = vec![0; n_spatial + 2];
    shape[os.batch] = n / b;
    shape[os.feature] = o;
    for k in 0..n_spatial {
        let size = out_size(
            lhs.shape[ls.spatial[k]],
            rhs.shape[rs.spatial[k]],
            c.window_strides[k],
            c.padding[k],
            c.lhs_dilation[k],
            c.rhs_dilation[k],
        )
        .ok_or_else(|| format!("{op}: spatial axis {k} overflows"))?;
        shape[os.spatial[k]] = size;
    }
    Ok(vec![Type { dtype: result_dtype(c.preferred, lhs.dtype)?, shape: Shape::from(shape) }])
}

/// The result dtype: `preferred` when given (the operands' own dtype, or f32 for 16-bit
/// float operands), else the operands'.
fn result_dtype(preferred: Option<DType>, operand: DType) -> Result<DType, String> {
    match preferred {
        None => Ok(operand),
        Some(p) if p == operand || (operand.is_half() && p == DType::F32) => Ok(p),
        Some(p) => Err(format!(
            "conv_general_dilated: preferred={p} is not supported for {operand} operands (none or {operand}; f32 only \
             for bf16/f16 operands)"
        )),
    }
}

/// The type rule of a convolution op.
pub(crate) fn infer(op: &ConvOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    match op {
        ConvOp::ConvGeneralDilated(c) => infer_conv(c, inputs),
    }
}

/// The number of products summed per result element: the kernel's window times its
/// input features per group (the kernel's elements over its output features).
pub(crate) fn contracted_size(op: &ConvOp, rhs: Option<&Type>) -> u64 {
    match op {
        ConvOp::ConvGeneralDilated(c) => {
            let Some(rhs) = rhs else { return 1 };
            let Ok([_, rs, _]) = specs(&c.dimension_numbers) else { return 1 };
            let window: u64 = rs.spatial.iter().map(|&a| rhs.shape.get(a).copied().unwrap_or(0) as u64).product();
            let i = rhs.shape.get(rs.feature).copied().unwrap_or(0) as u64;
            window.saturating_mul(i)
        }
    }
}

/// The property-table row: a launch (an im2col + GEMM in the JIT), `2·out·window·I`
/// flops, inexact (sums reassociated over both operands), float operands.
pub(crate) fn props(op: &ConvOp) -> Props {
    match op {
        ConvOp::ConvGeneralDilated(_) => Props {
            flops: Flops::Contraction,
            inexact: true,
            reassociates_over: &[0, 1],
            domain: UnaryDomain::Float,
            ..Props::movement(Class::Launch)
        },
    }
}

#[cfg(test)]
#[path = "../tests/conv.rs"]
mod tests;
