//! Jacobian-free Newton-Krylov root finding: [`newton_krylov`].

use super::{FlatOperator, GmresOptions, check_problem, gmres, gmres_flat, int, norm};
use crate::Tensor;
use crate::control::while_loop;
use crate::ops::compare::where_;
use crate::tracer::{self, TraceError};
use crate::transforms::jvp;
use crate::tree::Tree;
use ferrax_ir::{DType, Type};
use std::panic::Location;

/// How tightly each Newton step's linear system `J·dx = -F` is solved: GMRES stops at
/// a residual of `η_k·‖F(x_k)‖`, the forcing term `η_k` chosen here.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Forcing {
    /// The same `η` at every step: convergence is linear with rate about `η` near the
    /// root.
    Constant(f64),
    /// `η_k = clamp(‖F(x_k)‖ / ‖F(x_0)‖, min, max)`: loose solves far from the root,
    /// and `η_k` proportional to the residual near it, which keeps Newton's quadratic
    /// convergence (Dembo, Eisenstat and Steihaug) until `min`, a floor at which
    /// rounding would keep GMRES from ever meeting the tolerance.
    Quadratic {
        /// The largest `η` (the loosest solve).
        max: f64,
        /// The smallest `η`.
        min: f64,
    },
}

/// Options of [`newton_krylov`] ([`NewtonOptions::default`] gives the values below).
#[derive(Clone, Debug)]
pub struct NewtonOptions {
    /// Stop when `‖F(x)‖ <= max(tol·‖F(x0)‖, atol)` (default `1e-8`).
    pub tol: f64,
    /// Absolute tolerance (default `0`).
    pub atol: f64,
    /// The most Newton steps (default 50); also the length of the residual history.
    pub max_steps: usize,
    /// The forcing term of the linear solves (default `Quadratic { max: 0.1, min: 1e-10 }`).
    pub forcing: Forcing,
    /// GMRES's restart length (default 30).
    pub restart: usize,
    /// The most GMRES restart cycles per Newton step (default 20).
    pub linear_maxiter: usize,
    /// The most halvings of the step in the line search (default 20).
    pub max_backtracks: usize,
    /// The line search accepts step length `t` when `‖F(x + t·dx)‖ <= (1 - c·t)·‖F(x)‖`
    /// for this `c` (default `1e-4`).
    pub sufficient_decrease: f64,
}

impl Default for NewtonOptions {
    fn default() -> NewtonOptions {
        NewtonOptions {
            tol: 1e-8,
            atol: 0.0,
            max_steps: 50,
            forcing: Forcing::Quadratic { max: 0.1, min: 1e-10 },
            restart: 30,
            linear_maxiter: 20,
            max_backtracks: 20,
            sufficient_decrease: 1e-4,
        }
    }
}

/// What [`newton_krylov`] did, as tensors (`NewtonInfo<Array>` once evaluated).
#[derive(Clone, Debug)]
pub struct NewtonInfo<L = Tensor> {
    /// Newton steps taken (`i32[]`).
    pub steps: L,
    /// `‖F(x)‖` at the returned `x`.
    pub residual_norm: L,
    /// `‖F(x_k)‖` for `k = 0..=max_steps` (`[max_steps + 1]`): the entries after
    /// `steps` are NaN.
    pub residual_history: L,
    /// Jacobian-vector products over all steps (`i32[]`).
    pub jvps: L,
    /// Jacobian-vector products of each step (`i32[max_steps]`, zeros after `steps`).
    pub jvp_history: L,
    /// Whether `‖F(x)‖` met the tolerance (`bool[]`).
    pub converged: L,
    /// Whether the iterations stopped because a Newton step could not reduce `‖F‖`
    /// (`bool[]`): the line search found no decrease, as at the rounding floor of the
    /// dtype or where the Jacobian is singular.
    pub stalled: L,
}

impl<L> Tree<L> for NewtonInfo<L> {
    type With<M> = NewtonInfo<M>;

    fn for_each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a L)) {
        f(&self.steps);
        f(&self.residual_norm);
        f(&self.residual_history);
        f(&self.jvps);
        f(&self.jvp_history);
        f(&self.converged);
        f(&self.stalled);
    }

    fn map_leaves<M>(&self, f: &mut dyn FnMut(&L) -> M) -> NewtonInfo<M> {
        NewtonInfo {
            steps: f(&self.steps),
            residual_norm: f(&self.residual_norm),
            residual_history: f(&self.residual_history),
            jvps: f(&self.jvps),
            jvp_history: f(&self.jvp_history),
            converged: f(&self.converged),
            stalled: f(&self.stalled),
        }
    }

    fn write_structure(&self, out: &mut String) {
        out.push_str(
            "NewtonInfo { steps: *, residual_norm: *, residual_history: *, jvps: *, jvp_history: *, \
             converged: *, stalled: * }",
        );
    }
}

/// Why the options cannot be used, if they cannot.
fn check_options(options: &NewtonOptions) -> Result<(), String> {
    let (lo, hi) = match options.forcing {
        Forcing::Constant(eta) => (eta, eta),
        Forcing::Quadratic { max, min } => (min, max),
    };
    if lo.is_nan() || hi.is_nan() || lo < 0.0 || hi < lo || hi >= 1.0 {
        return Err(format!("newton_krylov: the forcing terms must satisfy 0 <= min <= max < 1, got {lo} and {hi}"));
    }
    // Steps are counted, and the history indexed, by i32 tensors.
    if i32::try_from(options.max_steps).is_err() {
        return Err(format!("newton_krylov: max_steps is {}, at most {} are supported", options.max_steps, i32::MAX));
    }
    if options.restart == 0 {
        return Err("newton_krylov: restart must be at least 1".into());
    }
    let c = options.sufficient_decrease;
    if !(0.0..1.0).contains(&c) {
        return Err(format!("newton_krylov: sufficient_decrease must be in [0, 1), got {c}"));
    }
    Ok(())
}

/// Solves `f(x) = 0` by Newton's method without forming the Jacobian (JFNK): each step
/// solves `J·dx = -F(x)` approximately by restarted [`gmres`](super::gmres), whose
/// operator is the Jacobian-vector product `v ↦ J·v` of forward mode
/// (`transforms::jvp(f)` at `x`), then takes the longest step `x + t·dx`,
/// `t = 1, 1/2, 1/4, ...`, that decreases `‖F‖` enough (backtracking on `‖F‖`).
///
/// `f` maps tensors of `x0`'s type (f32 or f64, any shape) to the same type. The
/// iterations are a [`while_loop`] of Newton steps with GMRES's loops inside: the
/// whole solver is one traced function, run by `eval`, compiled by `jit`. Returns the
/// last iterate and a [`NewtonInfo`] with the residual norm of every step.
///
/// The root is differentiable with respect to what `f` closes over (parameters of the
/// equation): it is a `custom_root`, whose derivative is the implicit function
/// theorem's, `dx = -J⁻¹·(∂f/∂p)·dp`, with `J·dx = rhs` solved by GMRES on jvp products
/// (to the Newton tolerance, with the same restart and cycle bound), never through the
/// Newton iterations. The derivative is that of the exact root: meaningful when the
/// solver converged. The [`NewtonInfo`] has no derivative.
///
/// ```
/// use ferrax::solve::{NewtonOptions, newton_krylov};
/// use ferrax::{Array, Tensor};
/// // x^3 = 8 and y + x = 3, elementwise over two components.
/// let f = |v: &Tensor| {
///     let x = v.slice(&[ferrax::i(0)]);
///     let y = v.slice(&[ferrax::i(1)]);
///     ferrax::stack(&[x.powi(3) - 8.0, &y + &x - 3.0], 0)
/// };
/// let solve = |x0: Tensor| {
///     let (x, info) = newton_krylov(&f, &x0, &NewtonOptions { tol: 1e-12, ..NewtonOptions::default() });
///     (x, info.converged)
/// };
/// let (x, converged) = ferrax::eval(solve, &Array::from(vec![1.0f64, 0.0])).unwrap();
/// assert_eq!(converged.to_f64_vec(), [1.0]);
/// assert!((x.to_f64_vec()[0] - 2.0).abs() < 1e-10 && (x.to_f64_vec()[1] - 1.0).abs() < 1e-10);
/// ```
#[track_caller]
pub fn newton_krylov(f: &dyn Fn(&Tensor) -> Tensor, x0: &Tensor, options: &NewtonOptions) -> (Tensor, NewtonInfo) {
    let location = Location::caller();
    let checked =
        check_problem("newton_krylov", x0, None, options.tol, options.atol).and_then(|()| check_options(options));
    if let Err(message) = checked {
        return failed(x0.ty(), message, options.max_steps, location);
    }
    // F checked first, so that a wrong type is reported as newton_krylov's.
    let checked_f = |x: &Tensor| {
        let op = FlatOperator::new(f, x0.ty(), "newton_krylov", location);
        op.apply(&x.reshape(&[op.n])).reshape(x0.shape())
    };
    let solve = |f: &dyn Fn(&Tensor) -> Tensor, x0: &Tensor| newton_steps(f, x0, options, location);
    // The root's derivative: J·dx = rhs by GMRES on jvp products (`g`), itself
    // differentiable (gmres is a custom_linear_solve), as tight as the Newton tolerance.
    let gmres_options = GmresOptions {
        tol: options.tol,
        atol: 0.0,
        maxiter: Some(options.linear_maxiter),
        x0: None,
        restart: options.restart,
    };
    let tangent_solve = |g: &dyn Fn(&Tensor) -> Tensor, rhs: &Tensor| gmres(g, rhs, &gmres_options).0;
    crate::implicit::custom_root_with_aux(checked_f, x0, &solve, &tangent_solve)
}

/// The Newton iterations of [`newton_krylov`] (the solver its `custom_root` runs).
fn newton_steps(
    f: &dyn Fn(&Tensor) -> Tensor,
    x0: &Tensor,
    options: &NewtonOptions,
    location: &'static Location<'static>,
) -> (Tensor, NewtonInfo) {
    let ty = x0.ty().clone();
    let dtype = ty.dtype;
    // F on flat vectors, checked to return x0's type.
    let residual = FlatOperator::new(f, &ty, "newton_krylov", location);
    let n = residual.n;
    let x = x0.reshape(&[n]);
    let fx = residual.apply(&x);
    let fnorm0 = norm(&fx);
    let thr = (&fnorm0 * options.tol).maximum(options.atol);
    let steps = options.max_steps;
    let history = Tensor::full(dtype, &[steps.saturating_add(1)], f64::NAN)
        .dynamic_update_slice(&fnorm0.reshape(&[1]), &[int(0)]);
    let jvp_history = Tensor::zeros(DType::I32, &[steps]);
    let init = (x, fx, fnorm0.clone(), int(0), int(0), history, jvp_history, Tensor::zeros(DType::Bool, &[]));
    type Carry = (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor);
    let (x, _, fnorm, k, jvps, history, jvp_history, stalled) = while_loop(
        |(_, _, fnorm, k, _, _, _, stalled): Carry| fnorm.gt(&thr).and(k.lt(int(steps))).and(stalled.not()),
        |(x, fx, fnorm, k, jvps, history, jvp_history, _)| {
            let eta = match options.forcing {
                Forcing::Constant(eta) => Tensor::full(dtype, &[], eta),
                Forcing::Quadratic { max, min } => (&fnorm / &fnorm0).clamp(min, max),
            };
            // J·v at x by forward mode: x is this body's carry, captured by GMRES's loops.
            let tangent = |v: &Tensor| jvp(|u: Tensor| residual.apply(&u)).apply(&x, v).1;
            let jacobian = FlatOperator::new(&tangent, &Type::new(dtype, &[n]), "newton_krylov", location);
            let rhs = -&fx;
            let linear_thr = &eta * &fnorm;
            let (dx, info) = gmres_flat(&jacobian, &rhs, None, &linear_thr, options.restart, options.linear_maxiter);
            let (x, fx, fnorm_next, decreased) = line_search(&residual, (&x, &fx, &fnorm), &dx, options);
            let at = std::slice::from_ref(&k);
            let k1 = &k + 1;
            let history = history.dynamic_update_slice(&fnorm_next.reshape(&[1]), std::slice::from_ref(&k1));
            let jvp_history = jvp_history.dynamic_update_slice(&info.matvecs.reshape(&[1]), at);
            (x, fx, fnorm_next, k1, &jvps + &info.matvecs, history, jvp_history, decreased.not())
        },
        &init,
        None,
    );
    let info = NewtonInfo {
        steps: k,
        converged: fnorm.le(&thr),
        residual_norm: fnorm,
        residual_history: history,
        jvps,
        jvp_history,
        stalled,
    };
    (x.reshape(&ty.shape), info)
}

/// Backtracking from the full step: the new point, its `F` and `‖F‖`, and whether
/// `‖F‖` decreased at all (when it did not, the point stays `x`).
fn line_search(
    residual: &FlatOperator,
    (x, fx, fnorm): (&Tensor, &Tensor, &Tensor),
    dx: &Tensor,
    options: &NewtonOptions,
) -> (Tensor, Tensor, Tensor, Tensor) {
    let c = options.sufficient_decrease;
    let one = Tensor::ones(x.dtype(), &[]);
    let trial = x + dx;
    let f_trial = residual.apply(&trial);
    let init = (one, trial, f_trial.clone(), norm(&f_trial), int(0));
    let (_, trial, f_trial, fn_trial, _) = while_loop(
        |(t, _, _, fn_trial, halvings): (Tensor, Tensor, Tensor, Tensor, Tensor)| {
            // NaN (an overflowing trial point) is no decrease either.
            let bound = &(1.0 - &(&t * c)) * fnorm;
            fn_trial.le(&bound).not().and(halvings.lt(int(options.max_backtracks)))
        },
        |(t, _, _, _, halvings)| {
            let t = &t * 0.5;
            let trial = x + &(&t * dx);
            let f_trial = residual.apply(&trial);
            let fn_trial = norm(&f_trial);
            (t, trial, f_trial, fn_trial, halvings + 1)
        },
        &init,
        None,
    );
    let decreased = fn_trial.lt(fnorm);
    let x = where_(&decreased, &trial, x);
    let fx = where_(&decreased, &f_trial, fx);
    let fnorm = where_(&decreased, &fn_trial, fnorm);
    (x, fx, fnorm, decreased)
}

/// The results of a Newton solve that could not start: a poisoned `x` recording
/// `message`.
fn failed(ty: &Type, message: String, steps: usize, location: &'static Location<'static>) -> (Tensor, NewtonInfo) {
    let x = tracer::fail(location, message, ty.clone());
    let quiet = |ty: Type| tracer::poison_quietly(ty, TraceError::at(location, "a result of a failed newton_krylov"));
    let info = NewtonInfo {
        steps: quiet(Type::scalar(DType::I32)),
        residual_norm: quiet(Type::scalar(ty.dtype)),
        residual_history: quiet(Type::new(ty.dtype, &[steps.saturating_add(1)])),
        jvps: quiet(Type::scalar(DType::I32)),
        jvp_history: quiet(Type::new(DType::I32, &[steps])),
        converged: quiet(Type::scalar(DType::Bool)),
        stalled: quiet(Type::scalar(DType::Bool)),
    };
    (x, info)
}
