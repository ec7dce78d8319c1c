//! Matrix products: [`Tensor::matmul`] (NumPy's `@`, batched) and [`Tensor::dot`]
//! (NumPy's `dot`), both lowered to one `dot_general` after promotion.
//!
//! `matmul` of two operands of rank >= 2 treats the leading axes as batch axes. When
//! only one side has them, no batch axes are needed: the other side's matrix is
//! contracted directly (and a `transpose` puts the batch axes first if they came from
//! the right). When both have them, they broadcast NumPy-style and become the
//! `dot_general`'s batch dimensions.

use super::lax;
use super::{broadcast_at, broadcast_shapes, cast_at, promote};
use crate::Tensor;
use crate::tracer::{emit1, fail};
use ferrax_ir::prim::DotDims;
use ferrax_ir::prim::LinalgOp;
use ferrax_ir::{DType, Prim, Shape, Type};
use std::panic::Location;

impl Tensor {
    /// The matrix product `self @ rhs`, with NumPy's rules: 1-D x 1-D is the inner
    /// product, a 1-D left (right) operand is a row (column) vector whose axis is
    /// dropped from the result, and operands of rank >= 2 are stacks of matrices whose
    /// leading (batch) axes broadcast. Operands are promoted to a common dtype.
    #[track_caller]
    pub fn matmul(&self, rhs: &Tensor) -> Tensor {
        matmul_at(self, rhs, None, Location::caller())
    }

    /// [`Tensor::matmul`] returning `dtype` (JAX's `preferred_element_type`): on bf16 or
    /// f16 operands, `DType::F32` gives the product's f32 accumulation itself instead
    /// of rounding it to 16 bits (the operands' own dtype changes nothing; anything
    /// else is an error at this call). Reverse mode rounds the operands' cotangents
    /// back to their dtype.
    ///
    /// ```
    /// use ferrax::ir::array::bf16;
    /// use ferrax::{Array, DType, Tensor};
    /// let a = Array::from([1.0, 2f32.powi(-9), 2f32.powi(-9)].map(bf16::from_f32).to_vec());
    /// let ones = Array::from(vec![bf16::ONE; 3]);
    /// let f = |(a, b): (Tensor, Tensor)| a.matmul_preferred(&b, DType::F32);
    /// let exact = ferrax::eval(f, &(a.clone(), ones.clone())).unwrap();
    /// assert_eq!(exact.to_f64_vec(), vec![1.0 + 2f64.powi(-8)]);
    /// let rounded = ferrax::eval(|(a, b): (Tensor, Tensor)| a.matmul(&b), &(a, ones)).unwrap();
    /// assert_eq!(rounded.to_f64_vec(), vec![1.0]); // 1 + 2^-8 rounds to even in bf16
    /// ```
    #[track_caller]
    pub fn matmul_preferred(&self, rhs: &Tensor, dtype: DType) -> Tensor {
        matmul_at(self, rhs, Some(dtype), Location::caller())
    }

    /// NumPy's `dot`: the inner product of vectors, the matrix product of matrices, and
    /// in general a sum over the last axis of `self` and the second-to-last axis of
    /// `rhs` (its only axis if it is 1-D). A scalar operand multiplies elementwise.
    #[track_caller]
    pub fn dot(&self, rhs: &Tensor) -> Tensor {
        let location = Location::caller();
        if self.rank() == 0 || rhs.rank() == 0 {
            return self * rhs;
        }
        if let Err(message) = check_operands("dot", self, rhs) {
            return fail(location, message, Type::scalar(promote(self.dtype(), rhs.dtype())));
        }
        let (lhs, rhs) = promote_pair(self, rhs, location);
        dot_general_at(&lhs, &rhs, (last(&lhs), matrix_row_axis(&rhs)), None, location)
    }
}

/// `matmul` with an optional result dtype.
fn matmul_at(lhs: &Tensor, rhs: &Tensor, preferred: Option<DType>, location: &'static Location<'static>) -> Tensor {
    if let Err(message) = check_operands("matmul", lhs, rhs) {
        return fail(location, message, Type::scalar(preferred.unwrap_or(promote(lhs.dtype(), rhs.dtype()))));
    }
    let (lhs, rhs) = promote_pair(lhs, rhs, location);
    if lhs.rank() > 2 && rhs.rank() > 2 {
        batched_matmul(&lhs, &rhs, preferred, location)
    } else {
        contract_last(&lhs, &rhs, preferred, location)
    }
}

/// The mistakes a user can make with `matmul` or `dot` (`op`), named with the
/// operands' types: bool operands, scalars, contracting sizes that differ, batch axes
/// that do not broadcast (`matmul` of two stacks).
fn check_operands(op: &str, lhs: &Tensor, rhs: &Tensor) -> Result<(), String> {
    let operands = format!("{op}: {} x {}", lhs.ty(), rhs.ty());
    if promote(lhs.dtype(), rhs.dtype()) == DType::Bool {
        return Err(format!("{operands}: operands must be numeric"));
    }
    if lhs.rank() == 0 || rhs.rank() == 0 {
        return Err(format!("{operands}: operands must have rank >= 1"));
    }
    let (k_lhs, k_rhs) = (lhs.shape()[last(lhs)], rhs.shape()[matrix_row_axis(rhs)]);
    if k_lhs != k_rhs {
        return Err(format!("{operands}: contracting dims {k_lhs} vs {k_rhs}"));
    }
    if op == "matmul" && lhs.rank() > 2 && rhs.rank() > 2 && batch_shape(lhs, rhs).is_none() {
        let (l, r) = (&lhs.shape()[..lhs.rank() - 2], &rhs.shape()[..rhs.rank() - 2]);
        return Err(format!("{operands}: batch dims {l:?} and {r:?} do not broadcast"));
    }
    Ok(())
}

/// The broadcast of the batch (all but the last two) axes of two stacks of matrices.
fn batch_shape(lhs: &Tensor, rhs: &Tensor) -> Option<Shape> {
    let batch = |x: &Tensor| x.shape()[..x.rank().saturating_sub(2)].to_vec();
    broadcast_shapes(&batch(lhs), &batch(rhs))
}

/// Both operands converted to their promoted dtype.
fn promote_pair(lhs: &Tensor, rhs: &Tensor, location: &'static Location<'static>) -> (Tensor, Tensor) {
    let dtype = promote(lhs.dtype(), rhs.dtype());
    (cast_at(lhs, dtype, location), cast_at(rhs, dtype, location))
}

fn last(x: &Tensor) -> usize {
    x.rank().saturating_sub(1)
}

/// The axis of `x` that a matrix product contracts: rows of a matrix (the
/// second-to-last axis), or the only axis of a vector.
fn matrix_row_axis(x: &Tensor) -> usize {
    x.rank().saturating_sub(2)
}

/// `matmul` when at most one side has batch axes: contract the last axis of `lhs`
/// with the row axis of `rhs`; if the batch axes came with `rhs`, move the lhs rows
/// behind them.
fn contract_last(lhs: &Tensor, rhs: &Tensor, preferred: Option<DType>, location: &'static Location<'static>) -> Tensor {
    let product = dot_general_at(lhs, rhs, (last(lhs), matrix_row_axis(rhs)), preferred, location);
    if lhs.rank() != 2 || rhs.rank() <= 2 {
        return product;
    }
    // The product's axes are [n, batch..., m]; matmul's are [batch..., n, m].
    let n_batch = rhs.rank() - 2;
    let mut perm: Vec<usize> = (1..=n_batch).collect();
    perm.extend([0, n_batch + 1]);
    lax::transpose(&product, perm, location)
}

/// `matmul` of two stacks of matrices: the batch axes broadcast, then one
/// `dot_general` with batch dimensions.
fn batched_matmul(
    lhs: &Tensor,
    rhs: &Tensor,
    preferred: Option<DType>,
    location: &'static Location<'static>,
) -> Tensor {
    let batch = batch_shape(lhs, rhs).unwrap_or_default();
    let with_batch = |x: &Tensor| {
        let mut shape = batch.clone();
        shape.extend_from_slice(&x.shape()[x.rank() - 2..]);
        shape
    };
    let lhs = broadcast_at(lhs, &with_batch(lhs), location);
    let rhs = broadcast_at(rhs, &with_batch(rhs), location);
    let n_batch = batch.len();
    let dims = DotDims {
        lhs_contract: vec![n_batch + 1],
        rhs_contract: vec![n_batch],
        lhs_batch: (0..n_batch).collect(),
        rhs_batch: (0..n_batch).collect(),
        preferred,
    };
    emit_dot(&lhs, &rhs, dims, location)
}

/// A `dot_general` contracting axis `l` of `lhs` with axis `r` of `rhs`, no batch.
fn dot_general_at(
    lhs: &Tensor,
    rhs: &Tensor,
    (l, r): (usize, usize),
    preferred: Option<DType>,
    location: &'static Location<'static>,
) -> Tensor {
    let dims =
        DotDims { lhs_contract: vec![l], rhs_contract: vec![r], lhs_batch: vec![], rhs_batch: vec![], preferred };
    emit_dot(lhs, rhs, dims, location)
}

/// Emits the `dot_general`, with its result type as the fallback.
fn emit_dot(lhs: &Tensor, rhs: &Tensor, dims: DotDims, location: &'static Location<'static>) -> Tensor {
    let dim = |x: &Tensor, a: usize| x.shape().get(a).copied().unwrap_or(0);
    let mut shape: Shape = dims.lhs_batch.iter().map(|&a| dim(lhs, a)).collect();
    shape.extend(dims.lhs_free(lhs.rank()).into_iter().map(|a| dim(lhs, a)));
    shape.extend(dims.rhs_free(rhs.rank()).into_iter().map(|a| dim(rhs, a)));
    let ty = Type { dtype: dims.preferred.unwrap_or(lhs.dtype()), shape };
    emit1(Prim::Linalg(LinalgOp::DotGeneral(dims)), &[lhs, rhs], location, ty)
}
