//! `ferrax::linalg`: factorisations and solves on stacks of matrices (the last two axes;
//! leading axes are batch axes), differentiable in every mode, as `jax.numpy.linalg` and
//! `jax.scipy.linalg` are. f32 and f64 only, as in JAX.
//!
//! The primitives underneath are `cholesky` (the lower factor of the lower triangle),
//! `triangular_solve`, `eigh`, `lu`, `qr` and `svd`; these functions add what NumPy
//! users expect on top (`solve`, `inv`, `det` and `slogdet` through the LU
//! decomposition, `lstsq` and `pinv` through the SVD, `norm`; the SVD, least-squares
//! and pseudo-inverse functions live in `linalg/svd.rs`). Like JAX's,
//! [`cholesky`] symmetrises its operand first (`(a + aᵀ)/2`), so its derivative is that
//! of a function of symmetric matrices in every direction; a matrix that is not positive
//! definite gives NaNs, not an error.
//!
//! ```
//! use ferrax::{Array, Tensor, grad, linalg};
//! // d/dA of log det A = 2·Σ log diag(chol A) is A⁻¹ (symmetric A).
//! let a = Array::from_f64(&[2, 2], vec![4.0, 2.0, 2.0, 3.0]).unwrap();
//! let logdet = |a: Tensor| {
//!     let l = linalg::cholesky(&a);
//!     let eye = Tensor::constant(&Array::from_f64(&[2, 2], vec![1.0, 0.0, 0.0, 1.0]).unwrap());
//!     (l * eye).sum([1usize]).log().sum_all() * 2.0
//! };
//! let g = ferrax::eval(grad(logdet), &a).unwrap().to_f64_vec();
//! let inv = [3.0 / 8.0, -2.0 / 8.0, -2.0 / 8.0, 4.0 / 8.0];
//! assert!(g.iter().zip(inv).all(|(x, y)| (x - y).abs() < 1e-12));
//! ```

use crate::Tensor;
use crate::ops::lax;
use crate::tracer::fail;
use ferrax_ir::Type;
use std::panic::Location;

pub use ferrax_ir::prim::{Eigh, TriSolve};
pub use svd::{Lstsq, SvdFactors, lstsq, pinv, qr, svd};

mod svd;

/// The lower Cholesky factor `L` of each symmetric positive definite matrix (`a = L·Lᵀ`),
/// computed from `(a + aᵀ)/2` as `jax.numpy.linalg.cholesky` does; the upper triangle of
/// the result is zero, and a matrix that is not positive definite gives NaNs.
#[track_caller]
pub fn cholesky(a: &Tensor) -> Tensor {
    let location = Location::caller();
    match symmetrized("cholesky", a, location) {
        Ok(sym) => lax::cholesky(&sym, location),
        Err(poisoned) => poisoned,
    }
}

/// `jax.lax.linalg.triangular_solve`: `op(a)·x = b` (`p.left_side`) or `x·op(a) = b`,
/// reading only one triangle of `a` (see [`TriSolve`]); `b` has `a`'s batch axes.
#[track_caller]
pub fn triangular_solve(a: &Tensor, b: &Tensor, p: TriSolve) -> Tensor {
    lax::triangular_solve(a, b, p, Location::caller())
}

/// `jax.scipy.linalg.solve_triangular(a, b, lower=lower)`: `a·x = b` for a triangular
/// `a`, reading its lower (or upper) triangle; `b` is a vector (`[..., m]`) or a stack
/// of matrices (`[..., m, n]`) with `a`'s batch axes.
#[track_caller]
pub fn solve_triangular(a: &Tensor, b: &Tensor, lower: bool) -> Tensor {
    left_solve(a, b, TriSolve { left_side: true, lower, ..TriSolve::default() }, Location::caller())
}

/// `jax.scipy.linalg.cho_solve((l, True), b)`: `x` with `L·Lᵀ·x = b`, from the lower
/// Cholesky factor `l`; `b` as in [`solve_triangular`].
#[track_caller]
pub fn cho_solve(l: &Tensor, b: &Tensor) -> Tensor {
    let location = Location::caller();
    let forward = TriSolve { left_side: true, lower: true, ..TriSolve::default() };
    let y = left_solve(l, b, forward, location);
    left_solve(l, &y, TriSolve { transpose_a: true, ..forward }, location)
}

/// `jax.numpy.linalg.eigh`: `(w, v)`, the ascending eigenvalues and the unit
/// eigenvectors (columns of `v`) of each symmetric matrix, computed from `(a + aᵀ)/2`.
/// Each eigenvector's first entry of at least half its largest magnitude is positive
/// (JAX leaves the sign to LAPACK): compare sign-invariant quantities across systems.
#[track_caller]
pub fn eigh(a: &Tensor) -> (Tensor, Tensor) {
    let location = Location::caller();
    match symmetrized("eigh", a, location) {
        Ok(sym) => {
            let (v, w) = lax::eigh(&sym, Eigh::default(), location);
            (w, v)
        }
        Err(poisoned) => (poisoned.clone(), poisoned),
    }
}

/// `jax.lax.linalg.lu`: `(lu, pivots, permutation)` of each `m`×`n` matrix (square or
/// not), with partial pivoting: `lu` (`[..., m, n]`) packs the unit lower factor `L`
/// (`m`×`k`, `k = min(m, n)`) below the diagonal and the upper factor `U` (`k`×`n`) on
/// and above it, `pivots` (i32, `[..., k]`) the row swapped in at each step, and
/// `permutation` (i32, `[..., m]`) the order of the rows, `a[permutation] = L·U`.
///
/// ```
/// use ferrax::{Array, Tensor, linalg};
/// // A tall 3×2 matrix: L is 3×2, U 2×2.
/// let a = Array::from_f64(&[3, 2], vec![1.0, 3.0, 4.0, 2.0, 2.0, 5.0]).unwrap();
/// let (lu, pivots, perm) = ferrax::eval(|a: Tensor| linalg::lu(&a), &a).unwrap();
/// assert_eq!(lu.to_f64_vec(), [4.0, 2.0, 0.5, 4.0, 0.25, 0.625]);
/// assert_eq!(pivots.as_i32().unwrap(), [1, 2]);
/// assert_eq!(perm.as_i32().unwrap(), [1, 2, 0]);
/// ```
#[track_caller]
pub fn lu(a: &Tensor) -> (Tensor, Tensor, Tensor) {
    lax::lu(a, Location::caller())
}

/// `jax.numpy.linalg.solve`: `x` with `a·x = b` through the LU decomposition; `b` is a
/// vector (`[..., n]`) or a stack of matrices (`[..., n, k]`) with `a`'s batch axes.
#[track_caller]
pub fn solve(a: &Tensor, b: &Tensor) -> Tensor {
    let location = Location::caller();
    if let Err(message) = square("solve", a) {
        return fail(location, message, b.ty().clone());
    }
    let vector = a.rank() >= 2 && b.rank() + 1 == a.rank();
    let b = if vector { b.expand_dims(b.rank()) } else { b.clone() };
    let r = b.rank();
    let (packed, _, perm) = lax::lu(a, location);
    let rows = crate::ops::index::gather_at(&b, r.saturating_sub(2), r.saturating_sub(2), &perm, location);
    let unit_lower = TriSolve { left_side: true, lower: true, unit_diagonal: true, ..TriSolve::default() };
    let y = lax::triangular_solve(&packed, &rows, unit_lower, location);
    let x = lax::triangular_solve(&packed, &y, TriSolve { left_side: true, ..TriSolve::default() }, location);
    if vector { x.squeeze(r - 1) } else { x }
}

/// `jax.numpy.linalg.inv`: the inverse of each square matrix (`solve` against the
/// identity).
#[track_caller]
pub fn inv(a: &Tensor) -> Tensor {
    let location = Location::caller();
    if let Err(message) = square("inv", a) {
        return fail(location, message, a.ty().clone());
    }
    let n = a.shape().last().copied().unwrap_or(0);
    solve(a, &identity(n, a.dtype()).broadcast_to(a.shape()))
}

/// Ok for a stack of square matrices; else the error of `op` (the functions built on
/// the LU decomposition need square matrices, which `lu` itself does not).
fn square(op: &str, a: &Tensor) -> Result<(), String> {
    let shape = a.shape();
    match shape {
        [.., m, n] if m == n => Ok(()),
        _ => Err(format!("{op}: expects square matrices in the last two axes (rank ≥ 2), got {}", a.ty())),
    }
}

/// The `n`×`n` identity matrix of `dtype`.
fn identity(n: usize, dtype: ferrax_ir::DType) -> Tensor {
    let rows = crate::ops::create::iota(ferrax_ir::DType::I32, &[n, n], 0);
    rows.eq_(crate::ops::create::iota(ferrax_ir::DType::I32, &[n, n], 1)).astype(dtype)
}

/// `jax.numpy.linalg.slogdet`: `(sign, log|det a|)` of each square matrix, from the LU
/// decomposition (a singular matrix gives sign 0 and −inf). Its gradient with respect to
/// `a` is `a⁻ᵀ` through the log.
#[track_caller]
pub fn slogdet(a: &Tensor) -> (Tensor, Tensor) {
    let location = Location::caller();
    if let Err(message) = square("slogdet", a) {
        let ty = Type::new(a.dtype(), &a.shape()[..a.rank().saturating_sub(2)]);
        let poisoned = fail(location, message, ty);
        return (poisoned.clone(), poisoned);
    }
    let (diagonal, parity) = lu_diagonal(a, location);
    let sign = diagonal.sign().prod_axes([diagonal.rank().saturating_sub(1)], false) * parity;
    let log_abs = diagonal.abs().log().sum([diagonal.rank().saturating_sub(1)]);
    (sign, log_abs)
}

/// `jax.numpy.linalg.det`: the determinant of each square matrix, from the LU
/// decomposition; `d det / d a = det·a⁻ᵀ`.
#[track_caller]
pub fn det(a: &Tensor) -> Tensor {
    let location = Location::caller();
    if let Err(message) = square("det", a) {
        return fail(location, message, Type::new(a.dtype(), &a.shape()[..a.rank().saturating_sub(2)]));
    }
    let (diagonal, parity) = lu_diagonal(a, location);
    diagonal.prod_axes([diagonal.rank().saturating_sub(1)], false) * parity
}

/// The diagonal of `U` (`[..., n]`) and the permutation's sign (`[...]`, ±1).
fn lu_diagonal(a: &Tensor, location: &'static Location<'static>) -> (Tensor, Tensor) {
    let (packed, pivots, _) = lax::lu(a, location);
    let n = a.shape().last().copied().unwrap_or(0);
    let r = packed.rank();
    let eye = identity(n, a.dtype());
    let diagonal = (&packed * &eye).sum([r.saturating_sub(1)]);
    let steps = crate::ops::create::arange(ferrax_ir::DType::I32, n);
    let swaps = pivots.ne_(&steps).astype(a.dtype()).sum([r.saturating_sub(2)]);
    let parity = 1.0 - swaps.rem(2.0) * 2.0;
    (diagonal, parity)
}

/// Which norm [`norm`] computes (`jax.numpy.linalg.norm`'s `ord`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ord {
    /// `ord=None`: the 2-norm of a vector, the Frobenius norm of a matrix (or of any
    /// array, flattened).
    Default,
    /// `ord='fro'` (matrices).
    Fro,
    /// `ord=p`: `(Σ|x|^p)^(1/p)` of a vector (0: the count of non-zeros); for a matrix
    /// `p` = 1 (`-1`): the largest (smallest) column sum of `|x|`.
    P(f64),
    /// `ord=inf`: `max|x|` of a vector, the largest row sum of `|x|` of a matrix.
    Inf,
    /// `ord=-inf`: `min|x|` of a vector, the smallest row sum of `|x|` of a matrix.
    NegInf,
    /// `ord='nuc'`: the nuclear norm of a matrix, the sum of its singular values.
    Nuc,
}

/// `jax.numpy.linalg.norm(x, ord)` over the whole of `x`: a vector norm for rank 1, a
/// matrix norm for rank 2 (`Default` for any rank). Written with the same operations as
/// JAX's, so its derivatives at zero follow JAX's conventions: NaN for the 2-norm and
/// the Frobenius norm (`sqrt` at 0), a subgradient from `abs`, `max` and `min` for the
/// others. For a matrix, `P(2.0)` (`P(-2.0)`) is the largest (smallest) singular value
/// and [`Ord::Nuc`] their sum, from `svd` without vectors as in JAX, so their gradients
/// are `u₁·v₁ᵀ` (the extreme pair of singular vectors) and `u·vᵀ` where the singular
/// values are distinct and non-zero.
#[track_caller]
pub fn norm(x: &Tensor, ord: Ord) -> Tensor {
    let location = Location::caller();
    let all: Vec<usize> = (0..x.rank()).collect();
    let euclid = || (x * x).sum_axes(all.clone(), false).sqrt();
    match (x.rank(), ord) {
        (_, Ord::Default) | (2, Ord::Fro) => euclid(),
        (1, Ord::P(2.0)) => euclid(),
        (1, Ord::P(1.0)) => x.abs().sum_axes([0usize], false),
        (1, Ord::P(0.0)) => x.ne_(0.0).astype(x.dtype()).sum_axes([0usize], false),
        (1, Ord::P(p)) => x.abs().pow(p).sum_axes([0usize], false).pow(1.0 / p),
        (1, Ord::Inf) => x.abs().max_axes([0usize], false),
        (1, Ord::NegInf) => x.abs().min_axes([0usize], false),
        (2, Ord::P(1.0)) => x.abs().sum_axes([0usize], false).max_axes([0usize], false),
        (2, Ord::P(-1.0)) => x.abs().sum_axes([0usize], false).min_axes([0usize], false),
        (2, Ord::Inf) => x.abs().sum_axes([1usize], false).max_axes([0usize], false),
        (2, Ord::NegInf) => x.abs().sum_axes([1usize], false).min_axes([0usize], false),
        (2, Ord::P(2.0)) => svd::values(x, location).max_axes([0usize], false),
        (2, Ord::P(-2.0)) => svd::values(x, location).min_axes([0usize], false),
        (2, Ord::Nuc) => svd::values(x, location).sum_axes([0usize], false),
        (rank, ord) => {
            let message = format!("norm: ord {ord:?} of a rank-{rank} array {} is not supported", x.ty());
            fail(location, message, Type::new(x.dtype(), &[]))
        }
    }
}

/// `(a + aᵀ)/2` over the last two axes, as JAX's `symmetrize_input`; a poisoned tensor
/// (the error recorded at `location`) when `a` is not a stack of matrices.
fn symmetrized(op: &str, a: &Tensor, location: &'static Location<'static>) -> Result<Tensor, Tensor> {
    let r = a.rank();
    if r < 2 {
        return Err(fail(location, format!("{op}: expects a stack of matrices, got {}", a.ty()), a.ty().clone()));
    }
    Ok((a + &a.swap_axes(r - 2, r - 1)) * 0.5)
}

/// A left-side solve of a vector or a matrix right-hand side.
fn left_solve(a: &Tensor, b: &Tensor, p: TriSolve, location: &'static Location<'static>) -> Tensor {
    if a.rank() >= 2 && b.rank() + 1 == a.rank() {
        let column = b.expand_dims(b.rank());
        let x = lax::triangular_solve(a, &column, p, location);
        return x.squeeze(x.rank() - 1);
    }
    lax::triangular_solve(a, b, p, location)
}
