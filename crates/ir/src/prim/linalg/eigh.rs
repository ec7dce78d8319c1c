//! `eigh[lower, sort_eigenvalues](a) -> (v, w)`: the eigendecomposition of symmetric
//! matrices, as `jax.lax.linalg.eigh` (leading axes are batch axes; f32/f64 only).
//!
//! The matrix is the symmetric one rebuilt from the `lower` (or upper) triangle of `a`;
//! `w` holds its eigenvalues in ascending order and the columns of `v` the matching unit
//! eigenvectors, `a = v·diag(w)·vᵀ`. With `sort_eigenvalues=false` JAX allows any order;
//! ferrax sorts anyway. An eigenvector's sign is not fixed by the decomposition (LAPACK
//! returns whichever its algorithm reaches, and so would any backend): ferrax makes the
//! first entry of each column whose magnitude is at least half the column's largest
//! positive, in the reference interpreter and on every backend, so results are
//! deterministic (the largest entry itself would not do: entries of equal magnitude,
//! common in structured matrices, tie, and rounding picks either); compare
//! sign-invariant quantities (`v·vᵀ`, `v∘v`) with other systems.
//!
//! The reference evaluation is the cyclic Jacobi method in f64 (accurate to a few ulps
//! of the largest eigenvalue, quadratic convergence), rounded once to f32.
//!
//! The jvp (JAX's rule, with the tangent first rebuilt symmetric from the triangle the
//! primitive reads): with `S = vᵀ·da·v`, `dw = diag(S)` and `dv = v·(F ∘ S)`, where
//! `F_ij = 1/(w_j − w_i)` off the diagonal and 0 on it (infinite or NaN where two
//! eigenvalues coincide: the eigenvectors are then not differentiable).

use super::triangular;
use crate::prim::elements::{array, bad_dtype};
use crate::prim::expect_arity;
use crate::{Emitter, Type, Value};
use ferrax_array::{DType, Data, Shape};

/// The parameters of an `eigh`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Eigh {
    /// Read the lower triangle of `a` (else the upper one).
    pub lower: bool,
    /// Sort the eigenvalues in ascending order (ferrax always does).
    pub sort_eigenvalues: bool,
}

impl Default for Eigh {
    fn default() -> Eigh {
        Eigh { lower: true, sort_eigenvalues: true }
    }
}

/// The type rule of `eigh`: `(v, w)` of `a`'s dtype, `v` of `a`'s shape, `w` without
/// the last axis.
pub(crate) fn infer_eigh(inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("eigh", inputs, 1)?;
    triangular::square("eigh", &inputs[0])?;
    let a = &inputs[0];
    let w: Shape = a.shape[..a.rank() - 1].iter().copied().collect();
    Ok(vec![a.clone(), Type { dtype: a.dtype, shape: w }])
}

/// Evaluates `eigh` (module docs): `[v, w]`.
pub(crate) fn eval_eigh(p: &Eigh, a: &ferrax_array::Array) -> Result<Vec<ferrax_array::Array>, String> {
    let shape = a.shape().to_vec();
    let n = *shape.last().ok_or("eigh: expects a matrix")?;
    let x: Vec<f64> = match a.data() {
        Data::F32(v) => v.iter().map(|&e| f64::from(e)).collect(),
        Data::F64(v) => v.clone(),
        Data::Bool(_) | Data::I32(_) | Data::BF16(_) | Data::F16(_) => return Err(bad_dtype("eigh", a.dtype())),
    };
    let mut vs = vec![0.0; x.len()];
    let mut ws = Vec::with_capacity(x.len().checked_div(n).unwrap_or(0));
    if n > 0 {
        for (src, v) in x.chunks_exact(n * n).zip(vs.chunks_exact_mut(n * n)) {
            ws.extend(decompose(src, v, n, p.lower));
        }
    }
    let w_shape = &shape[..shape.len() - 1];
    let (vd, wd) = match a.dtype() {
        DType::F32 => (
            Data::F32(vs.into_iter().map(|e| e as f32).collect()),
            Data::F32(ws.into_iter().map(|e| e as f32).collect()),
        ),
        _ => (Data::F64(vs), Data::F64(ws)),
    };
    Ok(vec![array(&shape, vd)?, array(w_shape, wd)?])
}

/// The eigenvalues (ascending) of the symmetric matrix read from one triangle of the
/// `n`×`n` matrix `src`, with the eigenvectors into the columns of `v`.
fn decompose(src: &[f64], v: &mut [f64], n: usize, lower: bool) -> Vec<f64> {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let (r, c) = if (j <= i) == lower { (i, j) } else { (j, i) };
            a[i * n + j] = src[r * n + c];
        }
    }
    if a.iter().any(|x| !x.is_finite()) {
        v.fill(f64::NAN);
        return vec![f64::NAN; n];
    }
    v.fill(0.0);
    (0..n).for_each(|i| v[i * n + i] = 1.0);
    jacobi(&mut a, v, n);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[i * n + i].total_cmp(&a[j * n + j]));
    let w: Vec<f64> = order.iter().map(|&k| a[k * n + k]).collect();
    let old = v.to_vec();
    for (col, &k) in order.iter().enumerate() {
        let sign = if pivot(n, |r| old[r * n + k]) < 0.0 { -1.0 } else { 1.0 };
        (0..n).for_each(|r| v[r * n + col] = sign * old[r * n + k]);
    }
    w
}

/// The entry of a column (of `n`, by row) whose sign ferrax makes positive: the first
/// one whose magnitude is at least half the largest (module docs).
pub fn pivot(n: usize, entry: impl Fn(usize) -> f64) -> f64 {
    let largest = (0..n).map(|r| entry(r).abs()).fold(0.0, f64::max);
    (0..n).map(&entry).find(|x| x.abs() >= 0.5 * largest).unwrap_or(0.0)
}

/// Cyclic Jacobi rotations on the symmetric `a` until its off-diagonal part vanishes
/// (relative to its norm), accumulating them into `v`.
fn jacobi(a: &mut [f64], v: &mut [f64], n: usize) {
    let norm: f64 = a.iter().map(|x| x * x).sum();
    for _ in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j].powi(2))
            .sum();
        if off <= norm * 1e-34 {
            return;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
}

/// The jvp rule of `eigh` (module docs).
pub(crate) fn jvp_eigh(
    em: &mut Emitter,
    p: &Eigh,
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[v, w], &[t]) = (outputs, tangents) else {
        return Err("eigh: expects 1 operand, 1 tangent and 2 results".into());
    };
    let Some(t) = t else { return Ok(vec![None, None]) };
    let shape = em.ty(v).shape.to_vec();
    let r = shape.len();
    let grid = triangular::Grid::new(em, &shape)?;
    let read = grid.triangle(em, p.lower, true)?;
    let beyond = grid.triangle(em, p.lower, false)?;
    let tri = triangular::keep(em, read, t)?;
    let off = triangular::keep(em, beyond, t)?;
    let mirrored = triangular::swap_last(em, off)?;
    let sym = em.add(tri, mirrored)?;
    let vt = triangular::swap_last(em, v)?;
    let left = triangular::matmul(em, vt, sym)?;
    let inner = triangular::matmul(em, left, v)?;
    let batch: Vec<usize> = (0..r - 2).collect();
    let wj = em.broadcast_in_dim(w, &shape, &[batch.clone(), vec![r - 1]].concat())?;
    let wi = em.broadcast_in_dim(w, &shape, &[batch, vec![r - 2]].concat())?;
    let gap = em.sub(wj, wi)?;
    let diagonal = grid.diagonal(em)?;
    let one = em.full_like(gap, 1.0)?;
    let zero = em.full_like(gap, 0.0)?;
    let safe = em.select(diagonal, one, gap)?;
    let reciprocal = em.div(one, safe)?;
    let f = em.select(diagonal, zero, reciprocal)?;
    let weighted = em.mul(f, inner)?;
    let dv = triangular::matmul(em, v, weighted)?;
    let on_diagonal = triangular::keep(em, diagonal, inner)?;
    let dw = em.reduce_sum(on_diagonal, &[r - 1])?;
    Ok(vec![Some(dv), Some(dw)])
}
