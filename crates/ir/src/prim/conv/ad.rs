//! The differentiation rules of `conv_general_dilated`.
//!
//! The convolution is bilinear, so its jvp is `conv(t_lhs, rhs) + conv(lhs, t_rhs)`
//! (each term only for a non-zero tangent) and it is linear in either operand when the
//! other is a residual. Both transposes are convolutions, as JAX defines them:
//!
//! - with respect to the input: the cotangent convolved with the kernel reversed along
//!   its spatial axes and with `O` and `I` exchanged; the window strides become the
//!   input dilation (and the input dilation the strides), the padding is what puts
//!   every tap back where it came from, and feature groups (or batch groups) move from
//!   the kernel's `O` into its `I`;
//! - with respect to the kernel: the input convolved with the cotangent, the input's
//!   `N` and `C` exchanged (and the cotangent's), strides and kernel dilation
//!   exchanged; a forward feature grouping becomes a batch grouping and the other way
//!   round, which is what makes grouped and depthwise kernels' gradients convolutions.
//!
//! With `preferred` the cotangent is wider than the operands: the transposed
//! convolution runs in the cotangent's dtype and its result is rounded back to the
//! operand's.

use super::super::ad::LinearIn;
use super::{Conv, ConvOp, ConvSpec, ConvSpecs, dilate, layouts, specs};
use crate::emit::add_optional;
use crate::{Emitter, Prim, Type, Value};

/// The jvp rule: one convolution per non-zero tangent, summed.
pub(crate) fn jvp(
    em: &mut Emitter,
    op: &ConvOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[lhs, rhs], &[_], &[t_lhs, t_rhs]) = (primals, outputs, tangents) else {
        return Err(format!("{}: expects 2 operands, 2 tangents and 1 result", op.name()));
    };
    let prim = Prim::Conv(op.clone());
    let from_lhs = t_lhs.map(|t| em.op(prim.clone(), &[t, rhs])).transpose()?;
    let from_rhs = t_rhs.map(|t| em.op(prim, &[lhs, t])).transpose()?;
    Ok(vec![add_optional(em, from_lhs, from_rhs)?])
}

/// The transpose rule: linear in one operand when the other is a residual.
pub(crate) fn transpose(
    em: &mut Emitter,
    op: &ConvOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let ConvOp::ConvGeneralDilated(c) = op;
    let ([lhs, rhs], [ct]) = (inputs, cts) else {
        return Err(format!(
            "{}: transpose expects 2 inputs and 1 cotangent, got {} and {}",
            op.name(),
            inputs.len(),
            cts.len()
        ));
    };
    match (lhs, rhs) {
        (LinearIn::Linear(_), LinearIn::Linear(_)) => Err("conv_general_dilated of two linear operands is not \
             linear (one operand must be a residual), so it has no transpose rule"
            .into()),
        (LinearIn::Residual(_), LinearIn::Residual(_)) => Ok(vec![None, None]),
        (LinearIn::Linear(lhs_ty), LinearIn::Residual(rhs)) => match ct {
            None => Ok(vec![None, None]),
            Some(ct) => Ok(vec![Some(transpose_lhs(em, c, *ct, lhs_ty, *rhs)?), None]),
        },
        (LinearIn::Residual(lhs), LinearIn::Linear(rhs_ty)) => match ct {
            None => Ok(vec![None, None]),
            Some(ct) => Ok(vec![None, Some(transpose_rhs(em, c, *ct, *lhs, rhs_ty)?)]),
        },
    }
}

/// Whether any of these values has no elements (the cotangent is then zero, and the
/// transposed convolutions could be degenerate).
fn any_empty(em: &Emitter, values: &[Value]) -> bool {
    values.iter().any(|&v| em.ty(v).element_count().is_none_or(|n| n == 0))
}

/// `x` converted to `dtype` (no equation when it already is).
fn to_dtype(em: &mut Emitter, x: Value, dtype: ferrax_array::DType) -> Result<Value, String> {
    if em.ty(x).dtype == dtype { Ok(x) } else { em.convert(x, dtype) }
}

/// The cotangent of the input: JAX's `_conv_general_dilated_transpose_lhs`.
fn transpose_lhs(em: &mut Emitter, c: &Conv, ct: Value, lhs_ty: &Type, rhs: Value) -> Result<Value, String> {
    if any_empty(em, &[ct, rhs]) || lhs_ty.element_count().is_none_or(|n| n == 0) {
        return em.zeros(lhs_ty);
    }
    let ct_dtype = em.ty(ct).dtype;
    let mut kernel = to_dtype(em, rhs, ct_dtype)?;
    let [ls, rs, os] = specs(&c.dimension_numbers)?;
    let (g, b) = (c.feature_group_count, c.batch_group_count);
    // The groups move from the kernel's O (major part) into its I.
    let groups = g.max(b);
    if groups > 1 {
        kernel = reshape_axis_out_of(em, rs.batch, groups, kernel)?;
        kernel = reshape_axis_into(em, rs.batch, rs.feature, kernel)?;
    }
    let rhs_shape = em.ty(kernel).shape.clone();
    let ct_shape = em.ty(ct).shape.clone();
    let n = rs.spatial.len();
    let mut padding = Vec::with_capacity(n);
    for k in 0..n {
        let lhs_d = dilated(lhs_ty.shape[ls.spatial[k]], c.lhs_dilation[k])?;
        let rhs_d = dilated(rhs_shape[rs.spatial[k]], c.rhs_dilation[k])?;
        let out_d = dilated(ct_shape[os.spatial[k]], c.window_strides[k])?;
        let before = rhs_d - i128::from(c.padding[k].0) - 1;
        let after = lhs_d + rhs_d - 1 - out_d - before;
        padding.push((pad_amount(before)?, pad_amount(after)?));
    }
    let kernel = em.rev(kernel, rs.spatial.clone())?;
    let spec = [os, rs.swapped(), ls.clone()];
    let axes = PerAxis {
        strides: c.lhs_dilation.clone(),
        padding,
        lhs_dilation: c.window_strides.clone(),
        rhs_dilation: c.rhs_dilation.clone(),
    };
    let conv = build(&spec, axes, groups, 1)?;
    let mut out = em.op(Prim::Conv(ConvOp::ConvGeneralDilated(Box::new(conv))), &[ct, kernel])?;
    if b > 1 {
        out = reshape_axis_out_of(em, ls.feature, b, out)?;
        out = reshape_axis_into(em, ls.feature, ls.batch, out)?;
    }
    to_dtype(em, out, lhs_ty.dtype)
}

/// The cotangent of the kernel: JAX's `_conv_general_dilated_transpose_rhs`.
fn transpose_rhs(em: &mut Emitter, c: &Conv, ct: Value, lhs: Value, rhs_ty: &Type) -> Result<Value, String> {
    if any_empty(em, &[ct, lhs]) || rhs_ty.element_count().is_none_or(|n| n == 0) {
        return em.zeros(rhs_ty);
    }
    let ct_dtype = em.ty(ct).dtype;
    let lhs = to_dtype(em, lhs, ct_dtype)?;
    let [ls, rs, os] = specs(&c.dimension_numbers)?;
    // Feature groups become batch groups and the other way round.
    let (g, b) = (c.batch_group_count, c.feature_group_count);
    let lhs_shape = em.ty(lhs).shape.clone();
    let ct_shape = em.ty(ct).shape.clone();
    let n = rs.spatial.len();
    let mut padding = Vec::with_capacity(n);
    for k in 0..n {
        let lhs_d = dilated(lhs_shape[ls.spatial[k]], c.lhs_dilation[k])?;
        let rhs_d = dilated(rhs_ty.shape[rs.spatial[k]], c.rhs_dilation[k])?;
        let out_d = dilated(ct_shape[os.spatial[k]], c.window_strides[k])?;
        let lo = c.padding[k].0;
        padding.push((lo, pad_amount((out_d - lhs_d) + (rhs_d - i128::from(lo) - 1))?));
    }
    let spec = [ls.swapped(), os.swapped(), rs.swapped()];
    let axes = PerAxis {
        strides: c.rhs_dilation.clone(),
        padding,
        lhs_dilation: c.lhs_dilation.clone(),
        rhs_dilation: c.window_strides.clone(),
    };
    let conv = build(&spec, axes, g, b)?;
    let out = em.op(Prim::Conv(ConvOp::ConvGeneralDilated(Box::new(conv))), &[lhs, ct])?;
    to_dtype(em, out, rhs_ty.dtype)
}

/// A dilated size, wide enough that the padding arithmetic cannot overflow.
fn dilated(n: usize, d: usize) -> Result<i128, String> {
    dilate(n, d)
        .and_then(|s| i128::try_from(s).ok())
        .ok_or_else(|| format!("conv_general_dilated: size {n} dilated by {d} overflows"))
}

/// A computed padding amount as the attribute's integer.
fn pad_amount(p: i128) -> Result<i64, String> {
    i64::try_from(p).map_err(|_| format!("conv_general_dilated: the transposed padding {p} overflows"))
}

/// The per-spatial-axis lists of a convolution being built, in the order of the
/// kernel spec's `spatial` list.
pub(super) struct PerAxis {
    pub(super) strides: Vec<usize>,
    pub(super) padding: Vec<(i64, i64)>,
    pub(super) lhs_dilation: Vec<usize>,
    pub(super) rhs_dilation: Vec<usize>,
}

/// The convolution of these specs and per-axis lists. The text form numbers the
/// spatial axes in the order the kernel's layout lists them, so the lists are
/// reordered to follow the kernel's spatial axes by position.
pub(super) fn build(spec: &ConvSpecs, axes: PerAxis, groups: usize, batch_groups: usize) -> Result<Conv, String> {
    let mut order: Vec<usize> = (0..spec[1].spatial.len()).collect();
    order.sort_by_key(|&i| spec[1].spatial[i]);
    let reorder = |s: &ConvSpec| ConvSpec {
        batch: s.batch,
        feature: s.feature,
        spatial: order.iter().map(|&i| s.spatial[i]).collect(),
    };
    let sorted = [reorder(&spec[0]), reorder(&spec[1]), reorder(&spec[2])];
    let pick = |v: &[usize]| order.iter().map(|&i| v[i]).collect::<Vec<usize>>();
    Ok(Conv {
        window_strides: pick(&axes.strides),
        padding: order.iter().map(|&i| axes.padding[i]).collect(),
        lhs_dilation: pick(&axes.lhs_dilation),
        rhs_dilation: pick(&axes.rhs_dilation),
        dimension_numbers: layouts(&sorted)?,
        feature_group_count: groups,
        batch_group_count: batch_groups,
        preferred: None,
    })
}

/// `x` with axis `src` split into `[size, rest]` (the new axes at `src`, `src + 1`):
/// JAX's `_reshape_axis_out_of`.
pub(super) fn reshape_axis_out_of(em: &mut Emitter, src: usize, size: usize, x: Value) -> Result<Value, String> {
    let mut shape = em.ty(x).shape.to_vec();
    let n = shape.get(src).copied().ok_or_else(|| format!("conv_general_dilated: no axis {src} to split"))?;
    if size == 0 || n % size != 0 {
        return Err(format!("conv_general_dilated: axis {src} of {} elements does not split by {size}", n));
    }
    shape.splice(src..=src, [size, n / size]);
    em.reshape(x, &shape)
}

/// `x` with axis `src` merged into axis `dst` as its major part (`dst` numbered
/// without `src`): JAX's `_reshape_axis_into`.
pub(super) fn reshape_axis_into(em: &mut Emitter, src: usize, dst: usize, x: Value) -> Result<Value, String> {
    let shape = em.ty(x).shape.to_vec();
    let mut perm: Vec<usize> = (0..shape.len()).filter(|&a| a != src).collect();
    if src >= shape.len() || dst >= perm.len() {
        return Err(format!(
            "conv_general_dilated: cannot merge axis {src} into {dst} of a rank-{} value",
            shape.len()
        ));
    }
    perm.insert(dst, src);
    let moved = if perm.iter().enumerate().all(|(i, &p)| i == p) { x } else { em.transpose(x, &perm)? };
    let mut new_shape: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
    let merged = new_shape[dst]
        .checked_mul(new_shape[dst + 1])
        .ok_or_else(|| "conv_general_dilated: merged axis overflows".to_string())?;
    new_shape.splice(dst..=dst + 1, [merged]);
    em.reshape(moved, &new_shape)
}
