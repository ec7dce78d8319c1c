//! The QR and singular value decompositions of `ferrax::linalg`, and what is built on
//! the SVD: least squares ([`lstsq`]), the pseudo-inverse ([`pinv`]) and the singular
//! values behind the matrix 2-norm and nuclear norm of `norm`.

use crate::Tensor;
use crate::ops::lax;
use crate::tracer::fail;
use ferrax_ir::prim::{Qr, Svd};
use ferrax_ir::{DType, Type};
use std::panic::Location;

type Loc = &'static Location<'static>;

/// `jax.numpy.linalg.qr` (modes `"complete"` and `"reduced"`): `(q, r)` of each
/// `[..., m, n]` matrix, `a = q·r`, with `q` of `[..., m, m]` and `r` of `[..., m, n]`
/// when `full_matrices`, else `q` of `[..., m, k]` and `r` of `[..., k, n]`
/// (`k = min(m, n)`). Householder's factors with LAPACK's signs (`r`'s diagonal may be
/// negative), as NumPy and JAX return them. Differentiable in every case JAX is: the
/// derivative of a full `q` of a tall matrix covers its extra columns too.
#[track_caller]
pub fn qr(a: &Tensor, full_matrices: bool) -> (Tensor, Tensor) {
    lax::qr(a, Qr { full_matrices }, Location::caller())
}

/// The factors [`svd`] returns: `u` and `vt` only when asked for.
#[derive(Clone, Debug)]
pub struct SvdFactors {
    /// The left singular vectors (columns), `[..., m, m]` or `[..., m, k]`.
    pub u: Option<Tensor>,
    /// The singular values, descending, `[..., k]`.
    pub s: Tensor,
    /// The right singular vectors (rows), `[..., n, n]` or `[..., k, n]`.
    pub vt: Option<Tensor>,
}

/// `jax.numpy.linalg.svd(a, full_matrices, compute_uv)`: the singular value
/// decomposition of each `[..., m, n]` matrix, `a = u[..., :k]·diag(s)·vt[..., :k, :]`
/// (`k = min(m, n)`), with `s` descending. Singular vectors are unique only up to the
/// sign of each pair `(u_j, v_j)` (and a full `u`'s or `vt`'s extra vectors up to a
/// rotation); ferrax fixes them deterministically (see the `svd` primitive in
/// `ir/README.md`), JAX leaves them to LAPACK, so compare `u·diag(s)·vt` or `u·uᵀ`
/// across systems. As in JAX, the vectors of a non-square matrix are differentiable
/// only with `full_matrices=false`; the values always are.
#[track_caller]
pub fn svd(a: &Tensor, full_matrices: bool, compute_uv: bool) -> SvdFactors {
    let location = Location::caller();
    let mut out = lax::svd(a, Svd { full_matrices, compute_uv }, location).into_iter();
    match (compute_uv, out.next(), out.next(), out.next()) {
        (true, Some(u), Some(s), Some(vt)) => SvdFactors { u: Some(u), s, vt: Some(vt) },
        (false, Some(s), None, None) => SvdFactors { u: None, s, vt: None },
        _ => {
            let message = "svd: unexpected number of results".to_string();
            SvdFactors { u: None, s: fail(location, message, Type::new(a.dtype(), &[])), vt: None }
        }
    }
}

/// The singular values of each matrix of `a` (`svd` without vectors).
pub(super) fn values(a: &Tensor, location: Loc) -> Tensor {
    let mut out = lax::svd(a, Svd { full_matrices: false, compute_uv: false }, location);
    out.pop().unwrap_or_else(|| fail(location, "svd: no result".to_string(), a.ty().clone()))
}

/// The thin `(u, s, vt)` of `a`.
fn thin(a: &Tensor, location: Loc) -> (Tensor, Tensor, Tensor) {
    let mut out = lax::svd(a, Svd { full_matrices: false, compute_uv: true }, location).into_iter();
    match (out.next(), out.next(), out.next()) {
        (Some(u), Some(s), Some(vt)) => (u, s, vt),
        _ => {
            let bad = fail(location, "svd: expected three results".to_string(), a.ty().clone());
            (bad.clone(), bad.clone(), bad)
        }
    }
}

/// The machine epsilon of `dtype` (f32 or f64).
fn eps(dtype: DType) -> f64 {
    if dtype == DType::F32 { f64::from(f32::EPSILON) } else { f64::EPSILON }
}

/// `x` with its last two axes swapped.
fn mt(x: &Tensor) -> Tensor {
    let r = x.rank();
    x.swap_axes(r.saturating_sub(2), r.saturating_sub(1))
}

/// What [`lstsq`] returns, as `jax.numpy.linalg.lstsq`.
#[derive(Clone, Debug)]
pub struct Lstsq {
    /// The least-squares solution, `[n]` or `[n, k]` as `b` is a vector or a matrix.
    pub x: Tensor,
    /// The squared 2-norm of each column of `b − a·x`, `[k]` (`[1]` for a vector `b`),
    /// always computed (JAX's `numpy_resid=False`).
    pub residuals: Tensor,
    /// The effective rank of `a` (i32): the singular values kept.
    pub rank: Tensor,
    /// The singular values of `a`, descending.
    pub s: Tensor,
}

/// `jax.numpy.linalg.lstsq(a, b)`: the `x` minimising `‖a·x − b‖` (the minimum-norm one
/// when `a` is rank-deficient), through the thin SVD of the `[m, n]` matrix `a`:
/// `x = v·diag(1/s)·uᵀ·b` over the singular values kept, those with
/// `s ≥ rcond·s₀` (and positive), `rcond = eps·max(m, n)` (JAX's default). `b` is
/// `[m]` or `[m, k]`. Differentiable through the SVD as JAX's is (its residuals are
/// `norm(b − a·x)²`, whose gradient at an exact fit is NaN, as in JAX).
#[track_caller]
pub fn lstsq(a: &Tensor, b: &Tensor) -> Lstsq {
    let location = Location::caller();
    let shapes_fit = a.rank() == 2 && matches!(b.rank(), 1 | 2) && a.shape()[0] == b.shape()[0];
    if !shapes_fit {
        let message = format!(
            "lstsq: expects a matrix a of [m, n] and b of [m] or [m, k] with the same m, got a: {} and b: {}",
            a.ty(),
            b.ty()
        );
        let bad = |ty: Type| fail(location, message.clone(), ty);
        return Lstsq {
            x: bad(b.ty().clone()),
            residuals: bad(b.ty().clone()),
            rank: bad(Type::new(DType::I32, &[])),
            s: bad(a.ty().clone()),
        };
    }
    let vector = b.rank() == 1;
    let b2 = if vector { b.expand_dims(1) } else { b.clone() };
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let (x, rank, s) = if m == 0 || n == 0 {
        let x = Tensor::zeros(a.dtype(), &[n, b2.shape()[1]]);
        (x, Tensor::zeros(DType::I32, &[]), Tensor::zeros(a.dtype(), &[0]))
    } else {
        let (u, s, vt) = thin(a, location);
        let rcond = eps(a.dtype()) * m.max(n) as f64;
        let largest = s.max_axes([0usize], true);
        let mask = s.gt(0.0).and(s.ge(largest * rcond));
        let rank = mask.astype(DType::I32).sum_axes([0usize], false);
        let safe = crate::where_(&mask, &s, 1.0);
        let s_inv = crate::where_(&mask, 1.0 / safe, 0.0).expand_dims(1);
        let utb = mt(&u).matmul(&b2);
        let x = mt(&vt).matmul(&(s_inv * utb));
        (x, rank, s)
    };
    let r = &b2 - a.matmul(&x);
    let length = (&r * &r).sum_axes([0usize], false).sqrt();
    let residuals = &length * &length;
    let x = if vector { x.squeeze(1) } else { x };
    Lstsq { x, residuals, rank, s }
}

/// `jax.numpy.linalg.pinv(a)`: the Moore–Penrose pseudo-inverse of each `[..., m, n]`
/// matrix (`[..., n, m]`), from its thin SVD with the singular values at most
/// `rtol·s₀` dropped, `rtol = 10·max(m, n)·eps` (JAX's default). Like JAX's, its
/// derivative is Golub and Pereyra's formula for the pseudo-inverse (a custom jvp rule),
/// not the SVD's, so it is defined where singular values repeat (an orthogonal matrix)
/// as long as the rank does not change.
#[track_caller]
pub fn pinv(a: &Tensor) -> Tensor {
    let location = Location::caller();
    let r = a.rank();
    if r < 2 || !matches!(a.dtype(), DType::F32 | DType::F64) {
        let message = format!("pinv: expects f32 or f64 matrices in the last two axes, got {}", a.ty());
        return fail(location, message, a.ty().clone());
    }
    let (m, n) = (a.shape()[r - 2], a.shape()[r - 1]);
    if m == 0 || n == 0 {
        let mut shape = a.shape().to_vec();
        shape[r - 2] = n;
        shape[r - 1] = m;
        return Tensor::zeros(a.dtype(), &shape);
    }
    let rule = crate::custom_jvp(
        move |a: Tensor| pinv_svd(&a, location),
        move |a: Tensor, da: Tensor| {
            let p = pinv_svd(&a, location);
            let pdot = pinv_tangent(&a, &da, &p, m >= n);
            (p, pdot)
        },
    );
    rule.call(a)
}

/// The pseudo-inverse by the thin SVD (JAX's `_pinv`).
fn pinv_svd(a: &Tensor, location: Loc) -> Tensor {
    let r = a.rank();
    let (m, n) = (a.shape()[r - 2], a.shape()[r - 1]);
    let rtol = 10.0 * m.max(n) as f64 * eps(a.dtype());
    let (u, s, vt) = thin(a, location);
    let cutoff = s.max_axes([r - 2], true) * rtol;
    let kept = crate::where_(&s.gt(cutoff), &s, f64::INFINITY);
    mt(&vt).matmul(&(mt(&u) / kept.expand_dims(r - 1)))
}

/// Golub and Pereyra's derivative of the pseudo-inverse `p` of `a` along `da` (JAX's
/// `_pinv_jvp`, its products grouped as JAX groups them for tall and wide matrices).
fn pinv_tangent(a: &Tensor, da: &Tensor, p: &Tensor, tall: bool) -> Tensor {
    let (pt, dat) = (mt(p), mt(da));
    if tall {
        let s = p.matmul(&pt).matmul(&dat);
        let t = dat.matmul(&pt).matmul(p);
        -p.matmul(&da.matmul(p)) + &s - s.matmul(a).matmul(p) + &t - p.matmul(a).matmul(&t)
    } else {
        let s = p.matmul(&pt.matmul(&dat));
        let t = dat.matmul(&pt.matmul(p));
        -p.matmul(da).matmul(p) + &s - s.matmul(&a.matmul(p)) + &t - p.matmul(&a.matmul(&t))
    }
}
