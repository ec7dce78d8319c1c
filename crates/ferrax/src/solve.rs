//! Matrix-free iterative solvers as traced code: [`cg`], [`gmres`] and [`bicgstab`]
//! for linear systems `A·x = b`, and [`newton_krylov`] for nonlinear ones `F(x) = 0`.
//!
//! The operator `A` is any traced linear function `&dyn Fn(&Tensor) -> Tensor`: a
//! matrix product, a Jacobian-vector product (`transforms::jvp(f).apply(..)`), a
//! vector-Jacobian product, a stencil. It is never formed as a matrix. The loops are
//! [`while_loop`]s, so a solver is a fixed piece of IR whatever the number of
//! iterations it takes: it can be traced, evaluated, compiled with `jit`, and used
//! inside other traced code, and batched by `vmap` (a batch of right-hand sides). Tensors
//! the operator closes over (a matrix, the point a jvp is taken at) are captured by the
//! loop bodies like any outer tensor.
//!
//! Shapes: `b` may have any shape. The solvers work on its elements flattened to a
//! vector (so the Krylov basis of GMRES is a `[restart + 1, b.size]` matrix), and call
//! the operator with, and expect from it, tensors of `b`'s own shape; `x` comes back in
//! that shape. Only `f32` and `f64` are solved (as in `jax.scipy.sparse.linalg`).
//!
//! The options and the stopping test are JAX's: iterations stop when the residual
//! norm is at most `max(tol·‖b‖, atol)`, with `tol = 1e-5`, `atol = 0` and at most
//! `maxiter` iterations (`10·b.size` by default; for GMRES, restart cycles). Each solver
//! returns `x` and a [`SolveInfo`] of tensors (iterations, operator applications, the
//! final residual norm, whether it met the tolerance), which is a [`Tree`], so a traced
//! function can return it.
//!
//! Derivatives: every solver is wrapped in a `custom_linear_solve` (and
//! [`newton_krylov`] in a `custom_root`), so `x` is differentiated as the solution of
//! its system, by implicit differentiation, never through the loop's iterations (which
//! reverse mode could not transpose: their `while_loop`s are unbounded). The tangent
//! and the cotangent are each one more solve by the same method with the same options
//! (`cg` is its own transpose; `gmres` and `bicgstab` solve the transposed system,
//! whose operator reverse mode builds from `matvec`), so they are as accurate as the
//! solver's tolerance makes them; the [`SolveInfo`] has no derivative.

use crate::control::while_loop;
use crate::ops::compare::where_;
use crate::ops::create::iota;
use crate::ops::index::s;
use crate::ops::shape::stack;
use crate::tracer::{self, TraceError};
use crate::tree::Tree;
use crate::{Tensor, linalg};
use ferrax_ir::{DType, Type};
use std::panic::Location;

mod newton;

pub use newton::{Forcing, NewtonInfo, NewtonOptions, newton_krylov};

/// A traced linear operator: `x ↦ A·x` on tensors of the right-hand side's shape.
pub type LinearOperator<'a> = &'a dyn Fn(&Tensor) -> Tensor;

/// Options of [`cg`] and [`bicgstab`], with JAX's defaults ([`SolveOptions::default`]).
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Relative tolerance: stop when `‖r‖ <= max(tol·‖b‖, atol)` (default `1e-5`).
    pub tol: f64,
    /// Absolute tolerance (default `0`).
    pub atol: f64,
    /// The most iterations (default `10·b.size`).
    pub maxiter: Option<usize>,
    /// The starting guess, of `b`'s type (default zeros).
    pub x0: Option<Tensor>,
}

impl Default for SolveOptions {
    fn default() -> SolveOptions {
        SolveOptions { tol: 1e-5, atol: 0.0, maxiter: None, x0: None }
    }
}

/// Options of [`gmres`], with JAX's defaults ([`GmresOptions::default`]).
#[derive(Clone, Debug)]
pub struct GmresOptions {
    /// Relative tolerance: stop when `‖r‖ <= max(tol·‖b‖, atol)` (default `1e-5`).
    pub tol: f64,
    /// Absolute tolerance (default `0`).
    pub atol: f64,
    /// The most restart cycles (default `10·b.size`), each of at most `restart`
    /// Arnoldi steps.
    pub maxiter: Option<usize>,
    /// The starting guess, of `b`'s type (default zeros).
    pub x0: Option<Tensor>,
    /// The dimension of the Krylov space built before restarting (default 20; at most
    /// `b.size`).
    pub restart: usize,
}

impl Default for GmresOptions {
    fn default() -> GmresOptions {
        GmresOptions { tol: 1e-5, atol: 0.0, maxiter: None, x0: None, restart: 20 }
    }
}

/// What a solver did, as tensors of the trace (`SolveInfo<Array>` once evaluated).
#[derive(Clone, Debug)]
pub struct SolveInfo<L = Tensor> {
    /// Iterations taken (`i32[]`): CG and BiCGStab iterations, GMRES Arnoldi steps
    /// over all restart cycles.
    pub iterations: L,
    /// Applications of the operator (`i32[]`).
    pub matvecs: L,
    /// The final residual norm (of `b`'s dtype): `‖b - A·x‖` computed afresh by GMRES,
    /// the recurrence's residual for CG and BiCGStab.
    pub residual_norm: L,
    /// Whether the residual met the tolerance (`bool[]`).
    pub converged: L,
}

impl<L> Tree<L> for SolveInfo<L> {
    type With<M> = SolveInfo<M>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        f(&self.iterations);
        f(&self.matvecs);
        f(&self.residual_norm);
        f(&self.converged);
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> SolveInfo<M> {
        SolveInfo {
            iterations: f(&self.iterations),
            matvecs: f(&self.matvecs),
            residual_norm: f(&self.residual_norm),
            converged: f(&self.converged),
        }
    }

    fn write_structure(&self, out: &mut String) {
        out.push_str("SolveInfo { iterations: *, matvecs: *, residual_norm: *, converged: * }");
    }
}

/// The operator on flat vectors: reshapes to the right-hand side's shape, applies the
/// user's function and checks what it returns.
pub(crate) struct FlatOperator<'a> {
    matvec: LinearOperator<'a>,
    /// The right-hand side's type, which the operator maps to itself.
    ty: Type,
    n: usize,
    solver: &'static str,
    location: &'static Location<'static>,
}

impl FlatOperator<'_> {
    pub(crate) fn new<'a>(
        matvec: LinearOperator<'a>,
        ty: &Type,
        solver: &'static str,
        location: &'static Location<'static>,
    ) -> FlatOperator<'a> {
        FlatOperator { matvec, ty: ty.clone(), n: ty.shape.iter().product(), solver, location }
    }

    /// `A·v` for a flat `v`, flat.
    pub(crate) fn apply(&self, v: &Tensor) -> Tensor {
        let y = (self.matvec)(&v.reshape(&self.ty.shape));
        if y.error().is_none() && y.ty() != &self.ty {
            // Newton-Krylov's function is not an operator of a linear system.
            let what = if self.solver == "newton_krylov" { "f" } else { "the operator" };
            let message = format!("{}: {what} maps {} to {}; it must return {1}", self.solver, self.ty, y.ty());
            return tracer::fail(self.location, message, Type::new(self.ty.dtype, &[self.n]));
        }
        y.reshape(&[self.n])
    }
}

/// `Σ a·b` of two vectors (a scalar).
pub(crate) fn dot(a: &Tensor, b: &Tensor) -> Tensor {
    (a * b).sum_all()
}

/// The Euclidean norm of a vector.
pub(crate) fn norm(a: &Tensor) -> Tensor {
    dot(a, a).sqrt()
}

/// An `i32[]` constant.
pub(crate) fn int(value: usize) -> Tensor {
    Tensor::full(DType::I32, &[], i32::try_from(value).unwrap_or(i32::MAX))
}

/// Why `b` (and `x0`, and the tolerances) cannot be solved for, if they cannot.
pub(crate) fn check_problem(solver: &str, b: &Tensor, x0: Option<&Tensor>, tol: f64, atol: f64) -> Result<(), String> {
    if !matches!(b.dtype(), DType::F32 | DType::F64) {
        return Err(format!("{solver}: b is {}; the solvers take f32 or f64", b.ty()));
    }
    if let Some(x0) = x0
        && x0.ty() != b.ty()
    {
        return Err(format!("{solver}: x0 is {}, b is {}; they must have one type", x0.ty(), b.ty()));
    }
    if tol.is_nan() || atol.is_nan() || tol < 0.0 || atol < 0.0 {
        return Err(format!("{solver}: tolerances must be at least 0, got tol = {tol}, atol = {atol}"));
    }
    Ok(())
}

/// The results of a solver that could not start: a poisoned `x` recording `message`.
fn failed(ty: &Type, message: String, location: &'static Location<'static>) -> (Tensor, SolveInfo) {
    let x = tracer::fail(location, message, ty.clone());
    let quiet = |ty: Type| tracer::poison_quietly(ty, TraceError::at(location, "a result of a failed solver"));
    let info = SolveInfo {
        iterations: quiet(Type::scalar(DType::I32)),
        matvecs: quiet(Type::scalar(DType::I32)),
        residual_norm: quiet(Type::scalar(ty.dtype)),
        converged: quiet(Type::scalar(DType::Bool)),
    };
    (x, info)
}

/// The stopping threshold `max(tol·‖b‖, atol)` for a flat `b`.
fn threshold(b: &Tensor, tol: f64, atol: f64) -> Tensor {
    (norm(b) * tol).maximum(atol)
}

/// The flat starting point and residual, and the operator applications they took.
fn start(op: &FlatOperator, b: &Tensor, x0: Option<&Tensor>) -> (Tensor, Tensor, usize) {
    match x0 {
        Some(x0) => {
            let x0 = x0.reshape(&[op.n]);
            let r0 = b - &op.apply(&x0);
            (x0, r0, 1)
        }
        None => (b.zeros_like(), b.clone(), 0),
    }
}

/// Checks a solver's arguments, then solves `matvec(x) = b` by running `core` on the
/// flat problem inside a `custom_linear_solve` (its own transpose when `symmetric`;
/// otherwise `core` also solves the transposed system, from zero), giving `x` back in
/// `b`'s shape.
#[allow(clippy::too_many_arguments)] // the solver's name, problem and options, as given
#[track_caller]
fn solve_flat(
    solver: &'static str,
    matvec: LinearOperator,
    b: &Tensor,
    x0: Option<&Tensor>,
    (tol, atol): (f64, f64),
    symmetric: bool,
    location: &'static Location<'static>,
    core: impl Fn(&FlatOperator, &Tensor, Option<&Tensor>, &Tensor) -> (Tensor, SolveInfo),
) -> (Tensor, SolveInfo) {
    if let Err(message) = check_problem(solver, b, x0, tol, atol) {
        return failed(b.ty(), message, location);
    }
    let run = |op: LinearOperator, rhs: &Tensor, x0: Option<&Tensor>| {
        let op = FlatOperator::new(op, rhs.ty(), solver, location);
        let flat = rhs.reshape(&[op.n]);
        let thr = threshold(&flat, tol, atol);
        let (x, info) = core(&op, &flat, x0, &thr);
        (x.reshape(rhs.shape()), info)
    };
    // The operator checked first, so that a wrong type is reported as this solver's.
    let checked = |v: &Tensor| {
        let op = FlatOperator::new(matvec, b.ty(), solver, location);
        op.apply(&v.reshape(&[op.n])).reshape(b.shape())
    };
    let solve = |op: LinearOperator, rhs: &Tensor| run(op, rhs, x0);
    let transposed = |op: LinearOperator, rhs: &Tensor| run(op, rhs, None).0;
    let transpose_solve: Option<crate::implicit::LinearSolver> = (!symmetric).then_some(&transposed);
    crate::implicit::custom_linear_solve_with_aux(checked, b, &solve, transpose_solve, symmetric)
}

/// The default iteration bound `10·n`.
fn default_maxiter(maxiter: Option<usize>, n: usize) -> usize {
    maxiter.unwrap_or_else(|| n.saturating_mul(10))
}

/// Conjugate gradients for a symmetric positive definite operator (as
/// `jax.scipy.sparse.linalg.cg`, without a preconditioner).
///
/// ```
/// use ferrax::solve::{SolveOptions, cg};
/// use ferrax::{Array, Tensor};
/// let a = Array::from_f64(&[2, 2], vec![4.0, 1.0, 1.0, 3.0]).unwrap();
/// let b = Array::from(vec![1.0f64, 2.0]);
/// let solve = |(a, b): (Tensor, Tensor)| {
///     let options = SolveOptions { tol: 1e-12, ..SolveOptions::default() };
///     cg(&|x: &Tensor| a.matmul(x), &b, &options).0
/// };
/// let x = ferrax::eval(solve, &(a, b)).unwrap().to_f64_vec();
/// assert!((x[0] - 1.0 / 11.0).abs() < 1e-12 && (x[1] - 7.0 / 11.0).abs() < 1e-12);
/// ```
#[track_caller]
pub fn cg(matvec: LinearOperator, b: &Tensor, options: &SolveOptions) -> (Tensor, SolveInfo) {
    let tolerances = (options.tol, options.atol);
    let maxiter = options.maxiter;
    solve_flat("cg", matvec, b, options.x0.as_ref(), tolerances, true, Location::caller(), |op, b, x0, thr| {
        cg_flat(op, b, x0, thr, default_maxiter(maxiter, op.n))
    })
}

/// [`cg`] on a flat problem with a threshold tensor.
fn cg_flat(op: &FlatOperator, b: &Tensor, x0: Option<&Tensor>, thr: &Tensor, maxiter: usize) -> (Tensor, SolveInfo) {
    let (x, r, started) = start(op, b, x0);
    let rr = dot(&r, &r);
    let thr2 = thr * thr;
    let init = (x, r.clone(), r, rr, int(0));
    let (x, _, _, rr, k) = while_loop(
        |(_, _, _, rr, k): (Tensor, Tensor, Tensor, Tensor, Tensor)| rr.gt(&thr2).and(k.lt(int(maxiter))),
        |(x, r, p, rr, k)| {
            let ap = op.apply(&p);
            let alpha = &rr / &dot(&p, &ap);
            let x = &x + &(&alpha * &p);
            let r = &r - &(&alpha * &ap);
            let rr_next = dot(&r, &r);
            let p = &r + &(&(&rr_next / &rr) * &p);
            (x, r, p, rr_next, k + 1)
        },
        &init,
        None,
    );
    let info = SolveInfo {
        matvecs: &k + i32::try_from(started).unwrap_or(0),
        iterations: k,
        residual_norm: rr.sqrt(),
        converged: rr.le(&thr2),
    };
    (x, info)
}

/// The stabilised biconjugate gradient method for a general (nonsymmetric) operator
/// (as `jax.scipy.sparse.linalg.bicgstab`, without a preconditioner). Each iteration
/// applies the operator twice. A breakdown (`ρ = 0`, `ω = 0` or `α = 0`) stops the
/// iterations with `converged` false unless the residual already met the tolerance.
#[track_caller]
pub fn bicgstab(matvec: LinearOperator, b: &Tensor, options: &SolveOptions) -> (Tensor, SolveInfo) {
    let tolerances = (options.tol, options.atol);
    let maxiter = options.maxiter;
    solve_flat("bicgstab", matvec, b, options.x0.as_ref(), tolerances, false, Location::caller(), |op, b, x0, thr| {
        bicgstab_flat(op, b, x0, thr, default_maxiter(maxiter, op.n))
    })
}

type Vectors = (Tensor, Tensor, Tensor, Tensor);
type Scalars = (Tensor, Tensor, Tensor);

/// [`bicgstab`] on a flat problem with a threshold tensor.
fn bicgstab_flat(
    op: &FlatOperator,
    b: &Tensor,
    x0: Option<&Tensor>,
    thr: &Tensor,
    maxiter: usize,
) -> (Tensor, SolveInfo) {
    let (x, r, started) = start(op, b, x0);
    let rhat = r.clone();
    let one = Tensor::ones(b.dtype(), &[]);
    let init = ((x, r, b.zeros_like(), b.zeros_like()), (one.clone(), one.clone(), one), int(0), false_());
    let ((x, r, _, _), _, k, _) = while_loop(
        |((_, r, _, _), _, k, broken): (Vectors, Scalars, Tensor, Tensor)| {
            norm(&r).gt(thr).and(k.lt(int(maxiter))).and(broken.not())
        },
        |((x, r, p, q), (alpha, omega, rho), k, _)| {
            let rho_next = dot(&rhat, &r);
            let beta = &(&rho_next / &rho) * &(&alpha / &omega);
            let p = &r + &(&beta * &(&p - &(&omega * &q)));
            let q = op.apply(&p);
            let alpha = &rho_next / &dot(&rhat, &q);
            let s = &r - &(&alpha * &q);
            // A small enough `s` ends the iterations with the half step.
            let early = norm(&s).le(thr);
            let t = op.apply(&s);
            let omega = &dot(&t, &s) / &dot(&t, &t);
            let half = &x + &(&alpha * &p);
            let x = where_(&early, &half, &half + &(&omega * &s));
            let r = where_(&early, &s, &s - &(&omega * &t));
            let broken = rho_next.eq_(0.0).or(alpha.eq_(0.0)).or(omega.eq_(0.0).and(early.not()));
            ((x, r, p, q), (alpha, omega, rho_next), k + 1, broken)
        },
        &init,
        None,
    );
    let residual = norm(&r);
    let info = SolveInfo {
        matvecs: &(&k * 2) + i32::try_from(started).unwrap_or(0),
        iterations: k,
        converged: residual.le(thr),
        residual_norm: residual,
    };
    (x, info)
}

/// A `bool[]` false.
fn false_() -> Tensor {
    Tensor::zeros(DType::Bool, &[])
}

/// Restarted GMRES for a general operator (as `jax.scipy.sparse.linalg.gmres` with
/// `solve_method='incremental'`, without a preconditioner): each cycle builds an
/// orthonormal Krylov basis of at most `restart` vectors by the Arnoldi process with
/// modified Gram-Schmidt, reduces the Hessenberg matrix to triangular form by Givens
/// rotations as it grows (so the residual norm of the least-squares problem is known
/// at every step and a cycle ends early once it meets the tolerance), then updates `x`
/// and recomputes the true residual `b - A·x` for the next cycle's start.
///
/// `info.iterations` counts Arnoldi steps over all cycles; every cycle applies the
/// operator once per step and once for its true residual.
///
/// ```
/// use ferrax::solve::{GmresOptions, gmres};
/// use ferrax::{Array, Tensor};
/// let a = Array::from_f64(&[3, 3], vec![3.0, 1.0, 0.0, -1.0, 2.0, 1.0, 0.0, 2.0, 4.0]).unwrap();
/// let b = Array::from(vec![1.0f64, 0.0, 2.0]);
/// let solve = |(a, b): (Tensor, Tensor)| {
///     let options = GmresOptions { tol: 1e-12, restart: 2, ..GmresOptions::default() };
///     let (x, info) = gmres(&|x: &Tensor| a.matmul(x), &b, &options);
///     (a.matmul(&x), info.converged)
/// };
/// let (ax, converged) = ferrax::eval(solve, &(a, b)).unwrap();
/// assert_eq!(converged.to_f64_vec(), [1.0]);
/// for (got, want) in ax.to_f64_vec().iter().zip([1.0, 0.0, 2.0]) {
///     assert!((got - want).abs() < 1e-10);
/// }
/// ```
#[track_caller]
pub fn gmres(matvec: LinearOperator, b: &Tensor, options: &GmresOptions) -> (Tensor, SolveInfo) {
    let location = Location::caller();
    if options.restart == 0 {
        return failed(b.ty(), "gmres: restart must be at least 1".into(), location);
    }
    let tolerances = (options.tol, options.atol);
    let (maxiter, restart) = (options.maxiter, options.restart);
    solve_flat("gmres", matvec, b, options.x0.as_ref(), tolerances, false, location, |op, b, x0, thr| {
        gmres_flat(op, b, x0, thr, restart, default_maxiter(maxiter, op.n))
    })
}

/// [`gmres`] on a flat problem with a threshold tensor; `restart >= 1`.
pub(crate) fn gmres_flat(
    op: &FlatOperator,
    b: &Tensor,
    x0: Option<&Tensor>,
    thr: &Tensor,
    restart: usize,
    maxiter: usize,
) -> (Tensor, SolveInfo) {
    let m = restart.min(op.n).max(1);
    let (x, r, started) = start(op, b, x0);
    let rnorm = norm(&r);
    let init = (x, r, rnorm, int(0), int(0), int(started));
    let (x, _, rnorm, steps, _, matvecs) = while_loop(
        |(_, _, rnorm, _, cycles, _): (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)| {
            rnorm.gt(thr).and(cycles.lt(int(maxiter)))
        },
        |(x, r, rnorm, steps, cycles, matvecs)| {
            let (dx, taken) = arnoldi_cycle(op, &r, &rnorm, thr, m);
            let x = &x + &dx;
            let r = b - &op.apply(&x);
            let rnorm = norm(&r);
            (x, r, rnorm, &steps + &taken, cycles + 1, &(&matvecs + &taken) + 1)
        },
        &init,
        None,
    );
    let info = SolveInfo { iterations: steps, matvecs, converged: rnorm.le(thr), residual_norm: rnorm };
    (x, info)
}

/// Row `row` (an `i32[]`) of a matrix, as a vector.
fn row_of(matrix: &Tensor, row: &Tensor) -> Tensor {
    let n = matrix.shape()[1];
    matrix.dynamic_slice(&[row.clone(), int(0)], &[1, n]).reshape(&[n])
}

/// Element `k` (an `i32[]`) of a vector, as a scalar.
fn element(vector: &Tensor, k: &Tensor) -> Tensor {
    vector.dynamic_slice(std::slice::from_ref(k), &[1]).reshape(&[])
}

/// `vector` with elements `k` and `k + 1` replaced by `a` and `b`.
fn set_pair(vector: &Tensor, k: &Tensor, a: &Tensor, b: &Tensor) -> Tensor {
    vector.dynamic_update_slice(&stack(&[a.clone(), b.clone()], 0), std::slice::from_ref(k))
}

/// One GMRES cycle from the residual `r` (of norm `beta > thr`): at most `m` Arnoldi
/// steps, stopping once the least-squares residual is at most `thr`. Returns the update
/// of `x` and the number of steps taken (`i32[]`).
fn arnoldi_cycle(op: &FlatOperator, r: &Tensor, beta: &Tensor, thr: &Tensor, m: usize) -> (Tensor, Tensor) {
    let n = op.n;
    let dtype = r.dtype();
    let zero = int(0);
    // The basis V (rows v_0..v_m), R's columns as rows (R is upper triangular, built a
    // column per step), the rotated right-hand side g = Qᵀ·(β e_0), and the rotations.
    let basis = Tensor::zeros(dtype, &[m + 1, n]).dynamic_update_slice(&(r / beta).reshape(&[1, n]), &[int(0), int(0)]);
    let g = Tensor::zeros(dtype, &[m + 1]).dynamic_update_slice(&beta.reshape(&[1]), &[int(0)]);
    let columns = Tensor::zeros(dtype, &[m, m]);
    let (cs, sn) = (Tensor::zeros(dtype, &[m]), Tensor::zeros(dtype, &[m]));
    let init = (basis, columns, g, cs, sn, zero.clone(), beta.clone());
    type Cycle = (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor);
    let (basis, columns, g, _, _, steps, _) = while_loop(
        |(_, _, _, _, _, k, estimate): Cycle| k.lt(int(m)).and(estimate.gt(thr)),
        |(basis, columns, g, cs, sn, k, _)| {
            let w = op.apply(&row_of(&basis, &k));
            // Modified Gram-Schmidt against v_0..v_k.
            let (w, h, _) = while_loop(
                |(_, _, j): (Tensor, Tensor, Tensor)| j.le(&k),
                |(w, h, j)| {
                    let v = row_of(&basis, &j);
                    let hj = dot(&w, &v);
                    let w = &w - &(&hj * &v);
                    let h = h.dynamic_update_slice(&hj.reshape(&[1]), std::slice::from_ref(&j));
                    (w, h, j + 1)
                },
                &(w, Tensor::zeros(dtype, &[m + 1]), zero.clone()),
                None,
            );
            let next_norm = norm(&w);
            // A zero norm is a lucky breakdown: the solution is in the basis already,
            // and the zero row keeps the basis free of NaNs.
            let divisor = where_(&next_norm.gt(0.0), &next_norm, 1.0);
            let k1 = &k + 1;
            let basis = basis.dynamic_update_slice(&(&w / &divisor).reshape(&[1, n]), &[k1.clone(), zero.clone()]);
            let h = h.dynamic_update_slice(&next_norm.reshape(&[1]), std::slice::from_ref(&k1));
            // The earlier rotations, in order, on the new column.
            let (h, _) = while_loop(
                |(_, l): (Tensor, Tensor)| l.lt(&k),
                |(h, l)| {
                    let (a, b) = (element(&h, &l), element(&h, &(&l + 1)));
                    let (c, s) = (element(&cs, &l), element(&sn, &l));
                    let rotated = set_pair(&h, &l, &(&(&c * &a) + &(&s * &b)), &(&(&c * &b) - &(&s * &a)));
                    (rotated, l + 1)
                },
                &(h, zero.clone()),
                None,
            );
            // A new rotation zeroing h[k+1].
            let (a, b) = (element(&h, &k), element(&h, &k1));
            let rho = (&(&a * &a) + &(&b * &b)).sqrt();
            let nonzero = rho.gt(0.0);
            let safe = where_(&nonzero, &rho, 1.0);
            let c = where_(&nonzero, &a / &safe, 1.0);
            let s = where_(&nonzero, &b / &safe, 0.0);
            let h = set_pair(&h, &k, &rho, &rho.zeros_like());
            let gk = element(&g, &k);
            let g = set_pair(&g, &k, &(&c * &gk), &-(&s * &gk));
            let cs = cs.dynamic_update_slice(&c.reshape(&[1]), std::slice::from_ref(&k));
            let sn = sn.dynamic_update_slice(&s.reshape(&[1]), std::slice::from_ref(&k));
            let column = h.slice(&[s_range(m)]).reshape(&[1, m]);
            let columns = columns.dynamic_update_slice(&column, &[k.clone(), zero.clone()]);
            let estimate = (&s * &gk).abs();
            (basis, columns, g, cs, sn, k1, estimate)
        },
        &init,
        None,
    );
    // Solve R·y = g over the steps taken: the unused trailing block of R becomes the
    // identity and g's tail zeros, so y's tail is zero.
    let unused = iota(DType::I32, &[m], 0).ge(&steps);
    let diagonal = iota(DType::I32, &[m, m], 0).eq_(iota(DType::I32, &[m, m], 1)).and(unused.broadcast_to(&[m, m]));
    let r_matrix = &columns.transpose() + &diagonal.cast(dtype);
    let rhs = where_(&unused, 0.0, g.slice(&[s_range(m)]));
    let y = linalg::solve_triangular(&r_matrix, &rhs, false);
    let dx = y.matmul(&basis.slice(&[s_range(m), s(..)]));
    (dx, steps)
}

/// The first `m` positions of an axis.
fn s_range(m: usize) -> crate::ops::index::Idx {
    s(0..i64::try_from(m).unwrap_or(i64::MAX))
}
