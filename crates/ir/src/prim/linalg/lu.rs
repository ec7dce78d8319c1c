//! `lu(a) -> (lu, pivots, permutation)`: the LU decomposition with partial pivoting of
//! `[..., m, n]` matrices, square or not, as `jax.lax.linalg.lu` (LAPACK's `getrf`;
//! leading axes are batch axes; f32/f64 only).
//!
//! With `k = min(m, n)`: `lu` (`[..., m, n]`) holds the unit lower factor `L` (`m`×`k`)
//! below the diagonal and `U` (`k`×`n`) on and above it; `pivots` (i32, `[..., k]`):
//! `pivots[j]` is the row swapped with row `j` at step `j` (the largest magnitude in the
//! column, the first on ties; no swap past a zero column, whose matrix is rank-deficient
//! and whose `U` then has a zero on the diagonal); `permutation` (i32, `[..., m]`) is the
//! resulting order of the rows: `a[permutation] = L·U`. A wide matrix (`m < n`) is
//! eliminated over its first `m` columns, the others carried along (LAPACK's
//! `U₂ = L⁻¹·a₂[permutation]`); a tall one (`m > n`) has `n` steps and its last `m − n`
//! rows of `L` below the square top. The reference evaluation works in f64 and, as
//! LAPACK, scales each column by its pivot's reciprocal.
//!
//! The jvp is JAX's rule (De Hoog, Anderssen and Lukas): `L` and `U` are completed to
//! square matrices, `L̂` (`m`×`m`: `L` then the identity's last `m − k` columns) and `Û`
//! (`n`×`n`: `U` over the identity's last `n − k` rows), so that `a[permutation] =
//! L̂·[U; 0]` or `= [L 0]·Û`; with `x = da[permutation]`, `y = L̂⁻¹·x·Û⁻¹` (two triangular
//! solves), `dlu = L̂·tril(y, −1) + triu(y)·Û`, which for a tall (wide) matrix is the
//! tangent of `L` below the diagonal and of `U` in its `k` rows (the extra columns of
//! `L̂` and rows of `Û` are constant). The integer results have no tangent.

use super::qr::{block, concat, matrix, with_matrix};
use super::{TriSolve, triangular};
use crate::prim::elements::{array, bad_dtype};
use crate::prim::expect_arity;
use crate::{Emitter, Prim, Type, Value};
use ferrax_array::{DType, Data, Shape};

/// The type rule of `lu`: `(lu, pivots, permutation)`, the operand's type, then i32 of
/// the batch shape plus `min(m, n)` and plus `m`.
pub(crate) fn infer_lu(inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("lu", inputs, 1)?;
    let a = &inputs[0];
    let (m, n) = matrix("lu", a)?;
    if i32::try_from(m).is_err() {
        return Err(format!("lu: {m} rows do not fit the i32 pivots and permutation (at most {}), in {a}", i32::MAX));
    }
    let batch: Shape = a.shape[..a.rank() - 2].iter().copied().collect();
    let ints = |last: usize| {
        let mut shape = batch.clone();
        shape.push(last);
        Type { dtype: DType::I32, shape }
    };
    Ok(vec![a.clone(), ints(m.min(n)), ints(m)])
}

/// Evaluates `lu` (module docs).
pub(crate) fn eval_lu(a: &ferrax_array::Array) -> Result<Vec<ferrax_array::Array>, String> {
    let shape = a.shape().to_vec();
    let r = shape.len();
    if r < 2 {
        return Err(format!("lu: expects matrices in the last two axes (rank ≥ 2), got shape {shape:?}"));
    }
    let (m, n) = (shape[r - 2], shape[r - 1]);
    let batch: usize = shape[..r - 2].iter().product();
    let mut x: Vec<f64> = match a.data() {
        Data::F32(v) => v.iter().map(|&e| f64::from(e)).collect(),
        Data::F64(v) => v.clone(),
        Data::Bool(_) | Data::I32(_) | Data::BF16(_) | Data::F16(_) => return Err(bad_dtype("lu", a.dtype())),
    };
    let mut pivots = Vec::new();
    let mut perms = Vec::new();
    for b in 0..batch {
        let (p, q) = factor(&mut x[b * m * n..(b + 1) * m * n], m, n);
        pivots.extend(p);
        perms.extend(q);
    }
    let mut pivot_shape = shape[..r - 1].to_vec();
    pivot_shape[r - 2] = m.min(n);
    let lu = match a.dtype() {
        DType::F32 => Data::F32(x.into_iter().map(|e| e as f32).collect()),
        _ => Data::F64(x),
    };
    Ok(vec![array(&shape, lu)?, array(&pivot_shape, Data::I32(pivots))?, array(&shape[..r - 1], Data::I32(perms))?])
}

/// Factors the row-major `m`×`n` matrix `a` in place (module docs: the packed factors);
/// returns the `min(m, n)` pivots and the `m`-row permutation. The interpreter's rule,
/// and the JIT's where its faster routine meets a zero pivot.
pub fn factor(a: &mut [f64], m: usize, n: usize) -> (Vec<i32>, Vec<i32>) {
    let k = m.min(n);
    // Row indices fit in i32: the type rule refuses more rows.
    let mut perm: Vec<i32> = (0..m).map(|i| i as i32).collect();
    let mut pivots = Vec::with_capacity(k);
    for j in 0..k {
        let p = (j..m).fold(j, |best, i| if a[i * n + j].abs() > a[best * n + j].abs() { i } else { best });
        pivots.push(p as i32);
        if p != j {
            for c in 0..n {
                a.swap(j * n + c, p * n + c);
            }
            perm.swap(j, p);
        }
        // As LAPACK (and faer): multiplied by the pivot's reciprocal, unless that
        // would overflow; a zero pivot leaves its (zero) column alone.
        let pivot = a[j * n + j];
        if pivot.abs() >= f64::MIN_POSITIVE {
            let inverse = 1.0 / pivot;
            for i in j + 1..m {
                a[i * n + j] *= inverse;
            }
        } else if pivot != 0.0 {
            for i in j + 1..m {
                a[i * n + j] /= pivot;
            }
        }
        for i in j + 1..m {
            let l = a[i * n + j];
            for c in j + 1..n {
                a[i * n + c] -= l * a[j * n + c];
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
    let ty = em.ty(lu).clone();
    let r = ty.rank();
    let (m, n) = (ty.shape[r - 2], ty.shape[r - 1]);
    let x = em.op(Prim::gather(r - 2, r - 2), &[t, perm])?;
    let (l, u) = square_factors(em, lu, &ty, (m, n))?;
    let unit_lower = TriSolve { left_side: true, lower: true, transpose_a: false, unit_diagonal: true };
    let la = triangular::solve(em, unit_lower, l, x)?;
    let upper_right = TriSolve { left_side: false, lower: false, transpose_a: false, unit_diagonal: false };
    let y = triangular::solve(em, upper_right, u, la)?;
    let grid = triangular::Grid::new(em, &ty.shape)?;
    let below = grid.triangle(em, true, false)?;
    let on_or_above = grid.triangle(em, false, true)?;
    let y_lower = triangular::keep(em, below, y)?;
    let y_upper = triangular::keep(em, on_or_above, y)?;
    let dl = triangular::matmul(em, l, y_lower)?;
    let du = triangular::matmul(em, y_upper, u)?;
    Ok(vec![Some(em.add(dl, du)?), None, None])
}

/// `L̂` (`m`×`m`, unit lower) and `Û` (`n`×`n`, upper) from the packed `lu` of type
/// `ty` (module docs): the factors, completed by the identity where `m ≠ n`.
fn square_factors(em: &mut Emitter, lu: Value, ty: &Type, (m, n): (usize, usize)) -> Result<(Value, Value), String> {
    let k = m.min(n);
    let r = ty.rank();
    // L: the strict lower part of the first k columns, then zero columns, plus I.
    let left = block(em, lu, 0..m, 0..k)?;
    let left_ty = with_matrix(ty, m, k);
    let below = triangular::Grid::new(em, &left_ty.shape)?.triangle(em, true, false)?;
    let mut l = triangular::keep(em, below, left)?;
    if m > k {
        let zeros = em.zeros(&with_matrix(ty, m, m - k))?;
        l = concat(em, l, zeros, r - 1)?;
    }
    let eye_m = eye(em, &with_matrix(ty, m, m))?;
    let l = em.add(l, eye_m)?;
    // U: the upper part of the first k rows, over [0 I] for the last n − k rows.
    let top = block(em, lu, 0..k, 0..n)?;
    let top_ty = with_matrix(ty, k, n);
    let on_or_above = triangular::Grid::new(em, &top_ty.shape)?.triangle(em, false, true)?;
    let mut u = triangular::keep(em, on_or_above, top)?;
    if n > k {
        let zeros = em.zeros(&with_matrix(ty, n - k, k))?;
        let eye_rest = eye(em, &with_matrix(ty, n - k, n - k))?;
        let bottom = concat(em, zeros, eye_rest, r - 1)?;
        u = concat(em, u, bottom, r - 2)?;
    }
    Ok((l, u))
}

/// The identity matrices of the square type `ty`.
fn eye(em: &mut Emitter, ty: &Type) -> Result<Value, String> {
    let diagonal = triangular::Grid::new(em, &ty.shape)?.diagonal(em)?;
    let one = em.full(ty, 1.0)?;
    triangular::keep(em, diagonal, one)
}
