//! `ferrax::linalg`: factorisations and solves on stacks of matrices (the last two axes;
//! leading axes are batch axes), differentiable in every mode, as `jax.numpy.linalg` and
//! `jax.scipy.linalg` are. f32 and f64 only, as in JAX.
//!
//! The primitives underneath are `cholesky` (the lower factor of the lower triangle),
//! `triangular_solve` and `eigh`; these functions add what NumPy users expect on top. Like JAX's,
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
use std::panic::Location;

pub use ferrax_ir::prim::{Eigh, TriSolve};

/// The lower Cholesky factor `L` of each symmetric positive definite matrix (`a = L·Lᵀ`),
/// computed from `(a + aᵀ)/2` as `jax.numpy.linalg.cholesky` does; the upper triangle of
/// the result is zero, and a matrix that is not positive definite gives NaNs.
#[track_caller]
pub fn cholesky(a: &Tensor) -> Tensor {
    let location = Location::caller();
    let r = a.rank();
    if r < 2 {
        return fail(location, format!("cholesky: expects a stack of matrices, got {}", a.ty()), a.ty().clone());
    }
    let sym = (a + &a.swap_axes(r - 2, r - 1)) * 0.5;
    lax::cholesky(&sym, location)
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
    let r = a.rank();
    if r < 2 {
        let message = format!("eigh: expects a stack of matrices, got {}", a.ty());
        let w = a.ty().clone();
        return (fail(location, message.clone(), w), fail(location, message, a.ty().clone()));
    }
    let sym = (a + &a.swap_axes(r - 2, r - 1)) * 0.5;
    let (v, w) = lax::eigh(&sym, Eigh::default(), location);
    (w, v)
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
