//! Linear algebra: `dot_general`, XLA's generalised contraction. Result axes are the
//! batch axes, then the lhs free axes, then the rhs free axes.

use super::unary::{UnaryDomain, expect_domain};
use super::{check_axes, expect_arity, expect_same};
use crate::Type;
use ferrax_array::Array;
use ferrax_array::Shape;

/// The dimension numbers of a `dot_general`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDims {
    /// Contracted axes of the lhs.
    pub lhs_contract: Vec<usize>,
    /// Contracted axes of the rhs, paired with `lhs_contract`.
    pub rhs_contract: Vec<usize>,
    /// Batch axes of the lhs.
    pub lhs_batch: Vec<usize>,
    /// Batch axes of the rhs, paired with `lhs_batch`.
    pub rhs_batch: Vec<usize>,
}

impl DotDims {
    /// The free (neither contracted nor batch) axes of the lhs (rank `lhs_rank`), in order.
    pub fn lhs_free(&self, lhs_rank: usize) -> Vec<usize> {
        (0..lhs_rank).filter(|a| !self.lhs_contract.contains(a) && !self.lhs_batch.contains(a)).collect()
    }

    /// The free axes of the rhs, in order.
    pub fn rhs_free(&self, rhs_rank: usize) -> Vec<usize> {
        (0..rhs_rank).filter(|a| !self.rhs_contract.contains(a) && !self.rhs_batch.contains(a)).collect()
    }
}

// ---- type rules ----

pub(crate) fn infer_dot_general(dims: &DotDims, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "dot_general";
    expect_arity(op, inputs, 2)?;
    let (lhs, rhs) = (&inputs[0], &inputs[1]);
    if lhs.dtype != rhs.dtype {
        expect_same(op, lhs, rhs)?;
    }
    expect_domain(op, UnaryDomain::Numeric, lhs)?;
    for (side, contract, batch, ty) in
        [("lhs", &dims.lhs_contract, &dims.lhs_batch, lhs), ("rhs", &dims.rhs_contract, &dims.rhs_batch, rhs)]
    {
        let all: Vec<usize> = batch.iter().chain(contract.iter()).copied().collect();
        check_axes(op, &format!("{side} axis"), &all, ty.rank())?;
    }
    if dims.lhs_contract.len() != dims.rhs_contract.len() || dims.lhs_batch.len() != dims.rhs_batch.len() {
        return Err(format!(
            "{op}: lhs and rhs must list as many contracting axes ({} vs {}) and batch axes ({} vs {})",
            dims.lhs_contract.len(),
            dims.rhs_contract.len(),
            dims.lhs_batch.len(),
            dims.rhs_batch.len()
        ));
    }
    for (kind, l_axes, r_axes) in
        [("contracting", &dims.lhs_contract, &dims.rhs_contract), ("batch", &dims.lhs_batch, &dims.rhs_batch)]
    {
        for (&l, &r) in l_axes.iter().zip(r_axes.iter()) {
            if lhs.shape[l] != rhs.shape[r] {
                return Err(format!(
                    "{op}: {kind} sizes differ: lhs axis {l} of {lhs} has {} but rhs axis {r} of {rhs} has {}",
                    lhs.shape[l], rhs.shape[r]
                ));
            }
        }
    }
    let mut shape: Shape = dims.lhs_batch.iter().map(|&a| lhs.shape[a]).collect();
    shape.extend(dims.lhs_free(lhs.rank()).into_iter().map(|a| lhs.shape[a]));
    shape.extend(dims.rhs_free(rhs.rank()).into_iter().map(|a| rhs.shape[a]));
    Ok(vec![Type { dtype: lhs.dtype, shape }])
}

// ---- evaluation (the reference interpreter's rules) ----

/// Reference evaluation (placeholder until the interpreter lands).
pub(crate) fn eval_dot_general(dims: &DotDims, lhs: &Array, rhs: &Array) -> Result<ferrax_array::Array, String> {
    let _ = (dims, lhs, rhs);
    Err("eval_dot_general is not written yet".into())
}
