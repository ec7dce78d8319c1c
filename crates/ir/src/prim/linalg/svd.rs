//! `svd[full_matrices, compute_uv](a) -> (u, s, vt)` (just `(s)` without `compute_uv`):
//! the singular value decomposition of `[..., m, n]` matrices, as `jax.lax.linalg.svd`
//! (leading axes are batch axes; f32/f64 only; note the order `(u, s, vt)`, where JAX's
//! primitive binds `(s, u, vt)`).
//!
//! With `k = min(m, n)`: `s` (`[..., k]`) holds the singular values in descending order;
//! `u` is `[..., m, m]` (`full_matrices`) or `[..., m, k]`, `vt` `[..., n, n]` or
//! `[..., k, n]`, and `a = u[:, :k]·diag(s)·vt[:k]`. Singular vectors are not unique:
//! each pair `(u_j, v_j)` may change sign together, and the extra columns of a full `u`
//! (rows of a full `vt`) are any orthonormal basis of the complement. LAPACK returns
//! whatever its algorithm reaches; ferrax fixes them so that every backend gives the
//! same result: each column of `u` has its first entry of at least half its largest
//! magnitude positive (the rule of `eigh`, with `v_j` following `u_j`), and the extra
//! columns of a full `u` (rows of a full `vt`) are the last columns of the Householder
//! `q` of the first `k` (see `qr`), signed by the same rule. Compare sign-invariant
//! quantities (`u·diag(s)·vt`, `u·uᵀ`) with other systems.
//!
//! The reference evaluation is the one-sided Jacobi method in f64 on `a` (or `aᵀ` when
//! `m < n`): rotations orthogonalise the columns of `a·V`, whose norms are the singular
//! values; a Householder QR of those columns gives `u` (also where a singular value is
//! zero). A matrix with a NaN or an infinity gives NaNs.
//!
//! The jvp is JAX's rule, on the thin decomposition (recomputed with `compute_uv` when
//! the equation only returns `s`): with `dS = uᵀ·da·v`, `ds = diag(dS)`; then, with
//! `F_ij = 1/(s_j² − s_i²)` off the diagonal and 0 on it (infinite where two singular
//! values coincide: the vectors are then not differentiable),
//! `du = u·(F∘(dS·S + S·dSᵀ))` and `dv = v·(F∘(S·dS + dSᵀ·S))` (`S = diag(s)`), plus
//! `(I − u·uᵀ)·da·v·S⁻¹` in `du` when `m > n` and `(I − v·vᵀ)·daᵀ·u·S⁻¹` in `dv` when
//! `m < n`. (JAX's extra diagonal term `(dS − dSᵀ)/2·S⁻¹` vanishes for real matrices.)
//! As in JAX, the derivative of the vectors of a non-square matrix with
//! `full_matrices=true` is not defined: the jvp is an error there.

use super::qr::{complement, form_q, householder, matrix, narrow, wide, with_matrix};
use super::{LinalgOp, triangular};
use crate::prim::expect_arity;
use crate::{Emitter, Prim, Type, Value};
use ferrax_array::Array;

/// The parameters of an `svd`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Svd {
    /// `u` and `vt` square; else `u` of `[m, k]` and `vt` of `[k, n]`.
    pub full_matrices: bool,
    /// Return `(u, s, vt)`; else only `s`.
    pub compute_uv: bool,
}

impl Default for Svd {
    fn default() -> Svd {
        Svd { full_matrices: true, compute_uv: true }
    }
}

/// The type rule of `svd` (module docs).
pub(crate) fn infer_svd(p: &Svd, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("svd", inputs, 1)?;
    let a = &inputs[0];
    let (m, n) = matrix("svd", a)?;
    let k = m.min(n);
    let mut s = a.clone();
    s.shape.truncate(a.rank() - 2);
    s.shape.push(k);
    if !p.compute_uv {
        return Ok(vec![s]);
    }
    let (uc, vr) = if p.full_matrices { (m, n) } else { (k, k) };
    Ok(vec![with_matrix(a, m, uc), s, with_matrix(a, vr, n)])
}

/// Evaluates `svd` (module docs): `[u, s, vt]`, or `[s]`.
pub(crate) fn eval_svd(p: &Svd, a: &Array) -> Result<Vec<Array>, String> {
    let ty = Type::new(a.dtype(), a.shape());
    let types = infer_svd(p, std::slice::from_ref(&ty))?;
    let (m, n) = matrix("svd", &ty)?;
    let k = m.min(n);
    let x = wide("svd", a)?;
    let batch: usize = a.shape()[..ty.rank() - 2].iter().product();
    let (mut us, mut ss, mut vts) = (Vec::new(), Vec::with_capacity(batch * k), Vec::new());
    for b in 0..batch {
        let one = &x[b * m * n..(b + 1) * m * n];
        let (u, s, v) = if one.iter().all(|e| e.is_finite()) {
            thin(one, m, n)
        } else {
            (vec![f64::NAN; m * k], vec![f64::NAN; k], vec![f64::NAN; n * k])
        };
        ss.extend(s);
        if p.compute_uv {
            let (u, vt) = canonical(m, n, u, v, p.full_matrices);
            us.extend(u);
            vts.extend(vt);
        }
    }
    let dtype = a.dtype();
    if !p.compute_uv {
        return Ok(vec![narrow(dtype, &types[0].shape, ss)?]);
    }
    Ok(vec![
        narrow(dtype, &types[0].shape, us)?,
        narrow(dtype, &types[1].shape, ss)?,
        narrow(dtype, &types[2].shape, vts)?,
    ])
}

/// The thin SVD of the row-major `m`×`n` matrix `a` (finite): `u` (`m`×`k`, row-major),
/// `s` descending and `v` (`n`×`k`), before [`canonical`].
fn thin(a: &[f64], m: usize, n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    // Work on b = a (or aᵀ), p×q with p ≥ q, held by columns.
    let (p, q) = (m.max(n), m.min(n));
    let mut cols: Vec<Vec<f64>> =
        (0..q).map(|j| (0..p).map(|i| if m >= n { a[i * n + j] } else { a[j * n + i] }).collect()).collect();
    let mut v: Vec<Vec<f64>> = (0..q).map(|j| (0..q).map(|i| f64::from(u8::from(i == j))).collect()).collect();
    jacobi(&mut cols, &mut v);
    let norms: Vec<f64> = cols.iter().map(|c| c.iter().fold(0.0f64, |acc, &x| acc.hypot(x))).collect();
    let mut order: Vec<usize> = (0..q).collect();
    order.sort_by(|&i, &j| norms[j].total_cmp(&norms[i]));
    // The Householder q of the sorted columns gives their directions (and, where a
    // column vanishes, a unit vector orthogonal to the others).
    let mut w = vec![0.0; p * q];
    for (c, &k) in order.iter().enumerate() {
        (0..p).for_each(|i| w[i * q + c] = cols[k][i]);
    }
    let reflectors = householder(&mut w, p, q);
    let mut dirs = form_q(&reflectors, p, q);
    for c in 0..q {
        if w[c * q + c] < 0.0 {
            (0..p).for_each(|i| dirs[i * q + c] = -dirs[i * q + c]);
        }
    }
    let s: Vec<f64> = order.iter().map(|&k| norms[k]).collect();
    let mut right = vec![0.0; q * q];
    for (c, &k) in order.iter().enumerate() {
        (0..q).for_each(|i| right[i * q + c] = v[k][i]);
    }
    if m >= n { (dirs, s, right) } else { (right, s, dirs) }
}

/// One-sided Jacobi: rotates pairs of `cols` (and of `v`'s columns alike) until every
/// pair is orthogonal to rounding.
fn jacobi(cols: &mut [Vec<f64>], v: &mut [Vec<f64>]) {
    let q = cols.len();
    for _ in 0..80 {
        let mut rotated = false;
        for i in 0..q {
            for j in i + 1..q {
                let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
                let (alpha, beta, gamma) = (dot(&cols[i], &cols[i]), dot(&cols[j], &cols[j]), dot(&cols[i], &cols[j]));
                if gamma == 0.0 || gamma.abs() <= 1e-15 * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let sign = if zeta < 0.0 { -1.0 } else { 1.0 };
                let t = sign / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = c * t;
                for pair in [&mut *cols, &mut *v] {
                    let (left, right) = pair.split_at_mut(j);
                    for (x, y) in left[i].iter_mut().zip(right[0].iter_mut()) {
                        let (a, b) = (*x, *y);
                        *x = c * a - s * b;
                        *y = s * a + c * b;
                    }
                }
            }
        }
        if !rotated {
            return;
        }
    }
}

/// Fixes the signs and completes the thin SVD `u` (`m`×`k`), `v` (`n`×`k`, both
/// row-major, columns in the order of descending singular values) as every backend
/// returns it (module docs): `(u, vt)`, square when `full`, with every zero `+0.0`.
pub fn canonical(m: usize, n: usize, mut u: Vec<f64>, mut v: Vec<f64>, full: bool) -> (Vec<f64>, Vec<f64>) {
    let k = m.min(n);
    for c in 0..k {
        if super::eigh_pivot(m, |r| u[r * k + c]) < 0.0 {
            (0..m).for_each(|r| u[r * k + c] = -u[r * k + c]);
            (0..n).for_each(|r| v[r * k + c] = -v[r * k + c]);
        }
    }
    let u = if full && m > k {
        let rest = complement(&u, m, k);
        let extra = m - k;
        (0..m).flat_map(|r| u[r * k..(r + 1) * k].iter().chain(&rest[r * extra..(r + 1) * extra]).copied()).collect()
    } else {
        u
    };
    let mut vt: Vec<f64> = (0..k).flat_map(|c| (0..n).map(|r| v[r * k + c]).collect::<Vec<_>>()).collect();
    if full && n > k {
        let rest = complement(&v, n, k);
        let extra = n - k;
        vt.extend((0..extra).flat_map(|c| (0..n).map(|r| rest[r * extra + c]).collect::<Vec<_>>()));
    }
    // Zeros as +0.0, whichever sign a flip or a backend's arithmetic left them with.
    let positive_zeros = |v: Vec<f64>| v.into_iter().map(|x| x + 0.0).collect();
    (positive_zeros(u), positive_zeros(vt))
}

/// The jvp rule of `svd` (module docs).
pub(crate) fn jvp_svd(
    em: &mut Emitter,
    p: &Svd,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[a], &[t]) = (primals, tangents) else {
        return Err("svd: expects 1 operand and 1 tangent".into());
    };
    let Some(t) = t else { return Ok(vec![None; outputs.len()]) };
    let shape = em.ty(a).shape.to_vec();
    let rank = shape.len();
    let (m, n) = (shape[rank - 2], shape[rank - 1]);
    if p.compute_uv && p.full_matrices && m != n {
        return Err(format!(
            "svd: the derivative of the singular vectors of a non-square matrix ({}) with full_matrices=true is not \
             defined (as in JAX); use full_matrices=false",
            em.ty(a)
        ));
    }
    let (u, s, vt) = match *outputs {
        [u, s, vt] => (u, s, vt),
        [_] => {
            let thin = Svd { full_matrices: false, compute_uv: true };
            let outs = em.eqn(&crate::Module::new(), Prim::Linalg(LinalgOp::Svd(thin)), &[a])?;
            (outs[0], outs[1], outs[2])
        }
        _ => return Err(format!("svd: expects 1 or 3 results, got {}", outputs.len())),
    };
    let ut = triangular::swap_last(em, u)?;
    let v = triangular::swap_last(em, vt)?;
    let left = triangular::matmul(em, ut, t)?;
    let ds_mat = triangular::matmul(em, left, v)?;
    let k_shape = em.ty(ds_mat).shape.to_vec();
    let grid = triangular::Grid::new(em, &k_shape)?;
    let diagonal = grid.diagonal(em)?;
    let on_diagonal = triangular::keep(em, diagonal, ds_mat)?;
    let ds = em.reduce_sum(on_diagonal, &[rank - 1])?;
    if !p.compute_uv {
        return Ok(vec![Some(ds)]);
    }
    let batch: Vec<usize> = (0..rank - 2).collect();
    let sj = em.broadcast_in_dim(s, &k_shape, &[batch.clone(), vec![rank - 1]].concat())?;
    let si = em.broadcast_in_dim(s, &k_shape, &[batch.clone(), vec![rank - 2]].concat())?;
    let sum = em.add(sj, si)?;
    let gap = em.sub(sj, si)?;
    let diffs = em.mul(sum, gap)?;
    let one = em.full_like(diffs, 1.0)?;
    let zero = em.full_like(diffs, 0.0)?;
    let safe = em.select(diagonal, one, diffs)?;
    let reciprocal = em.div(one, safe)?;
    let f = em.select(diagonal, zero, reciprocal)?;
    let dss = em.mul(ds_mat, sj)?;
    let dss_t = triangular::swap_last(em, dss)?;
    let sym_u = em.add(dss, dss_t)?;
    let weighted_u = em.mul(f, sym_u)?;
    let mut du = triangular::matmul(em, u, weighted_u)?;
    let sds = em.mul(ds_mat, si)?;
    let sds_t = triangular::swap_last(em, sds)?;
    let sym_v = em.add(sds, sds_t)?;
    let weighted_v = em.mul(f, sym_v)?;
    let mut dv = triangular::matmul(em, v, weighted_v)?;
    if m > n {
        du = add_projection(em, du, (t, v), (u, ut), s)?;
    }
    if n > m {
        let tt = triangular::swap_last(em, t)?;
        dv = add_projection(em, dv, (tt, u), (v, vt), s)?;
    }
    let dvt = triangular::swap_last(em, dv)?;
    Ok(vec![Some(du), Some(ds), Some(dvt)])
}

/// `d + (x·y − w·(wᵀ·x·y))·S⁻¹`: the part of a singular vector's tangent outside the
/// span of the thin factor `w` (`wt` its transpose).
fn add_projection(
    em: &mut Emitter,
    d: Value,
    (x, y): (Value, Value),
    (w, wt): (Value, Value),
    s: Value,
) -> Result<Value, String> {
    let xy = triangular::matmul(em, x, y)?;
    let inside = triangular::matmul(em, wt, xy)?;
    let back = triangular::matmul(em, w, inside)?;
    let outside = em.sub(xy, back)?;
    let shape = em.ty(outside).shape.to_vec();
    let r = shape.len();
    let dims: Vec<usize> = (0..r - 2).chain([r - 1]).collect();
    let scale = em.broadcast_in_dim(s, &shape, &dims)?;
    let scaled = em.div(outside, scale)?;
    em.add(d, scaled)
}
