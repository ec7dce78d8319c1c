//! The reference evaluation of `conv_general_dilated`: a direct loop over the result's
//! elements, the executable definition the JIT is checked against.
//!
//! Order of evaluation: each result element starts from 0 and adds the products
//! `lhs * rhs` one at a time in the element type, over the group's input features
//! (outer, increasing) and the kernel taps (inner, in C order of the spatial axes as
//! the kernel's layout lists them); taps that fall on padding or on a dilation hole
//! contribute nothing. The interpreter hands 16-bit operands over widened to f32.

use super::super::elements::{Num, array, bad_dtype, c_strides};
use super::{Conv, ConvOp, ConvSpec, infer_conv, specs};
use crate::Type;
use ferrax_array::{Array, Data};

/// Evaluates a convolution op on its operands.
pub(crate) fn eval(op: &ConvOp, a: &[&Array]) -> Result<Array, String> {
    match op {
        ConvOp::ConvGeneralDilated(c) => {
            let [lhs, rhs] = super::super::operands(a)?;
            eval_conv(c, lhs, rhs)
        }
    }
}

/// Evaluates `conv_general_dilated` (see the module docs for the order of the sums).
fn eval_conv(c: &Conv, lhs: &Array, rhs: &Array) -> Result<Array, String> {
    let types = [Type::new(lhs.dtype(), lhs.shape()), Type::new(rhs.dtype(), rhs.shape())];
    // The product is computed in the (widened) operands' dtype; the interpreter rounds a
    // 16-bit result itself, and `preferred=f32` keeps the f32 sums as they are.
    let plain = Conv { preferred: None, ..c.clone() };
    let out_type = infer_conv(&plain, &types)?.remove(0);
    let n = out_type.element_count().ok_or("conv_general_dilated: the result is too large")?;
    let plan = Plan::new(c, lhs.shape(), rhs.shape(), &out_type.shape)?;
    let data = match (lhs.data(), rhs.data()) {
        (Data::F32(a), Data::F32(b)) => Data::F32(plan.run(a, b, n)),
        (Data::F64(a), Data::F64(b)) => Data::F64(plan.run(a, b, n)),
        (Data::Bool(_) | Data::I32(_) | Data::BF16(_) | Data::F16(_) | Data::F32(_) | Data::F64(_), _) => {
            return Err(bad_dtype("conv_general_dilated", lhs.dtype()));
        }
    };
    array(&out_type.shape, data)
}

/// One spatial axis of the loop.
struct Axis {
    /// Input elements along it.
    input: usize,
    /// Kernel taps along it.
    taps: usize,
    /// The window's step.
    stride: i128,
    /// Padding before the dilated input.
    lo: i128,
    /// Input dilation.
    ld: i128,
    /// Kernel dilation.
    rd: i128,
    /// Element strides of the input, kernel and result along it.
    lhs_step: usize,
    rhs_step: usize,
    out_axis: usize,
}

/// The loop nest of one convolution.
struct Plan {
    axes: Vec<Axis>,
    out_shape: Vec<usize>,
    out_spec: ConvSpec,
    /// Input batch and feature strides, kernel `O` and `I` strides.
    lhs_batch_step: usize,
    lhs_feature_step: usize,
    rhs_out_step: usize,
    rhs_in_step: usize,
    /// The kernel's input features (per group).
    in_per_group: usize,
    /// Output features per feature group and per batch group.
    out_per_feature_group: usize,
    out_per_batch_group: usize,
    /// The result's batch (the input's over the batch groups).
    out_batch: usize,
    taps: usize,
}

impl Plan {
    fn new(c: &Conv, lhs: &[usize], rhs: &[usize], out: &[usize]) -> Result<Plan, String> {
        let [ls, rs, os] = specs(&c.dimension_numbers)?;
        let (lst, rst) = (c_strides(lhs), c_strides(rhs));
        let o = rhs[rs.batch];
        let axes: Vec<Axis> = (0..rs.spatial.len())
            .map(|k| Axis {
                input: lhs[ls.spatial[k]],
                taps: rhs[rs.spatial[k]],
                stride: c.window_strides[k] as i128,
                lo: i128::from(c.padding[k].0),
                ld: c.lhs_dilation[k] as i128,
                rd: c.rhs_dilation[k] as i128,
                lhs_step: lst[ls.spatial[k]],
                rhs_step: rst[rs.spatial[k]],
                out_axis: os.spatial[k],
            })
            .collect();
        let taps = axes.iter().map(|a| a.taps).product();
        Ok(Plan {
            out_shape: out.to_vec(),
            lhs_batch_step: lst[ls.batch],
            lhs_feature_step: lst[ls.feature],
            rhs_out_step: rst[rs.batch],
            rhs_in_step: rst[rs.feature],
            in_per_group: rhs[rs.feature],
            out_per_feature_group: (o / c.feature_group_count).max(1),
            out_per_batch_group: (o / c.batch_group_count).max(1),
            out_batch: out[os.batch],
            out_spec: os,
            axes,
            taps,
        })
    }

    /// The C-order result elements (`n` of them) for these operand elements.
    fn run<T: Num>(&self, lhs: &[T], rhs: &[T], n: usize) -> Vec<T> {
        let mut out = vec![T::ZERO; n];
        let rank = self.out_shape.len();
        let mut index = vec![0usize; rank];
        let mut tap = vec![0usize; self.axes.len()];
        for value in out.iter_mut() {
            let (b, o) = (index[self.out_spec.batch], index[self.out_spec.feature]);
            let group = o / self.out_per_feature_group;
            let batch_group = o / self.out_per_batch_group;
            let lhs_b = batch_group * self.out_batch + b;
            let mut acc = T::ZERO;
            for i in 0..self.in_per_group {
                let lhs_base = lhs_b * self.lhs_batch_step + (group * self.in_per_group + i) * self.lhs_feature_step;
                let rhs_base = o * self.rhs_out_step + i * self.rhs_in_step;
                tap.iter_mut().for_each(|t| *t = 0);
                for _ in 0..self.taps {
                    if let Some((l, r)) = self.offsets(&index, &tap) {
                        acc = T::add(acc, T::mul(lhs[lhs_base + l], rhs[rhs_base + r]));
                    }
                    advance(&mut tap, self.axes.iter().map(|a| a.taps));
                }
            }
            *value = acc;
            advance(&mut index, self.out_shape.iter().copied());
        }
        out
    }

    /// The input and kernel offsets (past the batch/feature bases) of tap `tap` of the
    /// window at result position `index`, or `None` when it falls on padding or a hole.
    fn offsets(&self, index: &[usize], tap: &[usize]) -> Option<(usize, usize)> {
        let (mut l, mut r) = (0, 0);
        for (a, &t) in self.axes.iter().zip(tap) {
            let p = index[a.out_axis] as i128 * a.stride + t as i128 * a.rd - a.lo;
            if p < 0 || p % a.ld != 0 {
                return None;
            }
            let q = usize::try_from(p / a.ld).ok().filter(|&q| q < a.input)?;
            l += q * a.lhs_step;
            r += t * a.rhs_step;
        }
        Some((l, r))
    }
}

/// Steps a C-order multi-index over `shape` (wrapping to zeros after the last).
fn advance(index: &mut [usize], shape: impl DoubleEndedIterator<Item = usize> + ExactSizeIterator) {
    for (i, n) in index.iter_mut().zip(shape).rev() {
        *i += 1;
        if *i < n {
            return;
        }
        *i = 0;
    }
}
