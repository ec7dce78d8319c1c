//! `qr[full_matrices](a) -> (q, r)`: the QR decomposition of `[..., m, n]` matrices, as
//! `jax.lax.linalg.qr` (leading axes are batch axes; f32/f64 only).
//!
//! With `k = min(m, n)`: `full_matrices=true` gives `q` of `[..., m, m]` and `r` of
//! `[..., m, n]`; `false` gives `q` of `[..., m, k]` and `r` of `[..., k, n]`. `q` has
//! orthonormal columns, `r` is upper triangular (zero below the diagonal) and
//! `a = q·r`. The factorisation is Householder's, with LAPACK's (`geqrf`) signs: the
//! reflector of column `j` maps it to `β·e_j` with `β = −sign(a_jj)·‖a_j:m,j‖` (`+` for a
//! zero head), and it is the identity (`r_jj` keeps its sign) when the column is already
//! zero below the diagonal. NumPy and JAX return the same factors (checked on the
//! corpus's matrices, `ir/eval/linalg_qr.fx`), so `r`'s diagonal may be negative. The
//! extra columns of a full `q` are the reflectors applied to the identity's, as
//! LAPACK's `orgqr` forms them. The reference evaluation works in f64.
//!
//! The jvp is JAX's rule: for `m ≥ n` with `q` of `[m, n]` (reduced, or square), with
//! `X = da·r⁻¹` (a triangular solve) and `Ω = tril(qᵀ·X, −1) − tril(qᵀ·X, −1)ᵀ`,
//! `dq = q·(Ω − qᵀ·X) + X` and `dr = (qᵀ·X − Ω)·r`. A wide matrix (`m < n`, where both
//! modes give the same factors) splits `a = [a₁ a₂]` with `a₁` square: `(dq, dr₁)` by the
//! rule above on `a₁ = q·r₁`, and `dr₂ = dqᵀ·a₂ + qᵀ·da₂`. The full `q` of a tall matrix
//! (`m > n`, `full_matrices=true`) extends `dq` to the extra columns as JAX does (Roberts
//! and Roberts 2024, eqs. 32–33: one LU solve with `q₁₁ − I`, `q₁₁` the top `n`×`n`
//! block of `q`), and `dr` is zero below the first `n` rows.

use super::{TriSolve, triangular};
use crate::prim::elements::{array, bad_dtype};
use crate::prim::expect_arity;
use crate::{Emitter, Prim, Type, Value};
use ferrax_array::{Array, DType, Data, Shape};

/// The parameters of a `qr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Qr {
    /// `q` square (`[m, m]`) and `r` of `a`'s shape; else `q` of `[m, k]` and `r` of
    /// `[k, n]`, `k = min(m, n)`.
    pub full_matrices: bool,
}

impl Default for Qr {
    fn default() -> Qr {
        Qr { full_matrices: true }
    }
}

/// The matrix operand `a` of `op`: f32/f64, rank ≥ 2; its `(m, n)`.
pub(super) fn matrix(op: &str, a: &Type) -> Result<(usize, usize), String> {
    if !matches!(a.dtype, DType::F32 | DType::F64) {
        return Err(format!("{op}: expects f32 or f64 matrices (no 16-bit floats, as in JAX), got {a}"));
    }
    let r = a.rank();
    if r < 2 {
        return Err(format!("{op}: expects matrices in the last two axes (rank ≥ 2), got {a}"));
    }
    Ok((a.shape[r - 2], a.shape[r - 1]))
}

/// `a`'s batch axes followed by `rows` and `cols`.
pub(super) fn with_matrix(a: &Type, rows: usize, cols: usize) -> Type {
    let mut shape: Shape = a.shape[..a.rank() - 2].iter().copied().collect();
    shape.push(rows);
    shape.push(cols);
    Type { dtype: a.dtype, shape }
}

/// The type rule of `qr` (module docs).
pub(crate) fn infer_qr(p: &Qr, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("qr", inputs, 1)?;
    let a = &inputs[0];
    let (m, n) = matrix("qr", a)?;
    let k = if p.full_matrices { m } else { m.min(n) };
    Ok(vec![with_matrix(a, m, k), with_matrix(a, k, n)])
}

/// The operand's elements in f64.
pub(super) fn wide(op: &str, x: &Array) -> Result<Vec<f64>, String> {
    match x.data() {
        Data::F32(v) => Ok(v.iter().map(|&e| f64::from(e)).collect()),
        Data::F64(v) => Ok(v.clone()),
        Data::Bool(_) | Data::I32(_) | Data::BF16(_) | Data::F16(_) => Err(bad_dtype(op, x.dtype())),
    }
}

/// `values` as an array of `dtype` (f32 rounded once) and `shape`.
pub(super) fn narrow(dtype: DType, shape: &[usize], values: Vec<f64>) -> Result<Array, String> {
    let data = match dtype {
        DType::F32 => Data::F32(values.into_iter().map(|v| v as f32).collect()),
        _ => Data::F64(values),
    };
    array(shape, data)
}

/// Evaluates `qr` (module docs): `[q, r]`.
pub(crate) fn eval_qr(p: &Qr, a: &Array) -> Result<Vec<Array>, String> {
    let ty = Type::new(a.dtype(), a.shape());
    let [q_ty, r_ty] = <[Type; 2]>::try_from(infer_qr(p, std::slice::from_ref(&ty))?)
        .map_err(|_| "qr: expected two result types".to_string())?;
    let (m, n) = matrix("qr", &ty)?;
    let x = wide("qr", a)?;
    let (qc, rr) = (q_ty.shape[q_ty.rank() - 1], r_ty.shape[r_ty.rank() - 2]);
    let batch: usize = a.shape()[..ty.rank() - 2].iter().product();
    let (mut qs, mut rs) = (Vec::with_capacity(batch * m * qc), Vec::with_capacity(batch * rr * n));
    for b in 0..batch {
        let mut work = x[b * m * n..(b + 1) * m * n].to_vec();
        let reflectors = householder(&mut work, m, n);
        qs.extend(form_q(&reflectors, m, qc));
        rs.extend_from_slice(&work[..rr * n]);
    }
    Ok(vec![narrow(a.dtype(), &q_ty.shape, qs)?, narrow(a.dtype(), &r_ty.shape, rs)?])
}

/// One Householder reflector `I − τ·v·vᵀ` acting on rows `j..` (`v[0] = 1`); `τ = 0`
/// (and no `v`) is the identity.
pub(super) struct Reflector {
    tau: f64,
    v: Vec<f64>,
}

/// Householder QR of the row-major `m`×`n` matrix `a` in place, with LAPACK's signs
/// (module docs): `a` becomes `r` (zero below the diagonal); returns the reflectors.
pub(super) fn householder(a: &mut [f64], m: usize, n: usize) -> Vec<Reflector> {
    let k = m.min(n);
    let mut out = Vec::with_capacity(k);
    for j in 0..k {
        let alpha = a[j * n + j];
        let tail = (j + 1..m).fold(0.0f64, |acc, i| acc.hypot(a[i * n + j]));
        if tail == 0.0 {
            out.push(Reflector { tau: 0.0, v: Vec::new() });
            continue;
        }
        let norm = alpha.hypot(tail);
        let beta = if alpha < 0.0 { norm } else { -norm };
        let tau = (beta - alpha) / beta;
        let scale = 1.0 / (alpha - beta);
        let mut v = vec![1.0; m - j];
        for i in j + 1..m {
            v[i - j] = a[i * n + j] * scale;
        }
        for c in j + 1..n {
            let dot: f64 = (j..m).map(|i| v[i - j] * a[i * n + c]).sum();
            let f = tau * dot;
            (j..m).for_each(|i| a[i * n + c] -= f * v[i - j]);
        }
        a[j * n + j] = beta;
        (j + 1..m).for_each(|i| a[i * n + j] = 0.0);
        out.push(Reflector { tau, v });
    }
    out
}

/// The first `cols` columns of `H₀·H₁·…` (row-major `m`×`cols`): the reflectors applied
/// to the identity's columns, last reflector first.
pub(super) fn form_q(reflectors: &[Reflector], m: usize, cols: usize) -> Vec<f64> {
    let mut q = vec![0.0; m * cols];
    (0..m.min(cols)).for_each(|i| q[i * cols + i] = 1.0);
    for (j, h) in reflectors.iter().enumerate().rev() {
        if h.v.is_empty() {
            continue;
        }
        for c in 0..cols {
            let dot: f64 = (j..m).map(|i| h.v[i - j] * q[i * cols + c]).sum();
            let f = h.tau * dot;
            (j..m).for_each(|i| q[i * cols + c] -= f * h.v[i - j]);
        }
    }
    q
}

/// The orthonormal complement of the `k` orthonormal columns of the row-major `m`×`k`
/// matrix `u` (`m`×`(m − k)`): the last columns of the full Householder `q` of `u`, each
/// with its sign fixed by [`super::eigh_pivot`]. The reflectors do not depend on the
/// signs or lengths of `u`'s columns, so neither does the complement.
pub fn complement(u: &[f64], m: usize, k: usize) -> Vec<f64> {
    let rest = m.saturating_sub(k);
    let mut work = u.to_vec();
    let reflectors = householder(&mut work, m, k);
    let q = form_q(&reflectors, m, m);
    let mut out = vec![0.0; m * rest];
    for c in 0..rest {
        let negate = super::eigh_pivot(m, |r| q[r * m + k + c]) < 0.0;
        for r in 0..m {
            let x = q[r * m + k + c];
            out[r * rest + c] = if negate { -x } else { x };
        }
    }
    out
}

/// `x[..., rows, cols]` of the last two axes (`start..limit` each).
pub(super) fn block(
    em: &mut Emitter,
    x: Value,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> Result<Value, String> {
    let shape = em.ty(x).shape.to_vec();
    let r = shape.len();
    let mut start = vec![0; r];
    let mut limit = shape.clone();
    (start[r - 2], limit[r - 2], start[r - 1], limit[r - 1]) = (rows.start, rows.end, cols.start, cols.end);
    if start.iter().all(|&s| s == 0) && limit == shape {
        return Ok(x);
    }
    em.slice(x, start, limit)
}

/// `[x, y]` along `axis`.
pub(super) fn concat(em: &mut Emitter, x: Value, y: Value, axis: usize) -> Result<Value, String> {
    em.concatenate(&[x, y], axis)
}

/// The jvp rule of `qr` (module docs).
pub(crate) fn jvp_qr(
    em: &mut Emitter,
    p: &Qr,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[a], &[q, r], &[t]) = (primals, outputs, tangents) else {
        return Err("qr: expects 1 operand, 1 tangent and 2 results".into());
    };
    let Some(t) = t else { return Ok(vec![None, None]) };
    let shape = em.ty(a).shape.to_vec();
    let rank = shape.len();
    let (m, n) = (shape[rank - 2], shape[rank - 1]);
    if m < n {
        // q is m×m and r m×n in both modes: a₁ = q·r₁ is a square QR.
        let r1 = block(em, r, 0..m, 0..m)?;
        let (t1, t2) = (block(em, t, 0..m, 0..m)?, block(em, t, 0..m, m..n)?);
        let a2 = block(em, a, 0..m, m..n)?;
        let (dq, dr1) = thin_jvp(em, q, r1, t1)?;
        let dqt = triangular::swap_last(em, dq)?;
        let from_q = triangular::matmul(em, dqt, a2)?;
        let qt = triangular::swap_last(em, q)?;
        let from_a = triangular::matmul(em, qt, t2)?;
        let dr2 = em.add(from_q, from_a)?;
        let dr = concat(em, dr1, dr2, rank - 1)?;
        return Ok(vec![Some(dq), Some(dr)]);
    }
    if !p.full_matrices || m == n {
        let (dq, dr) = thin_jvp(em, q, r, t)?;
        return Ok(vec![Some(dq), Some(dr)]);
    }
    // Tall with the full q: the thin rule on the first n columns, then the rest.
    let q_mn = block(em, q, 0..m, 0..n)?;
    let r_nn = block(em, r, 0..n, 0..n)?;
    let (dq_mn, dr_nn) = thin_jvp(em, q_mn, r_nn, t)?;
    let dq_rest = full_columns_jvp(em, q, q_mn, dq_mn, (m, n))?;
    let dq = concat(em, dq_mn, dq_rest, rank - 1)?;
    let zero_type = with_matrix(em.ty(r), m - n, n);
    let zero_rows = em.zeros(&zero_type)?;
    let dr = concat(em, dr_nn, zero_rows, rank - 2)?;
    Ok(vec![Some(dq), Some(dr)])
}

/// JAX's rule for `a = q·r` with `q` of `[m, n]` and `r` square (module docs).
fn thin_jvp(em: &mut Emitter, q: Value, r: Value, t: Value) -> Result<(Value, Value), String> {
    let x = triangular::solve(em, TriSolve::default(), r, t)?;
    let qt = triangular::swap_last(em, q)?;
    let qtx = triangular::matmul(em, qt, x)?;
    let shape = em.ty(qtx).shape.to_vec();
    let below = triangular::Grid::new(em, &shape)?.triangle(em, true, false)?;
    let lower = triangular::keep(em, below, qtx)?;
    let upper = triangular::swap_last(em, lower)?;
    let omega = em.sub(lower, upper)?;
    let inner = em.sub(omega, qtx)?;
    let rotated = triangular::matmul(em, q, inner)?;
    let dq = em.add(rotated, x)?;
    let left = em.sub(qtx, omega)?;
    let dr = triangular::matmul(em, left, r)?;
    Ok((dq, dr))
}

/// The tangent of the last `m − n` columns of a full `q` (`m > n`), from the tangent of
/// its first `n` (JAX's rule, after Roberts and Roberts 2024): with `q₁₁`, `q₂₁` the top
/// and bottom blocks of those `n` columns and `q₂` the other columns,
/// `Z = q₂₁·(q₁₁ − I)⁻¹` (solved through `lu`), and
/// `dq₂ = dq₁·Zᵀ − (q₁ + q₂·Z)·(dq₂₁ − Z·dq₁₁)ᵀ`.
fn full_columns_jvp(
    em: &mut Emitter,
    q: Value,
    q1: Value,
    dq1: Value,
    (m, n): (usize, usize),
) -> Result<Value, String> {
    let q11 = block(em, q, 0..n, 0..n)?;
    let q21 = block(em, q, n..m, 0..n)?;
    let q2 = block(em, q, 0..m, n..m)?;
    let (dq11, dq21) = (block(em, dq1, 0..n, 0..n)?, block(em, dq1, n..m, 0..n)?);
    let shape = em.ty(q11).shape.to_vec();
    let grid = triangular::Grid::new(em, &shape)?;
    let diagonal = grid.diagonal(em)?;
    let one = em.full_like(q11, 1.0)?;
    let eye = triangular::keep(em, diagonal, one)?;
    let shifted = em.sub(q11, eye)?;
    let z = right_lu_solve(em, shifted, q21)?;
    let zt = triangular::swap_last(em, z)?;
    let first = triangular::matmul(em, dq1, zt)?;
    let q2z = triangular::matmul(em, q2, z)?;
    let basis = em.add(q1, q2z)?;
    let zdq11 = triangular::matmul(em, z, dq11)?;
    let gap = em.sub(dq21, zdq11)?;
    let gap_t = triangular::swap_last(em, gap)?;
    let second = triangular::matmul(em, basis, gap_t)?;
    em.sub(first, second)
}

/// `x` with `x·c = b` for a square `c` (`[..., n, n]`) and `b` of `[..., p, n]`, through
/// `lu(c)`: `c[perm] = L·U`, so `y·U = b`, `w·L = y` and `x = w·P` with `P` the one-hot
/// matrix of the permutation (`x[:, perm[i]] = w[:, i]`).
fn right_lu_solve(em: &mut Emitter, c: Value, b: Value) -> Result<Value, String> {
    let outs = em.eqn(&crate::Module::new(), Prim::lu(), &[c])?;
    let (packed, perm) = (outs[0], outs[2]);
    let upper = TriSolve { left_side: false, lower: false, transpose_a: false, unit_diagonal: false };
    let y = triangular::solve(em, upper, packed, b)?;
    let unit_lower = TriSolve { lower: true, unit_diagonal: true, ..upper };
    let w = triangular::solve(em, unit_lower, packed, y)?;
    let shape = em.ty(c).shape.to_vec();
    let r = shape.len();
    let dims: Vec<usize> = (0..r - 1).collect();
    let rows = em.broadcast_in_dim(perm, &shape, &dims)?;
    let cols = em.iota(&shape, r - 1)?;
    let hit = em.eq(rows, cols)?;
    let dtype = em.ty(c).dtype;
    let one_hot = em.convert(hit, dtype)?;
    triangular::matmul(em, w, one_hot)
}
