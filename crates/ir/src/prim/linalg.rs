//! Linear algebra: `dot_general`, XLA's generalised contraction (result axes are the
//! batch axes, then the lhs free axes, then the rhs free axes), in this file; `cholesky`
//! and `triangular_solve` in `linalg/triangular.rs`, `eigh` in `linalg/eigh.rs`, `lu` in `linalg/lu.rs`,
//! `qr` in `linalg/qr.rs`, `svd` in `linalg/svd.rs`.

mod eigh;
mod lu;
mod qr;
mod svd;
mod triangular;
pub use eigh::{Eigh, pivot as eigh_pivot};
pub use lu::factor as lu_factor;
pub use qr::{Qr, complement as qr_complement};
pub use svd::{Svd, canonical as svd_canonical};
pub use triangular::TriSolve;

use super::ad::LinearIn;
use super::elements::{Num, array, bad_dtype, permute};
use super::unary::{UnaryDomain, expect_domain};
use super::{check_axes, expect_arity, expect_same};
use crate::Type;
use crate::attr::AttrVisitor;
use crate::emit::add_optional;
use crate::{Emitter, Prim, Value};
use ferrax_array::{Array, DType, Data, Shape};

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
    /// The result's dtype when it is not the operands' (JAX's `preferred_element_type`):
    /// `f32` for bf16/f16 operands returns the f32 accumulation itself instead of
    /// rounding it to 16 bits. `None`, or the operands' dtype, changes nothing.
    pub preferred: Option<DType>,
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
    Ok(vec![Type { dtype: result_dtype(dims, lhs.dtype)?, shape }])
}

/// The result dtype of a `dot_general` on `operand` elements: `preferred` when given
/// (the operands' own dtype, or f32 for 16-bit float operands), else the operands'.
pub fn result_dtype(dims: &DotDims, operand: DType) -> Result<DType, String> {
    match dims.preferred {
        None => Ok(operand),
        Some(p) if p == operand || (operand.is_half() && p == DType::F32) => Ok(p),
        Some(p) if operand.is_half() => {
            Err(format!("dot_general: preferred={p} is not supported for {operand} operands (none, {operand} or f32)"))
        }
        Some(p) => Err(format!(
            "dot_general: preferred={p} is not supported for {operand} operands (none or {operand}; f32 only for \
             bf16/f16 operands)"
        )),
    }
}

/// The type rule of a linear-algebra op.
pub(crate) fn infer(op: &LinalgOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    match op {
        LinalgOp::DotGeneral(dims) => infer_dot_general(dims, inputs),
        LinalgOp::Cholesky => triangular::infer_cholesky(inputs),
        LinalgOp::TriangularSolve(p) => triangular::infer_triangular_solve(p, inputs),
        LinalgOp::Eigh(_) => eigh::infer_eigh(inputs),
        LinalgOp::Lu => lu::infer_lu(inputs),
        LinalgOp::Qr(p) => qr::infer_qr(p, inputs),
        LinalgOp::Svd(p) => svd::infer_svd(p, inputs),
    }
}

// ---- evaluation (the reference interpreter's rules) ----

/// Evaluates `dot_general`: result axes are the batch axes (in `lhs_batch` order), then
/// the lhs free axes, then the rhs free axes, each group in operand order.
///
/// Order of evaluation: each result element starts from 0 and adds the products
/// `lhs * rhs` one at a time, in the element type (i32 wraps), over the contracting
/// index in C order of the contracting pairs as listed (the last pair fastest). The
/// operands are first permuted to `[batch, free, contract]` (lhs) and
/// `[batch, contract, free]` (rhs) layouts, so the loops run over contiguous rows.
pub(crate) fn eval_dot_general(dims: &DotDims, lhs: &Array, rhs: &Array) -> Result<Array, String> {
    let types = [Type::new(lhs.dtype(), lhs.shape()), Type::new(rhs.dtype(), rhs.shape())];
    // The interpreter hands 16-bit operands over widened to f32 and rounds a 16-bit
    // result itself, so the product is computed in the operands' dtype here, whatever
    // `preferred` says.
    let plain = DotDims { preferred: None, ..dims.clone() };
    let out_type = infer_dot_general(&plain, &types)?.remove(0);
    if lhs.is_empty() || rhs.is_empty() {
        // Sums over nothing (or no result at all); the other axes' sizes may be huge.
        let n = out_type.element_count().ok_or("dot_general: the result is too large")?;
        return array(&out_type.shape, Data::zeros(out_type.dtype, n));
    }
    let plan = DotPlan::new(dims, lhs.shape(), rhs.shape());
    let data = match (lhs.data(), rhs.data()) {
        (Data::F32(a), Data::F32(b)) => Data::F32(plan.run(a, b)),
        (Data::F64(a), Data::F64(b)) => Data::F64(plan.run(a, b)),
        (Data::I32(a), Data::I32(b)) => Data::I32(plan.run(a, b)),
        (Data::Bool(_) | Data::I32(_) | Data::BF16(_) | Data::F16(_) | Data::F32(_) | Data::F64(_), _) => {
            return Err(bad_dtype("dot_general", lhs.dtype()));
        }
    };
    array(&out_type.shape, data)
}

/// A `dot_general` reduced to a batch of `[m, k] x [k, n]` matrix products.
struct DotPlan<'s> {
    /// The lhs shape.
    lhs_shape: &'s [usize],
    /// The rhs shape.
    rhs_shape: &'s [usize],
    /// Lhs axes in `[batch, free, contract]` order.
    lhs_perm: Vec<usize>,
    /// Rhs axes in `[batch, contract, free]` order.
    rhs_perm: Vec<usize>,
    /// Number of batch elements.
    batch: usize,
    /// Lhs free elements (rows of each product).
    m: usize,
    /// Contracted elements.
    k: usize,
    /// Rhs free elements (columns of each product).
    n: usize,
}

impl<'s> DotPlan<'s> {
    /// The plan for operands of these (type-checked) shapes.
    fn new(dims: &DotDims, lhs_shape: &'s [usize], rhs_shape: &'s [usize]) -> DotPlan<'s> {
        let (lhs_free, rhs_free) = (dims.lhs_free(lhs_shape.len()), dims.rhs_free(rhs_shape.len()));
        let size = |shape: &[usize], axes: &[usize]| axes.iter().map(|&a| shape[a]).product::<usize>();
        let lhs_perm = [&dims.lhs_batch[..], &lhs_free, &dims.lhs_contract].concat();
        let rhs_perm = [&dims.rhs_batch[..], &dims.rhs_contract, &rhs_free].concat();
        DotPlan {
            lhs_shape,
            rhs_shape,
            lhs_perm,
            rhs_perm,
            batch: size(lhs_shape, &dims.lhs_batch),
            m: size(lhs_shape, &lhs_free),
            k: size(lhs_shape, &dims.lhs_contract),
            n: size(rhs_shape, &rhs_free),
        }
    }

    /// The C-order result elements for these operand elements.
    fn run<T: Num>(&self, lhs: &[T], rhs: &[T]) -> Vec<T> {
        let (m, k, n) = (self.m, self.k, self.n);
        let mut out = vec![T::ZERO; self.batch * m * n];
        if out.is_empty() {
            return out;
        }
        let a = permute(lhs, self.lhs_shape, &self.lhs_perm);
        let b = permute(rhs, self.rhs_shape, &self.rhs_perm);
        for (i, out_b) in out.chunks_exact_mut(m * n).enumerate() {
            matmul_into(out_b, &a[i * m * k..(i + 1) * m * k], &b[i * k * n..(i + 1) * k * n], k, n);
        }
        out
    }
}

/// Adds `a @ b` into `out` (`[m, n]`), for `a` of `[m, k]` and `b` of `[k, n]`, in i-k-j
/// order: every element of `out` accumulates its `k` products in increasing `k`.
fn matmul_into<T: Num>(out: &mut [T], a: &[T], b: &[T], k: usize, n: usize) {
    if k == 0 {
        return;
    }
    for (out_row, a_row) in out.chunks_exact_mut(n).zip(a.chunks_exact(k)) {
        for (&a_ik, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
            out_row.iter_mut().zip(b_row).for_each(|(o, &b_kj)| *o = T::add(*o, T::mul(a_ik, b_kj)));
        }
    }
}

// ---- differentiation rules (jvp; transpose for the linear primitives) ----

/// The jvp rule of a linear-algebra op.
pub(crate) fn jvp(
    em: &mut Emitter,
    op: &LinalgOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        LinalgOp::DotGeneral(dims) => jvp_dot_general(em, dims, primals, outputs, tangents),
        LinalgOp::Cholesky => triangular::jvp_cholesky(em, outputs, tangents),
        LinalgOp::TriangularSolve(p) => triangular::jvp_triangular_solve(em, p, primals, outputs, tangents),
        LinalgOp::Eigh(p) => eigh::jvp_eigh(em, p, outputs, tangents),
        LinalgOp::Lu => lu::jvp_lu(em, outputs, tangents),
        LinalgOp::Qr(p) => qr::jvp_qr(em, p, primals, outputs, tangents),
        LinalgOp::Svd(p) => svd::jvp_svd(em, p, primals, outputs, tangents),
    }
}

/// The transpose rule of a linear-algebra op.
pub(crate) fn transpose(
    em: &mut Emitter,
    op: &LinalgOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        LinalgOp::DotGeneral(dims) => transpose_dot_general(em, dims, inputs, cts),
        LinalgOp::Cholesky | LinalgOp::Eigh(_) | LinalgOp::Lu | LinalgOp::Qr(_) | LinalgOp::Svd(_) => {
            Err(super::ad::not_linear(op.name()))
        }
        LinalgOp::TriangularSolve(p) => triangular::transpose_triangular_solve(em, p, inputs, cts),
    }
}

/// The batching rule of a linear-algebra op.
pub(crate) fn batch(
    em: &mut Emitter,
    op: &LinalgOp,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<super::batch::Batched, String> {
    match op {
        LinalgOp::DotGeneral(d) => batch_dot_general(em, d, size, inputs, dims),
        LinalgOp::Cholesky | LinalgOp::Eigh(_) | LinalgOp::Lu | LinalgOp::Qr(_) | LinalgOp::Svd(_) => {
            batch_one_matrix(em, op, size, inputs, dims)
        }
        LinalgOp::TriangularSolve(p) => triangular::batch_triangular_solve(em, p, size, inputs, dims),
    }
}

/// The batching rule of an op on one stack of matrices (`cholesky`, `eigh`, `lu`, `qr`,
/// `svd`): a
/// batch axis among the leading axes stays where it is, for every result; one among
/// the matrix axes moves to the front.
fn batch_one_matrix(
    em: &mut Emitter,
    op: &LinalgOp,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<super::batch::Batched, String> {
    let (&[a], &[dim]) = (inputs, dims) else {
        return Err(format!("{}: expects 1 operand and 1 batch axis", op.name()));
    };
    let rank = em.ty(a).rank();
    let (a, d) = match dim {
        Some(d) if d + 2 < rank => (a, d),
        Some(_) | None => (em.batch_at(a, dim, size, 0)?, 0),
    };
    let outs = em.eqn(&crate::Module::new(), Prim::Linalg(op.clone()), &[a])?;
    let n = outs.len();
    Ok((outs.to_vec(), vec![Some(d); n]))
}

/// The jvp rule of `dot_general`, which is bilinear: `dot(t_lhs, rhs) + dot(lhs, t_rhs)`
/// with the same dimension numbers, each term only for a non-zero tangent.
pub(crate) fn jvp_dot_general(
    em: &mut Emitter,
    dims: &DotDims,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[lhs, rhs], &[out], &[t_lhs, t_rhs]) = (primals, outputs, tangents) else {
        return Err("dot_general: expects 2 operands, 2 tangents and 1 result".into());
    };
    if !em.ty(out).dtype.is_float() {
        return Ok(vec![None]);
    }
    let dot = Prim::Linalg(LinalgOp::DotGeneral(dims.clone()));
    let from_lhs = t_lhs.map(|t| em.op(dot.clone(), &[t, rhs])).transpose()?;
    let from_rhs = t_rhs.map(|t| em.op(dot, &[lhs, t])).transpose()?;
    Ok(vec![add_optional(em, from_lhs, from_rhs)?])
}

/// The transpose rule of `dot_general`, linear in one operand when the other is a
/// residual (both linear is an error).
///
/// The cotangent of the linear side is the `dot_general` of the cotangent (as lhs)
/// with the residual side: the batch axes pair up, and the cotangent's axes of the
/// residual side's free axes contract with them. The result has the batch axes, then
/// the linear side's free axes (the cotangent's free axes), then its contracting axes
/// (the residual side's free axes, ordered as the residual side's contracting axes
/// are); a `transpose` puts them back in the operand's order.
pub(crate) fn transpose_dot_general(
    em: &mut Emitter,
    dims: &DotDims,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let ([lhs, rhs], [ct]) = (inputs, cts) else {
        return Err(format!(
            "dot_general: transpose expects 2 inputs and 1 cotangent, got {} and {}",
            inputs.len(),
            cts.len()
        ));
    };
    match (lhs, rhs) {
        (LinearIn::Linear(_), LinearIn::Linear(_)) => Err("dot_general of two linear operands is not linear \
             (one operand must be a residual), so it has no transpose rule"
            .into()),
        (LinearIn::Residual(_), LinearIn::Residual(_)) => Ok(vec![None, None]),
        (LinearIn::Linear(lhs_ty), LinearIn::Residual(rhs)) => {
            let Some(ct) = *ct else {
                return Ok(vec![None, None]);
            };
            let rhs_rank = em.ty(*rhs).rank();
            let side = Side {
                linear_rank: lhs_ty.rank(),
                linear_batch: &dims.lhs_batch,
                linear_contract: &dims.lhs_contract,
                residual_batch: &dims.rhs_batch,
                residual_contract: &dims.rhs_contract,
                residual_free: dims.rhs_free(rhs_rank),
                // The cotangent's axes: batch, lhs free, rhs free.
                ct_residual_free_start: dims.lhs_batch.len() + dims.lhs_free(lhs_ty.rank()).len(),
                linear_dtype: lhs_ty.dtype,
            };
            Ok(vec![Some(side.emit(em, ct, *rhs)?), None])
        }
        (LinearIn::Residual(lhs), LinearIn::Linear(rhs_ty)) => {
            let Some(ct) = *ct else {
                return Ok(vec![None, None]);
            };
            let lhs_rank = em.ty(*lhs).rank();
            let side = Side {
                linear_rank: rhs_ty.rank(),
                linear_batch: &dims.rhs_batch,
                linear_contract: &dims.rhs_contract,
                residual_batch: &dims.lhs_batch,
                residual_contract: &dims.lhs_contract,
                residual_free: dims.lhs_free(lhs_rank),
                // The cotangent's axes: batch, lhs free, rhs free.
                ct_residual_free_start: dims.lhs_batch.len(),
                linear_dtype: rhs_ty.dtype,
            };
            Ok(vec![None, Some(side.emit(em, ct, *lhs)?)])
        }
    }
}

/// One side of a `dot_general` being transposed: the dimension numbers seen from the
/// linear operand and the residual one.
struct Side<'d> {
    /// Rank of the linear operand.
    linear_rank: usize,
    /// Batch axes of the linear operand.
    linear_batch: &'d [usize],
    /// Contracting axes of the linear operand.
    linear_contract: &'d [usize],
    /// Batch axes of the residual operand, paired with `linear_batch`.
    residual_batch: &'d [usize],
    /// Contracting axes of the residual operand, paired with `linear_contract`.
    residual_contract: &'d [usize],
    /// Free axes of the residual operand, in order.
    residual_free: Vec<usize>,
    /// The cotangent axis of the residual operand's first free axis (the others follow).
    ct_residual_free_start: usize,
    /// The linear operand's dtype (the cotangent's may be wider: `preferred`).
    linear_dtype: DType,
}

impl Side<'_> {
    /// Emits the linear operand's cotangent: `dot_general(ct, residual)` and a transpose.
    fn emit(&self, em: &mut Emitter, ct: Value, residual: Value) -> Result<Value, String> {
        // With `preferred`, the cotangent is wider than the operands: the product runs
        // in its dtype and the operand's cotangent is rounded back to the operand's.
        let ct_dtype = em.ty(ct).dtype;
        let residual = if em.ty(residual).dtype == ct_dtype { residual } else { em.convert(residual, ct_dtype)? };
        let product = self.product(em, ct, residual)?;
        if ct_dtype == self.linear_dtype { Ok(product) } else { em.convert(product, self.linear_dtype) }
    }

    /// `dot_general(ct, residual)` (operands of one dtype) and a transpose.
    fn product(&self, em: &mut Emitter, ct: Value, residual: Value) -> Result<Value, String> {
        let n_batch = self.linear_batch.len();
        let ct_free = self.ct_residual_free_start..self.ct_residual_free_start + self.residual_free.len();
        let dims = DotDims {
            lhs_contract: ct_free.collect(),
            rhs_contract: self.residual_free.clone(),
            lhs_batch: (0..n_batch).collect(),
            rhs_batch: self.residual_batch.to_vec(),
            preferred: None,
        };
        let product = em.op(crate::Prim::Linalg(crate::prim::LinalgOp::DotGeneral(dims)), &[ct, residual])?;
        // Which linear-operand axis each axis of the product is: the batch axes, the
        // linear side's free axes, then the residual side's contracting axes in
        // increasing order (they are its free axes in the product), each standing for
        // the linear axis it was paired with.
        let mut residual_contract: Vec<(usize, usize)> =
            self.residual_contract.iter().copied().zip(self.linear_contract.iter().copied()).collect();
        residual_contract.sort_unstable();
        let linear_free =
            (0..self.linear_rank).filter(|a| !self.linear_batch.contains(a) && !self.linear_contract.contains(a));
        let source: Vec<usize> = self
            .linear_batch
            .iter()
            .copied()
            .chain(linear_free)
            .chain(residual_contract.into_iter().map(|(_, linear)| linear))
            .collect();
        if source.len() != self.linear_rank {
            return Err(format!(
                "dot_general: the transposed product has {} axes, but the operand has {}",
                source.len(),
                self.linear_rank
            ));
        }
        let mut perm = vec![usize::MAX; source.len()];
        for (i, &axis) in source.iter().enumerate() {
            match perm.get_mut(axis) {
                Some(slot) if *slot == usize::MAX => *slot = i,
                Some(_) | None => {
                    return Err(
                        "dot_general: the linear operand's batch and contracting axes repeat or exceed its rank".into(),
                    );
                }
            }
        }
        if perm.iter().enumerate().all(|(i, &p)| i == p) { Ok(product) } else { em.transpose(product, &perm) }
    }
}

// ---- batching rules (vmap) ----

/// The batching rule of `dot_general`: the batch axis is folded into the dimension
/// numbers, so the batched product is one `dot_general` and no operand is transposed
/// or broadcast.
///
/// The operands' axes are renumbered around their batch axes (an axis `a >= d` of an
/// example is axis `a + 1` of an operand batched at `d`). When both operands are
/// batched, their batch axes become a new leading pair of batch dimensions, so the
/// output is batched at axis 0. When one is, its batch axis is one more free axis of
/// that operand, and the output is batched where that axis lands among the output's
/// axes (the batch dimensions, then the lhs free axes in order, then the rhs free
/// axes in order): a matrix times a batch of vectors is a matrix-matrix product.
pub(crate) fn batch_dot_general(
    em: &mut Emitter,
    dims_spec: &DotDims,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<super::batch::Batched, String> {
    let op = "dot_general";
    let (&[lhs, rhs], &[lhs_dim, rhs_dim]) = (inputs, dims) else {
        return Err(format!("{op}: expects 2 operands and 2 batch axes, got {} and {}", inputs.len(), dims.len()));
    };
    // Checked on one example first, so that an error speaks of the equation as written.
    let lhs_example = example_type(em, op, lhs, lhs_dim, size)?;
    let rhs_example = example_type(em, op, rhs, rhs_dim, size)?;
    infer_dot_general(dims_spec, &[lhs_example.clone(), rhs_example.clone()])?;
    let (lhs_rank, rhs_rank) = (lhs_example.rank(), rhs_example.rank());
    let mut batched = DotDims {
        lhs_contract: shift_axes(&dims_spec.lhs_contract, lhs_dim),
        rhs_contract: shift_axes(&dims_spec.rhs_contract, rhs_dim),
        lhs_batch: shift_axes(&dims_spec.lhs_batch, lhs_dim),
        rhs_batch: shift_axes(&dims_spec.rhs_batch, rhs_dim),
        preferred: dims_spec.preferred,
    };
    let n_batch = dims_spec.lhs_batch.len();
    let out_dim = match (lhs_dim, rhs_dim) {
        (Some(l), Some(r)) => {
            batched.lhs_batch.insert(0, l);
            batched.rhs_batch.insert(0, r);
            0
        }
        (Some(l), None) => n_batch + count_below(&dims_spec.lhs_free(lhs_rank), l),
        (None, Some(r)) => n_batch + dims_spec.lhs_free(lhs_rank).len() + count_below(&dims_spec.rhs_free(rhs_rank), r),
        (None, None) => return Err(format!("{op}: no operand is batched")),
    };
    let out = em.op(Prim::Linalg(LinalgOp::DotGeneral(batched)), &[lhs, rhs])?;
    Ok((vec![out], vec![Some(out_dim)]))
}

/// The type of one example of `x`, batched at `dim` (checked to be in range and of
/// `size` elements).
fn example_type(em: &Emitter, op: &str, x: Value, dim: Option<usize>, size: usize) -> Result<Type, String> {
    super::unary::example_rank(em, op, x, dim, size)?;
    let mut ty = em.ty(x).clone();
    if let Some(d) = dim {
        ty.shape.remove(d);
    }
    Ok(ty)
}

/// An operand's axes of one example renumbered for the operand batched at `dim`: every
/// axis at or past the batch axis moves up by one (unchanged when unbatched), so the
/// batch axis itself is never among the renumbered axes.
fn shift_axes(axes: &[usize], dim: Option<usize>) -> Vec<usize> {
    match dim {
        Some(d) => axes.iter().map(|&a| if a >= d { a + 1 } else { a }).collect(),
        None => axes.to_vec(),
    }
}

/// How many of `axes` come before `axis`.
fn count_below(axes: &[usize], axis: usize) -> usize {
    axes.iter().filter(|&&a| a < axis).count()
}

/// A linear-algebra primitive.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LinalgOp {
    /// Generalised tensor contraction (XLA's DotGeneral).
    DotGeneral(DotDims),
    /// The lower Cholesky factor of the lower triangle of each matrix (NaNs where it is
    /// not positive definite).
    Cholesky,
    /// `op(a)·x = b` or `x·op(a) = b` for a triangular `a`.
    TriangularSolve(TriSolve),
    /// `(v, w)`: eigenvectors and ascending eigenvalues of symmetric matrices.
    Eigh(Eigh),
    /// `(lu, pivots, permutation)`: LU decomposition with partial pivoting of `m`×`n`
    /// matrices (square or not).
    Lu,
    /// `(q, r)`: Householder QR decomposition.
    Qr(Qr),
    /// `(u, s, vt)` (or `s`): singular value decomposition, `s` descending.
    Svd(Svd),
}

impl Prim {
    /// `dot_general` with the contracting and batch axes of `dims`.
    pub fn dot_general(dims: DotDims) -> Prim {
        Prim::Linalg(LinalgOp::DotGeneral(dims))
    }

    /// `lu`: the packed factors, the pivots and the row permutation.
    pub fn lu() -> Prim {
        Prim::Linalg(LinalgOp::Lu)
    }
}

impl LinalgOp {
    /// The `preferred` result dtype attribute of `dot_general` (`None` for the others).
    pub(crate) fn preferred_mut(&mut self) -> Option<&mut Option<DType>> {
        match self {
            LinalgOp::DotGeneral(dims) => Some(&mut dims.preferred),
            LinalgOp::Cholesky
            | LinalgOp::TriangularSolve(_)
            | LinalgOp::Eigh(_)
            | LinalgOp::Lu
            | LinalgOp::Qr(_)
            | LinalgOp::Svd(_) => None,
        }
    }

    /// The name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            LinalgOp::DotGeneral(_) => "dot_general",
            LinalgOp::Cholesky => "cholesky",
            LinalgOp::TriangularSolve(_) => "triangular_solve",
            LinalgOp::Eigh(_) => "eigh",
            LinalgOp::Lu => "lu",
            LinalgOp::Qr(_) => "qr",
            LinalgOp::Svd(_) => "svd",
        }
    }

    /// The op named `name`, with placeholder parameters that
    /// [`LinalgOp::visit_attrs`] then fills.
    pub(crate) fn blank(name: &str) -> Option<LinalgOp> {
        match name {
            "dot_general" => Some(LinalgOp::DotGeneral(DotDims {
                lhs_contract: vec![],
                rhs_contract: vec![],
                lhs_batch: vec![],
                rhs_batch: vec![],
                preferred: None,
            })),
            "cholesky" => Some(LinalgOp::Cholesky),
            "triangular_solve" => Some(LinalgOp::TriangularSolve(TriSolve::default())),
            "eigh" => Some(LinalgOp::Eigh(Eigh::default())),
            "lu" => Some(LinalgOp::Lu),
            "qr" => Some(LinalgOp::Qr(Qr::default())),
            "svd" => Some(LinalgOp::Svd(Svd::default())),
            _ => None,
        }
    }

    /// Hands every attribute of the op to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            LinalgOp::DotGeneral(d) => {
                v.usizes("lhs_contract", &mut d.lhs_contract, None)?;
                v.usizes("rhs_contract", &mut d.rhs_contract, None)?;
                v.usizes("lhs_batch", &mut d.lhs_batch, Some(vec![]))?;
                v.usizes("rhs_batch", &mut d.rhs_batch, Some(vec![]))?;
                v.opt_dtype("preferred", &mut d.preferred)
            }
            LinalgOp::Cholesky | LinalgOp::Lu => Ok(()),
            LinalgOp::TriangularSolve(p) => {
                v.bool_or("left_side", &mut p.left_side, false)?;
                v.bool_or("lower", &mut p.lower, false)?;
                v.bool_or("transpose_a", &mut p.transpose_a, false)?;
                v.bool_or("unit_diagonal", &mut p.unit_diagonal, false)
            }
            LinalgOp::Eigh(p) => {
                v.bool_or("lower", &mut p.lower, true)?;
                v.bool_or("sort_eigenvalues", &mut p.sort_eigenvalues, true)
            }
            LinalgOp::Qr(p) => v.bool_or("full_matrices", &mut p.full_matrices, true),
            LinalgOp::Svd(p) => {
                v.bool_or("full_matrices", &mut p.full_matrices, true)?;
                v.bool_or("compute_uv", &mut p.compute_uv, true)
            }
        }
    }
}

/// Evaluates a linear-algebra op on its operands.
pub(crate) fn eval(op: &LinalgOp, a: &[&Array]) -> Result<Array, String> {
    match op {
        LinalgOp::DotGeneral(dims) => {
            let [l, r] = super::operands(a)?;
            eval_dot_general(dims, l, r)
        }
        LinalgOp::Cholesky => {
            let [x] = super::operands(a)?;
            triangular::eval_cholesky(x)
        }
        LinalgOp::TriangularSolve(p) => {
            let [m, b] = super::operands(a)?;
            triangular::eval_triangular_solve(p, m, b)
        }
        LinalgOp::Svd(p) if !p.compute_uv => {
            let [x] = super::operands(a)?;
            let mut out = svd::eval_svd(p, x)?;
            out.pop().ok_or_else(|| "svd: no result".to_string())
        }
        LinalgOp::Eigh(_) | LinalgOp::Lu | LinalgOp::Qr(_) | LinalgOp::Svd(_) => {
            Err(format!("{} has several results", op.name()))
        }
    }
}

/// Evaluates a linear-algebra op with several results (`eigh`, `lu`, `qr`, `svd`).
pub(crate) fn eval_all(op: &LinalgOp, a: &[&Array]) -> Result<Vec<Array>, String> {
    match op {
        LinalgOp::Eigh(p) => {
            let [x] = super::operands(a)?;
            eigh::eval_eigh(p, x)
        }
        LinalgOp::Lu => {
            let [x] = super::operands(a)?;
            lu::eval_lu(x)
        }
        LinalgOp::Qr(p) => {
            let [x] = super::operands(a)?;
            qr::eval_qr(p, x)
        }
        LinalgOp::Svd(p) => {
            let [x] = super::operands(a)?;
            svd::eval_svd(p, x)
        }
        LinalgOp::DotGeneral(_) | LinalgOp::Cholesky | LinalgOp::TriangularSolve(_) => Ok(vec![eval(op, a)?]),
    }
}

/// The number of terms summed per output element (the product of the contracted axes
/// of the left operand); for the factorisations and solves, the `K` that makes the cost
/// model's `2·out·K` their flop count, from the matrix size `n` (the last axis of the
/// first operand): `cholesky` n³/3 a matrix (K = n/6), `triangular_solve` m² per column
/// of b (K = m/2), `eigh` about 9n³ (K = 4.5n). `lu`, `qr` and `svd` take the shorter
/// side `k` and the longer `l` of an `m`×`n` matrix, against the elements of their first
/// result: `lu` `lk² − k³/3` as LAPACK's `getrf` (2n³/3 square; K = k·(3l − k)/(6l),
/// n/3 square), `qr` about `4lk²` (Householder's `2lk² − 2k³/3` for
/// `r` and as much again to form `q`; K = 2k²·l/(q's elements per matrix)), `svd` about
/// `4lk² + 8k³` with its vectors (bidiagonalisation, its SVD and the back
/// transformations; against `u`'s elements likewise) and `4lk²` for the values alone
/// (K = 2lk, against the `k` values).
pub(crate) fn contracted_size(op: &LinalgOp, lhs: &Type) -> u64 {
    let n = lhs.shape.last().copied().unwrap_or(0) as u64;
    let rank = lhs.rank();
    let m = if rank >= 2 { lhs.shape[rank - 2] as u64 } else { 0 };
    let (short, long) = (m.min(n), m.max(n));
    let per_matrix = |rows: u64, cols: u64| rows.saturating_mul(cols).max(1);
    let k = match op {
        LinalgOp::DotGeneral(d) => {
            return d.lhs_contract.iter().map(|&a| lhs.shape.get(a).copied().unwrap_or(0) as u64).product();
        }
        LinalgOp::Cholesky => n / 6,
        LinalgOp::TriangularSolve(_) => n / 2,
        LinalgOp::Eigh(_) => n * 9 / 2,
        LinalgOp::Lu => {
            short.saturating_mul(long.saturating_mul(3).saturating_sub(short)) / long.saturating_mul(6).max(1)
        }
        LinalgOp::Qr(p) => {
            let cols = if p.full_matrices { m } else { short };
            2u64.saturating_mul(short).saturating_mul(short).saturating_mul(long) / per_matrix(m, cols)
        }
        LinalgOp::Svd(p) if p.compute_uv => {
            let cols = if p.full_matrices { m } else { short };
            let work = 2u64
                .saturating_mul(long)
                .saturating_mul(short)
                .saturating_add(4u64.saturating_mul(short).saturating_mul(short));
            work.saturating_mul(short) / per_matrix(m, cols)
        }
        LinalgOp::Svd(_) => 2u64.saturating_mul(long).saturating_mul(short),
    };
    k.max(1)
}

/// The property-table row of a linear-algebra op.
pub(crate) fn props(op: &LinalgOp) -> super::props::Props {
    use super::props::{Class, Flops, Props};
    match op {
        LinalgOp::DotGeneral(_) => Props {
            flops: Flops::Contraction,
            inexact: true,
            reassociates_over: &[0, 1],
            domain: UnaryDomain::Numeric,
            ..Props::movement(Class::Launch)
        },
        // Backends factor and substitute in their own order: not the reference's bits.
        LinalgOp::Cholesky
        | LinalgOp::TriangularSolve(_)
        | LinalgOp::Eigh(_)
        | LinalgOp::Lu
        | LinalgOp::Qr(_)
        | LinalgOp::Svd(_) => Props {
            flops: Flops::Contraction,
            inexact: true,
            domain: UnaryDomain::Float,
            factorises: true,
            ..Props::movement(Class::Launch)
        },
    }
}

#[cfg(test)]
#[path = "tests/linalg.rs"]
mod tests;
