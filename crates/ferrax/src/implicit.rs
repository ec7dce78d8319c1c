//! Implicit differentiation from closures: [`custom_linear_solve`] and [`custom_root`],
//! `jax.lax`'s functions of the same names.
//!
//! Each traces its closures, inside the open trace, into Funcs of the module being
//! built and emits one `custom_linear_solve` or `custom_root` equation (their text form
//! and rules are in `ir/README.md`). Evaluation, `jit` and `vmap` run the solver; the
//! derivatives are those of the exact solution, by the implicit function theorem, and
//! never differentiate the solver's iterations: a Krylov method or a Newton loop can be
//! stopped early, run in a `while_loop` without `max_iters`, and still give the
//! derivative of the solution it approximates at the price of one more solve.
//!
//! The unknowns are one tensor (of any shape and float dtype); a system over several
//! tensors is written over their concatenation. Tensors of the enclosing trace that the
//! closures use (a matrix, a model's parameters) become the equation's consts, passed
//! first to every Func, and are differentiated through the matvec (or `f`), never
//! through the solver.

use crate::Tensor;
use crate::control::{Body, align_captures, poisoned_like, rebuild, register, trace_flat_body, union_of_captures};
use crate::tracer::{TraceError, emit};
use crate::transforms::{jvp, vjp};
use crate::tree::Tree;
use ferrax_ir::prim::{LinearSolveParams, RootParams};
use ferrax_ir::{Func, Prim, Type};
use std::panic::Location;

/// A solver of the linear system `matvec(x) = b`, given the operator and `b`.
pub type LinearSolver<'a> = &'a dyn Fn(&dyn Fn(&Tensor) -> Tensor, &Tensor) -> Tensor;

/// The solution `x` of `matvec(x) = b` computed by `solve(matvec, b)`, differentiated
/// implicitly, like `jax.lax.custom_linear_solve`.
///
/// `matvec` must be linear in its argument and return `b`'s type. `solve` gets the
/// operator (it may call it) and a right-hand side. `transpose_solve(vecmat, b)` solves
/// the transposed system, where `vecmat` is the operator's transpose (built by reverse
/// mode from `matvec`); reverse mode needs it unless `symmetric` says the operator is
/// its own transpose, and then `solve` serves for both. Forward mode needs neither.
///
/// The tangent is `solve(db - (∂matvec/∂consts)·dconsts)` and the cotangent one
/// `transpose_solve`, so the derivative is exact for the exact solution however the
/// solver gets there.
///
/// ```
/// use ferrax::{Array, Tensor, grad, implicit::custom_linear_solve};
///
/// // x = b / 4 by a "solver" that knows the operator is 4·x; d(sum x)/db = 1/4.
/// let f = |b: Tensor| {
///     let solve = |_: &dyn Fn(&Tensor) -> Tensor, b: &Tensor| b * 0.25;
///     custom_linear_solve(|x: &Tensor| x * 4.0, &b, &solve, None, true).sum_all()
/// };
/// let g = grad(f).call(&Array::from(vec![1.0f64, 2.0])).unwrap();
/// assert_eq!(g.to_f64_vec(), [0.25, 0.25]);
/// ```
#[track_caller]
pub fn custom_linear_solve(
    matvec: impl Fn(&Tensor) -> Tensor,
    b: &Tensor,
    solve: LinearSolver<'_>,
    transpose_solve: Option<LinearSolver<'_>>,
    symmetric: bool,
) -> Tensor {
    let with_unit = |m: &dyn Fn(&Tensor) -> Tensor, r: &Tensor| (solve(m, r), ());
    custom_linear_solve_with_aux(matvec, b, &with_unit, transpose_solve, symmetric).0
}

/// A solver that also returns auxiliary results `A` (diagnostics: an iteration count,
/// a residual norm), which have no derivative.
pub type LinearSolverWithAux<'a, A> = &'a dyn Fn(&dyn Fn(&Tensor) -> Tensor, &Tensor) -> (Tensor, A);

/// [`custom_linear_solve`] whose `solve` also returns auxiliary results (any
/// [`Tree`] of tensors, returned beside the solution without a derivative), like
/// `jax.lax.custom_linear_solve(..., has_aux=True)`; `transpose_solve` returns the
/// solution only.
#[track_caller]
pub fn custom_linear_solve_with_aux<A: Tree<Tensor>>(
    matvec: impl Fn(&Tensor) -> Tensor,
    b: &Tensor,
    solve: LinearSolverWithAux<'_, A>,
    transpose_solve: Option<LinearSolver<'_>>,
    symmetric: bool,
) -> (Tensor, A::With<Tensor>) {
    let location = Location::caller();
    let ty = b.ty().clone();
    let matvec_body = traced(("linear_solve_matvec", "custom_linear_solve: matvec"), &ty, |p| matvec(&p[0]), location);
    let s = trace_flat_body("linear_solve", std::slice::from_ref(&ty), |p| solve(&matvec, &p[0]), location);
    let (mut s_func, s_captured, aux_template) = match s {
        Ok(Body { func, out: (_, aux), captured }) => (func, captured, aux),
        Err(((x, aux), error)) => return poisoned_like(&(x, aux), error, location),
    };
    let bodies = (|| {
        let m = matvec_body?;
        check_type(
            "custom_linear_solve: solve",
            &s_func.result_types[..s_func.result_types.len().min(1)],
            &ty,
            location,
        )?;
        let t = match (transpose_solve, symmetric) {
            (Some(t), false) => {
                let vecmat = |y: &Tensor| transpose_of(&matvec, y);
                let names = ("linear_solve_transpose", "custom_linear_solve: transpose_solve");
                Some(traced(names, &ty, |p| t(&vecmat, &p[0]), location)?)
            }
            (Some(_), true) | (None, _) => None,
        };
        Ok::<_, TraceError>((m, t))
    })();
    let (mut m, mut t) = match bodies {
        Ok(bodies) => bodies,
        Err(error) => return poisoned_like(&(b.clone(), aux_template), error, location),
    };
    let mut all: Vec<(&mut Func, &[Tensor], usize)> =
        vec![(&mut m.func, &m.captured, 1), (&mut s_func, &s_captured, 1)];
    all.extend(t.as_mut().map(|t| (&mut t.func, &t.captured[..], 1)));
    let union = consts_first(&mut all);
    let params = LinearSolveParams {
        matvec: m.func.name.clone(),
        solve: s_func.name.clone(),
        transpose_solve: t.as_ref().map(|t| t.func.name.clone()),
        symmetric,
        num_consts: union.len(),
    };
    let funcs = [Some(m.func), Some(s_func), t.map(|t| t.func)];
    let prim = Prim::custom_linear_solve(params);
    emit_solve(prim, funcs.into_iter().flatten().collect(), &union, b, aux_template, location)
}

/// Registers the traced Funcs (the solver's second: its results give the equation's
/// types) and emits `prim(consts..., operand)`, rebuilt as `(solution, aux)`.
fn emit_solve<A: Tree<Tensor>>(
    prim: Prim,
    funcs: Vec<Func>,
    consts: &[Tensor],
    operand: &Tensor,
    aux: A,
    location: &'static Location<'static>,
) -> (Tensor, A::With<Tensor>) {
    let fallback = funcs.get(1).map(|s| s.result_types.clone()).unwrap_or_default();
    funcs.into_iter().for_each(register);
    let mut inputs: Vec<&Tensor> = consts.iter().collect();
    inputs.push(operand);
    let outputs = emit(prim, &inputs, location, &fallback);
    rebuild(&(operand.clone(), aux), outputs, location)
}

/// A root `x` of `f` found by `solve(f, x0)`, differentiated implicitly, like
/// `jax.lax.custom_root`.
///
/// `f` maps the unknown to a residual of the same type. `tangent_solve(g, rhs)` solves
/// `g(dx) = rhs`, where `g` is `f` linearized at the root (a jvp); for the derivatives
/// of the root with respect to what `f` closes over (the implicit function theorem,
/// `dx = -J_x⁻¹·J_consts·dconsts`). The root does not depend on `x0`, which gets no
/// derivative. Reverse mode transposes `tangent_solve`, so it must be linear through
/// transposable operations: a [`custom_linear_solve`] or a dense solve, not a loop.
///
/// ```
/// use ferrax::{Array, Tensor, grad, implicit::custom_root, control::fori_loop};
///
/// // The cube root of c by Newton's method; d(c^(1/3))/dc = 1 / (3 c^(2/3)).
/// let cube_root = |c: Tensor| {
///     let f = |x: &Tensor| x.powi(3) - &c;
///     let newton = |f: &dyn Fn(&Tensor) -> Tensor, x0: &Tensor| {
///         fori_loop(0, 50, |_, x: Tensor| &x - f(&x) / (x.powi(2) * 3.0), x0)
///     };
///     let tangent_solve = |g: &dyn Fn(&Tensor) -> Tensor, rhs: &Tensor| rhs / g(&rhs.ones_like());
///     custom_root(f, &c.ones_like(), &newton, &tangent_solve)
/// };
/// let g = grad(cube_root).call(&Array::scalar(8.0f64)).unwrap();
/// assert!((g.to_f64_vec()[0] - 1.0 / 12.0).abs() < 1e-12);
/// ```
#[track_caller]
pub fn custom_root(
    f: impl Fn(&Tensor) -> Tensor,
    x0: &Tensor,
    solve: LinearSolver<'_>,
    tangent_solve: LinearSolver<'_>,
) -> Tensor {
    let with_unit = |f: &dyn Fn(&Tensor) -> Tensor, x0: &Tensor| (solve(f, x0), ());
    custom_root_with_aux(f, x0, &with_unit, tangent_solve).0
}

/// [`custom_root`] whose `solve` also returns auxiliary results (any [`Tree`] of
/// tensors, returned beside the root without a derivative: a Newton report), like
/// `jax.lax.custom_root(..., has_aux=True)`.
#[track_caller]
pub fn custom_root_with_aux<A: Tree<Tensor>>(
    f: impl Fn(&Tensor) -> Tensor,
    x0: &Tensor,
    solve: LinearSolverWithAux<'_, A>,
    tangent_solve: LinearSolver<'_>,
) -> (Tensor, A::With<Tensor>) {
    let location = Location::caller();
    let ty = x0.ty().clone();
    let s = trace_flat_body("root_solve", std::slice::from_ref(&ty), |p| solve(&f, &p[0]), location);
    let (mut s_func, s_captured, aux_template) = match s {
        Ok(Body { func, out: (_, aux), captured }) => (func, captured, aux),
        Err(((x, aux), error)) => return poisoned_like(&(x, aux), error, location),
    };
    let bodies = (|| {
        check_type("custom_root: solve", &s_func.result_types[..s_func.result_types.len().min(1)], &ty, location)?;
        let residual = traced(("root_f", "custom_root: f"), &ty, |p| f(&p[0]), location)?;
        let pair = [ty.clone(), ty.clone()];
        let ts = trace_flat_body(
            "root_tangent_solve",
            &pair,
            |p| {
                let g = |v: &Tensor| jvp(|x: Tensor| f(&x)).apply(&p[0], v).1;
                tangent_solve(&g, &p[1])
            },
            location,
        )
        .map_err(|(_, e)| e)?;
        check_type("custom_root: tangent_solve", &ts.func.result_types, &ty, location)?;
        Ok::<_, TraceError>((residual, ts))
    })();
    let (mut residual, mut ts) = match bodies {
        Ok(bodies) => bodies,
        Err(error) => return poisoned_like(&(x0.clone(), aux_template), error, location),
    };
    let union = consts_first(&mut [
        (&mut residual.func, &residual.captured, 1),
        (&mut s_func, &s_captured, 1),
        (&mut ts.func, &ts.captured, 2),
    ]);
    let params = RootParams {
        f: residual.func.name.clone(),
        solve: s_func.name.clone(),
        tangent_solve: ts.func.name.clone(),
        num_consts: union.len(),
    };
    let prim = Prim::custom_root(params);
    emit_solve(prim, vec![residual.func, s_func, ts.func], &union, x0, aux_template, location)
}

/// `matvec`'s transpose applied to `y`: the cotangent of its argument (it is linear,
/// so any point serves; zeros).
fn transpose_of(matvec: &dyn Fn(&Tensor) -> Tensor, y: &Tensor) -> Tensor {
    vjp(|x: Tensor| matvec(&x)).apply(&y.zeros_like(), y).1
}

/// `f` traced on one parameter of type `ty` into a Func named after `prefix`, whose
/// result must have type `ty` too (an error names it as `what`).
fn traced(
    (prefix, what): (&str, &str),
    ty: &Type,
    f: impl FnOnce(Vec<Tensor>) -> Tensor,
    location: &'static Location<'static>,
) -> Result<Body<Tensor>, TraceError> {
    let body = trace_flat_body(prefix, std::slice::from_ref(ty), f, location).map_err(|(_, e)| e)?;
    check_type(what, &body.func.result_types, ty, location)?;
    Ok(body)
}

fn check_type(what: &str, results: &[Type], ty: &Type, location: &'static Location<'static>) -> Result<(), TraceError> {
    match results {
        [t] if t == ty => Ok(()),
        other => Err(TraceError::at(
            location,
            format!("{what}: returns {} but must return the unknowns' type {ty}", ferrax_ir::format_types(other)),
        )),
    }
}

/// Gives every traced Func the union of all their captures as leading parameters (the
/// consts), before its own declared ones (as many as paired with it); returns the
/// union.
fn consts_first(bodies: &mut [(&mut Func, &[Tensor], usize)]) -> Vec<Tensor> {
    let union = union_of_captures(bodies.iter().map(|(_, captured, _)| *captured));
    for (func, captured, declared) in bodies.iter_mut() {
        align_captures(func, *declared, captured, &union);
        func.params.rotate_left(*declared);
    }
    union
}
