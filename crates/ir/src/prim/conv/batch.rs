//! The batching rule of `conv_general_dilated`, as JAX's
//! `_conv_general_dilated_batch_rule`: the batch axis is folded into one axis of the
//! convolution, so a batched convolution is one convolution and a reshape.
//!
//! - Input batched only: the batch axis joins `N` (as its major part); with batch
//!   groups, inside each group, so that the groups stay outermost.
//! - Kernel batched only: the batch axis joins `O`; with groups, inside each group.
//! - Both batched: the batch axis joins the input's `C` and the kernel's `O`, and the
//!   feature groups are multiplied by the batch size (with batch groups: the input's
//!   `N` and the batch groups), so each example convolves with its own kernel.
//!
//! The result's batch axis is where the folded axis is split back out: the result's
//! `N` or `C`.

use super::super::batch::Batched;
use super::super::unary::example_rank;
use super::ad::{reshape_axis_into, reshape_axis_out_of};
use super::{Conv, ConvOp, infer_conv, specs};
use crate::{Emitter, Prim, Type, Value};

/// The batching rule of a convolution op.
pub(crate) fn batch(
    em: &mut Emitter,
    op: &ConvOp,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let ConvOp::ConvGeneralDilated(c) = op;
    let name = op.name();
    let (&[lhs, rhs], &[lhs_dim, rhs_dim]) = (inputs, dims) else {
        return Err(format!("{name}: expects 2 operands and 2 batch axes, got {} and {}", inputs.len(), dims.len()));
    };
    // Checked on one example first, so that an error speaks of the equation as written.
    let example = |em: &Emitter, x: Value, d: Option<usize>| -> Result<Type, String> {
        example_rank(em, name, x, d, size)?;
        let mut ty = em.ty(x).clone();
        if let Some(d) = d {
            ty.shape.remove(d);
        }
        Ok(ty)
    };
    let (lhs_ty, rhs_ty) = (example(em, lhs, lhs_dim)?, example(em, rhs, rhs_dim)?);
    let mut out_ty = infer_conv(c, &[lhs_ty, rhs_ty])?.remove(0);
    let [ls, rs, os] = specs(&c.dimension_numbers)?;
    if size == 0 {
        // No example: the folded axis would be empty and could not be split back.
        out_ty.shape.insert(os.batch, 0);
        return Ok((vec![em.zeros(&out_ty)?], vec![Some(os.batch)]));
    }
    let (g, b) = (c.feature_group_count, c.batch_group_count);
    let conv = |em: &mut Emitter, l: Value, r: Value, g: usize, b: usize| {
        let p = Conv { feature_group_count: g, batch_group_count: b, ..(**c).clone() };
        em.op(Prim::Conv(ConvOp::ConvGeneralDilated(Box::new(p))), &[l, r])
    };
    let grow = |n: usize, what: &str| {
        n.checked_mul(size).ok_or_else(|| format!("{name}: {what} times the batch size {size} overflows"))
    };
    match (lhs_dim, rhs_dim) {
        (Some(ld), Some(rd)) => {
            let (new_lhs, g, b) = if b > 1 {
                (reshape_axis_into(em, ld, ls.batch, lhs)?, g, grow(b, "batch_group_count")?)
            } else {
                (reshape_axis_into(em, ld, ls.feature, lhs)?, grow(g, "feature_group_count")?, b)
            };
            let new_rhs = reshape_axis_into(em, rd, rs.batch, rhs)?;
            let out = conv(em, new_lhs, new_rhs, g, b)?;
            let out = reshape_axis_out_of(em, os.feature, size, out)?;
            Ok((vec![out], vec![Some(os.feature)]))
        }
        (Some(ld), None) => {
            let new_lhs = if b == 1 {
                reshape_axis_into(em, ld, ls.batch, lhs)?
            } else {
                // Groups outermost: N as [groups, N / groups], the batch axis folded
                // into the second part, then the groups back in front.
                let x = reshape_axis_out_of(em, ls.batch + usize::from(ld <= ls.batch), b, lhs)?;
                let x = reshape_axis_into(em, ld + usize::from(ls.batch < ld), ls.batch + 1, x)?;
                reshape_axis_into(em, ls.batch, ls.batch, x)?
            };
            let out = conv(em, new_lhs, rhs, g, b)?;
            let out = reshape_axis_out_of(em, os.batch, size, out)?;
            Ok((vec![out], vec![Some(os.batch)]))
        }
        (None, Some(rd)) => {
            if g == 1 && b == 1 {
                let new_rhs = reshape_axis_into(em, rd, rs.batch, rhs)?;
                let out = conv(em, lhs, new_rhs, g, b)?;
                let out = reshape_axis_out_of(em, os.feature, size, out)?;
                return Ok((vec![out], vec![Some(os.feature)]));
            }
            // Groups outermost in O: [groups, O / groups] with the batch axis folded
            // into the second part; the result's C is split the same way back.
            let groups = g.max(b);
            let x = reshape_axis_out_of(em, rs.batch + usize::from(rd <= rs.batch), groups, rhs)?;
            let x = reshape_axis_into(em, rd + usize::from(rs.batch < rd), rs.batch + 1, x)?;
            let new_rhs = reshape_axis_into(em, rs.batch, rs.batch, x)?;
            let out = conv(em, lhs, new_rhs, g, b)?;
            let out = reshape_axis_out_of(em, os.feature, groups, out)?;
            let out = reshape_axis_out_of(em, os.feature + 1, size, out)?;
            let out = reshape_axis_into(em, os.feature, os.feature + 1, out)?;
            Ok((vec![out], vec![Some(os.feature)]))
        }
        (None, None) => Err(format!("{name}: no operand is batched")),
    }
}
