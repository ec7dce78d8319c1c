//! One constructor per data primitive, as JAX's `lax` module is: the only place the
//! frontend builds the [`Prim`] of an elementwise, shape or reduction equation.
//!
//! The user-facing operations (`Tensor` methods, `random`, `nn`, custom rules) add
//! what NumPy users expect on top (promotion, broadcasting, keepdims, skipping a no-op)
//! and end here, so a change to a primitive's attributes is one edit in the frontend.
//! Each function emits exactly one equation; its result type is the primitive's own
//! type rule on well-typed operands and only serves as the fallback of a poisoned
//! result (the tracer's type check is what decides, and names the caller's line).

use crate::Tensor;
use crate::tracer::emit1;
use ferrax_ir::prim::{BinaryOp, CompareOp, Eigh, LinalgOp, Qr, ReduceOp, ShapeOp, Svd, TernaryOp, TriSolve, UnaryOp};
use ferrax_ir::{Array, DType, Prim, Shape, Type};
use std::panic::Location;

type Loc = &'static Location<'static>;

/// `constant`: `value` (rank 0, splat, or of `shape` itself) as a tensor of `shape`.
pub(crate) fn constant(value: Array, shape: &[usize], location: Loc) -> Tensor {
    let ty = Type::new(value.dtype(), shape);
    emit1(Prim::constant(value, shape), &[], location, ty)
}

/// `iota`: counts 0, 1, ... along `dim` of a `dtype` tensor of `shape`.
pub(crate) fn iota(dtype: DType, shape: &[usize], dim: usize, location: Loc) -> Tensor {
    emit1(Prim::iota(dtype, shape, dim), &[], location, Type::new(dtype, shape))
}

/// `convert` to `dtype`, emitted even when `x` already has it.
pub(crate) fn convert(x: &Tensor, dtype: DType, location: Loc) -> Tensor {
    emit1(Prim::Unary(UnaryOp::Convert { dtype }), &[x], location, x.ty().with_dtype(dtype))
}

/// A unary elementwise op other than `convert` (`is_finite` gives bool).
pub(crate) fn unary(op: UnaryOp, x: &Tensor, location: Loc) -> Tensor {
    let ty = if op == UnaryOp::IsFinite { x.ty().with_dtype(DType::Bool) } else { x.ty().clone() };
    emit1(Prim::Unary(op), &[x], location, ty)
}

/// A binary elementwise op on operands of one type.
pub(crate) fn binary(op: BinaryOp, a: &Tensor, b: &Tensor, location: Loc) -> Tensor {
    emit1(Prim::Binary(op), &[a, b], location, a.ty().clone())
}

/// `a + b` on operands of one type.
pub(crate) fn add(a: &Tensor, b: &Tensor, location: Loc) -> Tensor {
    binary(BinaryOp::Add, a, b, location)
}

/// `a - b` on operands of one type.
pub(crate) fn sub(a: &Tensor, b: &Tensor, location: Loc) -> Tensor {
    binary(BinaryOp::Sub, a, b, location)
}

/// `a * b` on operands of one type.
pub(crate) fn mul(a: &Tensor, b: &Tensor, location: Loc) -> Tensor {
    binary(BinaryOp::Mul, a, b, location)
}

/// A comparison of operands of one type: a bool tensor.
pub(crate) fn compare(op: CompareOp, a: &Tensor, b: &Tensor, location: Loc) -> Tensor {
    emit1(Prim::Compare(op), &[a, b], location, a.ty().with_dtype(DType::Bool))
}

/// `select(cond, on_true, on_false)` on operands of one shape.
pub(crate) fn select(cond: &Tensor, on_true: &Tensor, on_false: &Tensor, location: Loc) -> Tensor {
    emit1(Prim::Ternary(TernaryOp::Select), &[cond, on_true, on_false], location, on_true.ty().clone())
}

/// `clamp(lo, x, hi)` on operands of one type.
pub(crate) fn clamp(lo: &Tensor, x: &Tensor, hi: &Tensor, location: Loc) -> Tensor {
    emit1(Prim::Ternary(TernaryOp::Clamp), &[lo, x, hi], location, x.ty().clone())
}

/// `broadcast_in_dim`: axis `i` of `x` becomes axis `dims[i]` of `shape`.
pub(crate) fn broadcast_in_dim(x: &Tensor, shape: &[usize], dims: Vec<usize>, location: Loc) -> Tensor {
    let ty = Type::new(x.dtype(), shape);
    emit1(Prim::Shape(ShapeOp::BroadcastInDim { shape: shape.into(), dims }), &[x], location, ty)
}

/// `reshape` to `shape` (same element count), emitted even when the shape is unchanged.
pub(crate) fn reshape(x: &Tensor, shape: &[usize], location: Loc) -> Tensor {
    emit1(Prim::reshape(shape), &[x], location, Type::new(x.dtype(), shape))
}

/// `transpose`: axis `i` of the result is axis `perm[i]` of `x`.
pub(crate) fn transpose(x: &Tensor, perm: Vec<usize>, location: Loc) -> Tensor {
    let shape: Shape = perm.iter().map(|&p| x.shape().get(p).copied().unwrap_or(0)).collect();
    emit1(Prim::transpose_axes(perm), &[x], location, Type { dtype: x.dtype(), shape })
}

/// `slice` of `[start, limit)` with `strides` along every axis.
pub(crate) fn slice(x: &Tensor, start: Vec<usize>, limit: Vec<usize>, strides: Vec<usize>, location: Loc) -> Tensor {
    let shape: Shape =
        start.iter().zip(&limit).zip(&strides).map(|((&s, &l), &k)| l.saturating_sub(s).div_ceil(k.max(1))).collect();
    emit1(Prim::Shape(ShapeOp::Slice { start, limit, strides }), &[x], location, Type { dtype: x.dtype(), shape })
}

/// `reduce_<op>` over `axes`, which leave the result.
pub(crate) fn reduce(op: ReduceOp, x: &Tensor, axes: &[usize], location: Loc) -> Tensor {
    let kept: Shape = (0..x.rank()).filter(|a| !axes.contains(a)).map(|a| x.shape()[a]).collect();
    let ty = Type { dtype: x.dtype(), shape: kept };
    emit1(Prim::reduce(op, axes), &[x], location, ty)
}

/// `cholesky`: the lower factor of each matrix's lower triangle.
pub(crate) fn cholesky(a: &Tensor, location: Loc) -> Tensor {
    emit1(Prim::Linalg(LinalgOp::Cholesky), &[a], location, a.ty().clone())
}

/// `triangular_solve[p](a, b)`: the solution has `b`'s type.
pub(crate) fn triangular_solve(a: &Tensor, b: &Tensor, p: TriSolve, location: Loc) -> Tensor {
    emit1(Prim::Linalg(LinalgOp::TriangularSolve(p)), &[a, b], location, b.ty().clone())
}

/// `eigh[p](a)`: `(v, w)`, eigenvectors (columns) and ascending eigenvalues.
pub(crate) fn eigh(a: &Tensor, p: Eigh, location: Loc) -> (Tensor, Tensor) {
    let w: Shape = a.shape()[..a.rank().saturating_sub(1)].iter().copied().collect();
    let fallback = [a.ty().clone(), Type { dtype: a.dtype(), shape: w }];
    let mut out = crate::tracer::emit(Prim::Linalg(LinalgOp::Eigh(p)), &[a], location, &fallback).into_iter();
    match (out.next(), out.next()) {
        (Some(v), Some(w)) => (v, w),
        _ => {
            let [v, w] = fallback;
            let message = "eigh: expected two results".to_string();
            (crate::tracer::fail(location, message.clone(), v), crate::tracer::fail(location, message, w))
        }
    }
}

/// `lu(a)`: `(lu, pivots, permutation)`, the packed factors and two i32 row orders.
pub(crate) fn lu(a: &Tensor, location: Loc) -> (Tensor, Tensor, Tensor) {
    let rows: Shape = a.shape()[..a.rank().saturating_sub(1)].iter().copied().collect();
    let mut steps = rows.clone();
    if let ([.., m, n], Some(last)) = (a.shape(), steps.last_mut()) {
        *last = (*m).min(*n);
    }
    let fallback = [a.ty().clone(), Type { dtype: DType::I32, shape: steps }, Type { dtype: DType::I32, shape: rows }];
    let mut out = crate::tracer::emit(Prim::Linalg(LinalgOp::Lu), &[a], location, &fallback).into_iter();
    match (out.next(), out.next(), out.next()) {
        (Some(lu), Some(pivots), Some(perm)) => (lu, pivots, perm),
        _ => {
            let message = "lu: expected three results".to_string();
            let [x, p, q] = fallback;
            let fail = |ty| crate::tracer::fail(location, message.clone(), ty);
            (fail(x), fail(p), fail(q))
        }
    }
}

/// `a`'s type with its last two axes `rows`×`cols` (`a`'s own type when it has fewer
/// than two axes: a fallback only).
fn matrix_type(a: &Tensor, rows: usize, cols: usize) -> Type {
    let r = a.rank();
    if r < 2 {
        return a.ty().clone();
    }
    let mut shape: Shape = a.shape()[..r - 2].iter().copied().collect();
    shape.extend([rows, cols]);
    Type { dtype: a.dtype(), shape }
}

/// The last two axes of `a` (zeros when it has fewer).
fn matrix_dims(a: &Tensor) -> (usize, usize) {
    let r = a.rank();
    if r < 2 { (0, 0) } else { (a.shape()[r - 2], a.shape()[r - 1]) }
}

/// `qr[p](a)`: `(q, r)`.
pub(crate) fn qr(a: &Tensor, p: Qr, location: Loc) -> (Tensor, Tensor) {
    let (m, n) = matrix_dims(a);
    let k = if p.full_matrices { m } else { m.min(n) };
    let fallback = [matrix_type(a, m, k), matrix_type(a, k, n)];
    let mut out = crate::tracer::emit(Prim::Linalg(LinalgOp::Qr(p)), &[a], location, &fallback).into_iter();
    match (out.next(), out.next()) {
        (Some(q), Some(r)) => (q, r),
        _ => {
            let [q, r] = fallback;
            let message = "qr: expected two results".to_string();
            (crate::tracer::fail(location, message.clone(), q), crate::tracer::fail(location, message, r))
        }
    }
}

/// `svd[p](a)`: `[u, s, vt]`, or `[s]` without `compute_uv`.
pub(crate) fn svd(a: &Tensor, p: Svd, location: Loc) -> Vec<Tensor> {
    let (m, n) = matrix_dims(a);
    let k = m.min(n);
    let mut s_shape: Shape = a.shape()[..a.rank().saturating_sub(2)].iter().copied().collect();
    s_shape.push(k);
    let s = Type { dtype: a.dtype(), shape: s_shape };
    let (uc, vr) = if p.full_matrices { (m, n) } else { (k, k) };
    let fallback = if p.compute_uv { vec![matrix_type(a, m, uc), s, matrix_type(a, vr, n)] } else { vec![s] };
    let out = crate::tracer::emit(Prim::Linalg(LinalgOp::Svd(p)), &[a], location, &fallback);
    if out.len() == fallback.len() {
        return out;
    }
    let message = "svd: unexpected number of results".to_string();
    fallback.into_iter().map(|ty| crate::tracer::fail(location, message.clone(), ty)).collect()
}

/// `sort[dimension, is_stable=true, num_keys]` of `operands` (same shape): every
/// operand permuted along `dimension` by the first `num_keys` (one result each).
pub(crate) fn sort(operands: &[&Tensor], dimension: usize, num_keys: usize, location: Loc) -> Vec<Tensor> {
    let prim = Prim::Sort(ferrax_ir::prim::SortOp::Sort { dimension, is_stable: true, num_keys });
    let fallback: Vec<Type> = operands.iter().map(|t| t.ty().clone()).collect();
    crate::tracer::emit(prim, operands, location, &fallback)
}

/// `top_k[k](x)`: the `k` largest along the last axis and their i32 indices.
pub(crate) fn top_k(x: &Tensor, k: usize, location: Loc) -> (Tensor, Tensor) {
    let mut shape = x.shape().to_vec();
    if let Some(last) = shape.last_mut() {
        *last = k;
    }
    let fallback = [Type::new(x.dtype(), &shape), Type::new(DType::I32, &shape)];
    let mut out = crate::tracer::emit(Prim::Sort(ferrax_ir::prim::SortOp::TopK { k }), &[x], location, &fallback);
    let indices = out.pop();
    let values = out.pop();
    match (values, indices) {
        (Some(v), Some(i)) => (v, i),
        _ => {
            let [v, i] = fallback;
            let message = "top_k: expected two results".to_string();
            (crate::tracer::fail(location, message.clone(), v), crate::tracer::fail(location, message, i))
        }
    }
}

/// `conv_general_dilated` of `lhs` (input) and `rhs` (kernel) with resolved attributes.
pub(crate) fn conv_general_dilated(lhs: &Tensor, rhs: &Tensor, conv: ferrax_ir::prim::Conv, location: Loc) -> Tensor {
    let fallback = ferrax_ir::prim::conv::infer_conv(&conv, &[lhs.ty().clone(), rhs.ty().clone()])
        .ok()
        .and_then(|mut t| t.pop())
        .unwrap_or_else(|| lhs.ty().clone());
    emit1(Prim::Conv(ferrax_ir::prim::ConvOp::ConvGeneralDilated(Box::new(conv))), &[lhs, rhs], location, fallback)
}

/// `reduce_window[op, window](x, init)`: each window of `x` combined by `op` from `init`.
pub(crate) fn reduce_window(
    x: &Tensor,
    init: &Tensor,
    op: ferrax_ir::prim::WindowReduce,
    window: ferrax_ir::prim::Window,
    location: Loc,
) -> Tensor {
    let shape = window.out_shape("reduce_window", x.shape()).unwrap_or_else(|_| x.shape().into());
    let ty = Type { dtype: x.dtype(), shape };
    emit1(Prim::Window(ferrax_ir::prim::WindowOp::ReduceWindow { op, window }), &[x, init], location, ty)
}
