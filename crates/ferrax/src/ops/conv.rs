//! Convolution: [`conv_general_dilated`] (`jax.lax.conv_general_dilated`) with its
//! parameters in a [`ConvSpec`].
//!
//! The spec is resolved at trace time into the IR's explicit attributes: `SAME` and
//! `VALID` padding become `(lo, hi)` pairs exactly as JAX's `padtype_to_pads` computes
//! them (from the undilated input size, the dilated kernel size and the strides),
//! empty per-axis lists become ones, and no layout means JAX's default
//! (`NC` + spatial, `OI` + spatial, `NC` + spatial). Everything else (layout letters,
//! group counts, sizes) is checked by the primitive's type rule, whose error is
//! recorded at the caller's line.

use super::lax;
pub use super::padding::Padding;
use crate::Tensor;
use ferrax_ir::DType;
use ferrax_ir::prim::{Conv, conv::specs};
use std::panic::Location;

/// The parameters of a [`conv_general_dilated`], as `jax.lax`'s keyword arguments.
///
/// Per-axis lists have one entry per spatial axis, in the order the kernel's layout
/// string lists the spatial letters; an empty list means 1 on every axis.
///
/// ```
/// use ferrax::lax::{ConvSpec, Padding};
/// let spec = ConvSpec::new().strides(&[2, 2]).padding(Padding::Same).layout("NHWC", "HWIO", "NHWC");
/// assert_eq!(spec.window_strides, vec![2, 2]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvSpec {
    /// The window's step along each spatial axis (empty: 1).
    pub window_strides: Vec<usize>,
    /// The padding of the (dilated) input.
    pub padding: Padding,
    /// Input dilation per spatial axis (empty: 1); a transposed convolution's stride.
    pub lhs_dilation: Vec<usize>,
    /// Kernel dilation per spatial axis (empty: 1): atrous convolution.
    pub rhs_dilation: Vec<usize>,
    /// The input, kernel and output layouts (`["NHWC", "HWIO", "NHWC"]`); `None` is
    /// JAX's default, `NC`/`OI`/`NC` followed by the spatial axes.
    pub dimension_numbers: Option<[String; 3]>,
    /// Feature groups (the input features split in this many groups, each convolved
    /// with its own slice of the kernel's output features; equal to the input features
    /// for a depthwise convolution).
    pub feature_group_count: usize,
    /// Batch groups (what the kernel gradient of a grouped convolution uses).
    pub batch_group_count: usize,
    /// The result dtype when it is not the operands' (`Some(F32)` for bf16/f16
    /// operands keeps the f32 accumulation).
    pub preferred: Option<DType>,
}

impl Default for ConvSpec {
    fn default() -> ConvSpec {
        ConvSpec {
            window_strides: vec![],
            padding: Padding::Valid,
            lhs_dilation: vec![],
            rhs_dilation: vec![],
            dimension_numbers: None,
            feature_group_count: 1,
            batch_group_count: 1,
            preferred: None,
        }
    }
}

impl ConvSpec {
    /// Unit strides, `VALID` padding, no dilation, JAX's default layout, no groups.
    pub fn new() -> ConvSpec {
        ConvSpec::default()
    }

    /// With these window strides.
    pub fn strides(mut self, strides: &[usize]) -> ConvSpec {
        self.window_strides = strides.to_vec();
        self
    }

    /// With this padding.
    pub fn padding(mut self, padding: Padding) -> ConvSpec {
        self.padding = padding;
        self
    }

    /// With this input dilation.
    pub fn lhs_dilation(mut self, dilation: &[usize]) -> ConvSpec {
        self.lhs_dilation = dilation.to_vec();
        self
    }

    /// With this kernel dilation.
    pub fn rhs_dilation(mut self, dilation: &[usize]) -> ConvSpec {
        self.rhs_dilation = dilation.to_vec();
        self
    }

    /// With these input, kernel and output layouts (as `"NHWC", "HWIO", "NHWC"`).
    pub fn layout(mut self, lhs: &str, rhs: &str, out: &str) -> ConvSpec {
        self.dimension_numbers = Some([lhs.to_string(), rhs.to_string(), out.to_string()]);
        self
    }

    /// With this many feature groups.
    pub fn feature_groups(mut self, count: usize) -> ConvSpec {
        self.feature_group_count = count;
        self
    }

    /// With this many batch groups.
    pub fn batch_groups(mut self, count: usize) -> ConvSpec {
        self.batch_group_count = count;
        self
    }

    /// With this preferred result dtype.
    pub fn preferred(mut self, dtype: DType) -> ConvSpec {
        self.preferred = Some(dtype);
        self
    }

    /// The IR attributes for operands of these shapes, or what is wrong.
    pub fn resolve(&self, lhs: &[usize], rhs: &[usize]) -> Result<Conv, String> {
        let rank = lhs.len();
        let n = rank.checked_sub(2).ok_or_else(|| format!("the lhs has rank {rank}, at least 3 is needed"))?;
        let dn = match &self.dimension_numbers {
            Some(dn) => dn.clone(),
            None => default_layouts(n)?,
        };
        let ones = |v: &[usize]| if v.is_empty() { vec![1; n] } else { v.to_vec() };
        let (strides, lhs_dilation, rhs_dilation) =
            (ones(&self.window_strides), ones(&self.lhs_dilation), ones(&self.rhs_dilation));
        let padding = match &self.padding {
            Padding::Explicit(p) => p.clone(),
            Padding::Valid => vec![(0, 0); n],
            same => {
                let [ls, rs, _] = specs(&dn)?;
                if lhs.len() != ls.spatial.len() + 2 || rhs.len() != rs.spatial.len() + 2 {
                    return Err(format!(
                        "the operands' ranks ({} and {}) do not match the layouts {dn:?}",
                        lhs.len(),
                        rhs.len()
                    ));
                }
                if strides.len() != n || rhs_dilation.len() != n {
                    return Err(format!(
                        "window_strides {strides:?} and rhs_dilation {rhs_dilation:?} need {n} entries for SAME padding"
                    ));
                }
                let input: Vec<usize> = ls.spatial.iter().map(|&a| lhs[a]).collect();
                // The dilated kernel's extent (saturating: the type rule refuses sizes
                // that overflow).
                let window: Vec<usize> = (0..n)
                    .map(|k| match rhs[rs.spatial[k]] {
                        0 => 0,
                        taps => (taps - 1).saturating_mul(rhs_dilation[k]).saturating_add(1),
                    })
                    .collect();
                if let Some(k) = strides.iter().position(|&s| s == 0) {
                    return Err(format!("window_strides must be at least 1, got {strides:?} (axis {k})"));
                }
                same.resolve(&input, &window, &strides)?
            }
        };
        Ok(Conv {
            window_strides: strides,
            padding,
            lhs_dilation,
            rhs_dilation,
            dimension_numbers: dn,
            feature_group_count: self.feature_group_count,
            batch_group_count: self.batch_group_count,
            preferred: self.preferred,
        })
    }
}

/// JAX's default layouts for `n` spatial axes: `NC...`, `OI...`, `NC...`.
fn default_layouts(n: usize) -> Result<[String; 3], String> {
    const LETTERS: [char; 8] = ['H', 'W', 'D', 'T', 'U', 'V', 'X', 'Y'];
    let spatial: String =
        LETTERS.get(..n).ok_or_else(|| format!("{n} spatial axes need explicit dimension_numbers"))?.iter().collect();
    Ok([format!("NC{spatial}"), format!("OI{spatial}"), format!("NC{spatial}")])
}

/// The convolution of `lhs` (the input) with `rhs` (the kernel), as
/// `jax.lax.conv_general_dilated(lhs, rhs, ...)` with the parameters of `spec`.
///
/// Both operands have one float dtype; the result has it too (or `spec.preferred`).
/// Mistakes (ranks, layouts, feature counts, group counts) are recorded at the
/// caller's line and give a poisoned tensor.
///
/// ```
/// use ferrax::lax::{ConvSpec, Padding, conv_general_dilated};
/// use ferrax::{DType, Tensor, Type, make_ir};
/// let x = Type::new(DType::F32, &[8, 32, 32, 3]);
/// let w = Type::new(DType::F32, &[3, 3, 3, 16]);
/// let spec = ConvSpec::new().padding(Padding::Same).layout("NHWC", "HWIO", "NHWC");
/// let text = make_ir(|[x, w]: [Tensor; 2]| conv_general_dilated(&x, &w, &spec), &[x, w]).unwrap();
/// assert!(text.contains("f32[8,32,32,16] = conv_general_dilated"));
/// ```
#[track_caller]
pub fn conv_general_dilated(lhs: &Tensor, rhs: &Tensor, spec: &ConvSpec) -> Tensor {
    let location = Location::caller();
    match spec.resolve(lhs.shape(), rhs.shape()) {
        Ok(conv) => lax::conv_general_dilated(lhs, rhs, conv, location),
        Err(message) => crate::tracer::fail(location, format!("conv_general_dilated: {message}"), lhs.ty().clone()),
    }
}
