//! `lu(a) -> (lu, pivots, permutation)`: the LU decomposition with partial pivoting of
//! square matrices, as `jax.lax.linalg.lu` (LAPACK's `getrf`; leading axes are batch
//! axes; f32/f64 only; rectangular matrices are not taken yet).
//!
//! `lu` holds the unit lower factor `L` below the diagonal and `U` on and above it;
//! `pivots[k]` (i32) is the row swapped with row `k` at step `k` (the largest magnitude
//! in the column, the first on ties; no swap past a zero column, whose matrix is singular
//! and whose `U` then has a zero on the diagonal); `permutation` (i32) is the resulting
//! order of the rows: `a[permutation] = L·U`. The reference evaluation works in f64.
//!
//! The jvp (JAX's rule): with `x = da[permutation]`, `y = L⁻¹·x·U⁻¹` (two triangular
//! solves), `dlu = L·tril(y, −1) + triu(y)·U`; the integer results have no tangent.

use super::{LinalgOp, TriSolve, triangular};
use crate::prim::elements::{array, bad_dtype};
use crate::prim::{CompareOp, IndexOp, expect_arity};
use crate::{Emitter, Prim, Type, Value};
use ferrax_array::{DType, Data, Shape};

/// The type rule of `lu`: `(lu, pivots, permutation)`, the last two i32 of the batch
/// shape plus the matrix's size.
pub(crate) fn infer_lu(inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("lu", inputs, 1)?;
    triangular::square("lu", &inputs[0])?;
    let a = &inputs[0];
    let rows: Shape = a.shape[..a.rank() - 1].iter().copied().collect();
    Ok(vec![a.clone(), Type { dtype: DType::I32, shape: rows.clone() }, Type { dtype: DType::I32, shape: rows }])
}

/// Evaluates `lu` (module docs).
pub(crate) fn eval_lu(a: &ferrax_array::Array) -> Result<Vec<ferrax_array::Array>, String> {
    let shape = a.shape().to_vec();
    let n = *shape.last().ok_or("lu: expects a matrix")?;
    let mut x: Vec<f64> = match a.data() {
        Data::F32(v) => v.iter().map(|&e| f64::from(e)).collect(),
        Data::F64(v) => v.clone(),
        Data::Bool(_) | Data::I32(_) | Data::BF16(_) | Data::F16(_) => return Err(bad_dtype("lu", a.dtype())),
    };
    let mut pivots = Vec::new();
    let mut perms = Vec::new();
    if n > 0 {
        for m in x.chunks_exact_mut(n * n) {
            let (p, q) = factor(m, n);
            pivots.extend(p);
            perms.extend(q);
        }
    }
    let rows = &shape[..shape.len() - 1];
    let lu = match a.dtype() {
        DType::F32 => Data::F32(x.into_iter().map(|e| e as f32).collect()),
        _ => Data::F64(x),
    };
    Ok(vec![array(&shape, lu)?, array(rows, Data::I32(pivots))?, array(rows, Data::I32(perms))?])
}

/// Factors the `n`×`n` matrix `m` in place; returns the pivots and the permutation.
fn factor(m: &mut [f64], n: usize) -> (Vec<i32>, Vec<i32>) {
    let mut perm: Vec<i32> = (0..n as i32).collect();
    let mut pivots = Vec::with_capacity(n);
    for k in 0..n {
        let p = (k..n).fold(k, |best, i| if m[i * n + k].abs() > m[best * n + k].abs() { i } else { best });
        pivots.push(p as i32);
        if p != k {
            for j in 0..n {
                m.swap(k * n + j, p * n + j);
            }
            perm.swap(k, p);
        }
        let pivot = m[k * n + k];
        if pivot != 0.0 {
            for i in k + 1..n {
                m[i * n + k] /= pivot;
            }
        }
        for i in k + 1..n {
            let l = m[i * n + k];
            for j in k + 1..n {
                m[i * n + j] -= l * m[k * n + j];
            }
        }
    }
    (pivots, perm)
}

/// The jvp rule of `lu` (module docs).
pub(crate) fn jvp_lu(
    em: &mut Emitter,
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[lu, _, perm], &[t]) = (outputs, tangents) else {
        return Err("lu: expects 1 operand, 1 tangent and 3 results".into());
    };
    let Some(t) = t else { return Ok(vec![None, None, None]) };
    let shape = em.ty(lu).shape.to_vec();
    let r = shape.len();
    let x = em.op(Prim::Index(IndexOp::Gather { axis: r - 2, batch_dims: r - 2 }), &[t, perm])?;
    let unit_lower = TriSolve { left_side: true, lower: true, transpose_a: false, unit_diagonal: true };
    let la = em.op(Prim::Linalg(LinalgOp::TriangularSolve(unit_lower)), &[lu, x])?;
    let upper_right = TriSolve { left_side: false, lower: false, transpose_a: false, unit_diagonal: false };
    let y = em.op(Prim::Linalg(LinalgOp::TriangularSolve(upper_right)), &[lu, la])?;
    let grid = triangular::Grid::new(em, &shape)?;
    let below = grid.mask(em, CompareOp::Gt)?;
    let on_or_above = grid.mask(em, CompareOp::Le)?;
    let diagonal = grid.mask(em, CompareOp::Eq)?;
    // L (unit diagonal) and U from the packed result.
    let strict = triangular::keep(em, below, lu)?;
    let one = em.full_like(lu, 1.0)?;
    let zero = em.full_like(lu, 0.0)?;
    let eye = em.select(diagonal, one, zero)?;
    let l = em.add(strict, eye)?;
    let u = triangular::keep(em, on_or_above, lu)?;
    let y_lower = triangular::keep(em, below, y)?;
    let y_upper = triangular::keep(em, on_or_above, y)?;
    let dl = triangular::matmul(em, l, y_lower)?;
    let du = triangular::matmul(em, y_upper, u)?;
    Ok(vec![Some(em.add(dl, du)?), None, None])
}
