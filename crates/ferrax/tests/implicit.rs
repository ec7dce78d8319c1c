//! Implicit differentiation: gradients through `custom_linear_solve` equal those through
//! the explicit inverse (first and second order, forward and reverse mode, batched and
//! compiled), and gradients through `custom_root` equal the implicit-function-theorem
//! formula and do not depend on how many iterations the solver ran.

use ferrax::control::{fori_loop, while_loop};
use ferrax::implicit::{custom_linear_solve, custom_linear_solve_with_aux, custom_root, custom_root_with_aux};
use ferrax::transforms::jvp;
use ferrax::{Array, DType, Tensor, Type, grad, jit, linalg, make_ir, vmap};

fn f64a(shape: &[usize], values: &[f64]) -> Array {
    Array::from_f64(shape, values.to_vec()).unwrap()
}

/// A nonsymmetric, well-conditioned 3×3 matrix and a right-hand side.
fn system() -> (Array, Array) {
    let a = f64a(&[3, 3], &[4.0, 1.0, -0.5, 0.3, 5.0, 1.5, -1.0, 0.7, 6.0]);
    (a, f64a(&[3], &[1.0, -2.0, 0.5]))
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tol * (1.0 + w.abs()), "{got:?}\nvs\n{want:?}");
    }
}

/// Jacobi iterations `x += D⁻¹(b - A·x)` until the residual is below 1e-13, in a
/// `while_loop` without `max_iters`: reverse mode cannot go through such a loop, so a
/// gradient through it can only come from implicit differentiation.
fn jacobi(diag: &Tensor, matvec: &dyn Fn(&Tensor) -> Tensor, b: &Tensor) -> Tensor {
    let residual = |x: &Tensor| b - matvec(x);
    let far = |x: Tensor| residual(&x).powi(2).sum_all().gt(1e-26);
    while_loop(far, |x: Tensor| &x + residual(&x) / diag, &b.zeros_like(), None)
}

/// `sum(sin(x))` for `A·x = b`, solved by Jacobi through `custom_linear_solve`.
fn through_solve((a, b): (Tensor, Tensor)) -> Tensor {
    let eye = linalg_eye(3);
    let diag = (&a * &eye).sum([1usize]);
    let solve = |m: &dyn Fn(&Tensor) -> Tensor, r: &Tensor| jacobi(&diag, m, r);
    let x = custom_linear_solve(|x: &Tensor| a.matmul(x), &b, &solve, Some(&solve), false);
    x.sin().sum_all()
}

/// The same objective through the explicit inverse.
fn through_inverse((a, b): (Tensor, Tensor)) -> Tensor {
    linalg::inv(&a).matmul(&b).sin().sum_all()
}

fn linalg_eye(n: usize) -> Tensor {
    Tensor::constant(&Array::from_f64(&[n, n], (0..n * n).map(|i| f64::from(i % (n + 1) == 0)).collect()).unwrap())
}

#[test]
fn linear_solve_gradient_equals_the_explicit_inverse() {
    let args = system();
    let (ga, gb) = grad(through_solve).call(&args).unwrap();
    let (wa, wb) = grad(through_inverse).call(&args).unwrap();
    close(&ga.to_f64_vec(), &wa.to_f64_vec(), 1e-12);
    close(&gb.to_f64_vec(), &wb.to_f64_vec(), 1e-12);
    // Compiled, the same.
    let (ja, jb) = jit(grad(through_solve)).call(&args).unwrap();
    close(&ja.to_f64_vec(), &wa.to_f64_vec(), 1e-12);
    close(&jb.to_f64_vec(), &wb.to_f64_vec(), 1e-12);
}

#[test]
fn linear_solve_forward_mode_and_second_order_match_the_inverse() {
    let args = system();
    let dirs = (f64a(&[3, 3], &[0.1, -0.2, 0.3, 0.0, 0.5, -0.1, 0.2, 0.1, -0.4]), f64a(&[3], &[0.3, 0.1, -0.2]));
    let (_, t) = jvp(through_solve).call(&args, &dirs).unwrap();
    let (_, w) = jvp(through_inverse).call(&args, &dirs).unwrap();
    close(&t.to_f64_vec(), &w.to_f64_vec(), 1e-12);
    // Hessian-vector products: forward over reverse through two nested solves.
    let hvp = |f: fn((Tensor, Tensor)) -> Tensor| ferrax::transforms::hvp(f).call(&args, &dirs).unwrap();
    let (ha, hb) = hvp(through_solve);
    let (wa, wb) = hvp(through_inverse);
    close(&ha.to_f64_vec(), &wa.to_f64_vec(), 1e-10);
    close(&hb.to_f64_vec(), &wb.to_f64_vec(), 1e-10);
}

#[test]
fn linear_solve_batches_over_right_hand_sides() {
    let (a, _) = system();
    let bs = f64a(&[2, 3], &[1.0, -2.0, 0.5, 0.0, 1.0, 3.0]);
    let per_b = |b: Tensor| {
        let a = Tensor::constant(&a);
        grad(through_solve).argnums(&[1]).apply(&(a, b)).1
    };
    let batched = vmap(per_b).call(&bs).unwrap().to_f64_vec();
    for k in 0..2 {
        let b = f64a(&[3], &bs.to_f64_vec()[k * 3..k * 3 + 3]);
        let (_, want) = grad(through_inverse).call(&(a.clone(), b)).unwrap();
        close(&batched[k * 3..k * 3 + 3], &want.to_f64_vec(), 1e-12);
    }
}

#[test]
fn symmetric_solve_needs_no_transpose_solve() {
    let a = f64a(&[3, 3], &[4.0, 1.0, -1.0, 1.0, 5.0, 2.0, -1.0, 2.0, 6.0]);
    let b = f64a(&[3], &[1.0, -2.0, 0.5]);
    let f = |(a, b): (Tensor, Tensor)| {
        let chol_solve = |_: &dyn Fn(&Tensor) -> Tensor, r: &Tensor| linalg::cho_solve(&linalg::cholesky(&a), r);
        custom_linear_solve(|x: &Tensor| a.matmul(x), &b, &chol_solve, None, true).powi(2).sum_all()
    };
    let g = |(a, b): (Tensor, Tensor)| linalg::inv(&a).matmul(&b).powi(2).sum_all();
    let (_, gb) = grad(f).call(&(a.clone(), b.clone())).unwrap();
    let (_, wb) = grad(g).call(&(a, b)).unwrap();
    close(&gb.to_f64_vec(), &wb.to_f64_vec(), 1e-12);
}

#[test]
fn reverse_mode_without_a_transpose_solve_is_an_error() {
    let f = |(a, b): (Tensor, Tensor)| {
        let solve = |_: &dyn Fn(&Tensor) -> Tensor, r: &Tensor| linalg::solve(&a, r);
        custom_linear_solve(|x: &Tensor| a.matmul(x), &b, &solve, None, false).sum_all()
    };
    let err = grad(f).call(&system()).unwrap_err().to_string();
    assert!(err.contains("transpose_solve"), "{err}");
    // Forward mode works without it.
    let (a, b) = system();
    assert!(jvp(f).call(&(a.clone(), b.clone()), &(a, b)).is_ok());
}

#[test]
fn a_matvec_of_the_wrong_type_is_an_error_at_the_call() {
    let f = |b: Tensor| {
        let solve = |_: &dyn Fn(&Tensor) -> Tensor, r: &Tensor| r.clone();
        custom_linear_solve(|x: &Tensor| x.sum_all(), &b, &solve, None, true)
    };
    let err = make_ir(f, &Type::new(DType::F64, &[3])).unwrap_err().to_string();
    assert!(err.contains("matvec") && err.contains("f64[3]") && err.contains("implicit.rs"), "{err}");
}

/// The root of `f(x) = x + 0.5·tanh(W·x) - c` (one root: the Jacobian `I + 0.5·diag(1 -
/// tanh²)·W` is near the identity for this W) by `steps` Newton-like fixed-point steps
/// `x ← c - 0.5·tanh(W·x)` (a contraction), with the tangent solve done densely on the
/// linearized map's Jacobian.
fn root_sum(steps: i32) -> impl Fn((Tensor, Tensor)) -> Tensor {
    move |(w, c): (Tensor, Tensor)| {
        let f = |x: &Tensor| x + w.matmul(x).tanh() * 0.5 - &c;
        let solve = |f: &dyn Fn(&Tensor) -> Tensor, x0: &Tensor| fori_loop(0, steps, |_, x: Tensor| &x - f(&x), x0);
        let tangent_solve = |g: &dyn Fn(&Tensor) -> Tensor, rhs: &Tensor| {
            // The linear map's matrix from its action on the basis, then a dense solve.
            let unit = |k: usize| Tensor::constant(&f64a(&[3], &[0, 1, 2].map(|i| f64::from(i == k))));
            let columns: Vec<Tensor> = (0..3).map(|k| g(&unit(k))).collect();
            let jac = ferrax::ops::shape::stack(&columns, 1);
            linalg::solve(&jac, rhs)
        };
        custom_root(f, &c.zeros_like(), &solve, &tangent_solve).sum_all()
    }
}

#[test]
fn root_gradient_is_the_implicit_function_theorem_and_ignores_iterations() {
    let w = f64a(&[3, 3], &[0.5, -0.3, 0.2, 0.1, 0.4, -0.6, -0.2, 0.3, 0.5]);
    let c = f64a(&[3], &[0.7, -0.4, 1.1]);
    let args = (w.clone(), c.clone());
    let (gw, gc) = grad(root_sum(80)).call(&args).unwrap();
    // More iterations: the same root to rounding, so the same gradient.
    let (gw2, gc2) = grad(root_sum(200)).call(&args).unwrap();
    close(&gw.to_f64_vec(), &gw2.to_f64_vec(), 1e-13);
    close(&gc.to_f64_vec(), &gc2.to_f64_vec(), 1e-13);
    // The formula, on the host: at the root x, J = I + 0.5·diag(s)·W with s = 1 -
    // tanh²(W·x); λ = J⁻ᵀ·1; d(sum x)/dc = λ and d(sum x)/dW = -0.5·(λ∘s)·xᵀ.
    let x = ferrax::eval(
        |(w, c): (Tensor, Tensor)| fori_loop(0, 200, |_, x: Tensor| &c - w.matmul(&x).tanh() * 0.5, &c.zeros_like()),
        &args,
    )
    .unwrap()
    .to_f64_vec();
    let wv = w.to_f64_vec();
    let s: Vec<f64> = (0..3).map(|i| 1.0 - (0..3).map(|k| wv[i * 3 + k] * x[k]).sum::<f64>().tanh().powi(2)).collect();
    let jt: Vec<f64> = (0..9)
        .map(|i| {
            let (r, k) = (i / 3, i % 3); // row r of Jᵀ is column r of J
            f64::from(r == k) + 0.5 * s[k] * wv[k * 3 + r]
        })
        .collect();
    let lambda =
        ferrax::eval(|(m, v): (Tensor, Tensor)| linalg::solve(&m, &v), &(f64a(&[3, 3], &jt), f64a(&[3], &[1.0; 3])))
            .unwrap()
            .to_f64_vec();
    close(&gc.to_f64_vec(), &lambda, 1e-12);
    let want_w: Vec<f64> = (0..9).map(|i| -0.5 * lambda[i / 3] * s[i / 3] * x[i % 3]).collect();
    close(&gw.to_f64_vec(), &want_w, 1e-12);
    // Compiled, forward mode, the same.
    let (jw, jc) = jit(grad(root_sum(80))).call(&args).unwrap();
    close(&jw.to_f64_vec(), &gw.to_f64_vec(), 1e-12);
    close(&jc.to_f64_vec(), &gc.to_f64_vec(), 1e-12);
    let dc = f64a(&[3], &[1.0, 0.0, 0.0]);
    let (_, t) = jvp(root_sum(80)).call(&args, &(f64a(&[3, 3], &[0.0; 9]), dc)).unwrap();
    close(&t.to_f64_vec(), &lambda[..1], 1e-12);
}

#[test]
fn cube_root_by_newton_has_the_closed_form_derivative() {
    let cube_root = |c: Tensor| {
        let f = |x: &Tensor| x.powi(3) - &c;
        let newton = |f: &dyn Fn(&Tensor) -> Tensor, x0: &Tensor| {
            fori_loop(0, 60, |_, x: Tensor| &x - f(&x) / (x.powi(2) * 3.0), x0)
        };
        let tangent_solve = |g: &dyn Fn(&Tensor) -> Tensor, rhs: &Tensor| rhs / g(&rhs.ones_like());
        custom_root(f, &c.ones_like(), &newton, &tangent_solve).sum_all()
    };
    let c = f64a(&[3], &[8.0, 27.0, 0.5]);
    let g = grad(cube_root).call(&c).unwrap().to_f64_vec();
    let want: Vec<f64> = c.to_f64_vec().iter().map(|c| 1.0 / (3.0 * c.powf(2.0 / 3.0))).collect();
    close(&g, &want, 1e-12);
    // Batched over c, each element's derivative.
    let cs = f64a(&[2, 3], &[8.0, 27.0, 0.5, 1.0, 2.0, 64.0]);
    let per = vmap(grad(cube_root)).call(&cs).unwrap().to_f64_vec();
    let want: Vec<f64> = cs.to_f64_vec().iter().map(|c| 1.0 / (3.0 * c.powf(2.0 / 3.0))).collect();
    close(&per, &want, 1e-12);
}

#[test]
fn auxiliary_results_come_back_without_a_derivative() {
    // Jacobi counting its sweeps; the count is returned beside the solution.
    let f = |(a, b): (Tensor, Tensor)| {
        let diag = (&a * &linalg_eye(3)).sum([1usize]);
        let counted = |m: &dyn Fn(&Tensor) -> Tensor, r: &Tensor| {
            let res = |x: &Tensor| r - m(x);
            let far = |(x, _): (Tensor, Tensor)| res(&x).powi(2).sum_all().gt(1e-26);
            let sweep = |(x, k): (Tensor, Tensor)| (&x + res(&x) / &diag, k + 1.0);
            let (x, k) = while_loop(far, sweep, &(r.zeros_like(), r.sum_all().zeros_like()), None);
            (x, k)
        };
        let plain = |m: &dyn Fn(&Tensor) -> Tensor, r: &Tensor| counted(m, r).0;
        let (x, sweeps) = custom_linear_solve_with_aux(|x: &Tensor| a.matmul(x), &b, &counted, Some(&plain), false);
        (x.sin().sum_all(), sweeps)
    };
    let args = system();
    let (value, sweeps) = ferrax::eval(f, &args).unwrap();
    let sweeps = sweeps.to_f64_vec()[0];
    assert!((5.0..200.0).contains(&sweeps), "{sweeps} sweeps");
    let want = ferrax::eval(through_inverse, &args).unwrap().to_f64_vec()[0];
    close(&value.to_f64_vec(), &[want], 1e-12);
    let (ga, gb) = grad(|args: (Tensor, Tensor)| f(args).0).call(&args).unwrap();
    let (wa, wb) = grad(through_inverse).call(&args).unwrap();
    close(&ga.to_f64_vec(), &wa.to_f64_vec(), 1e-12);
    close(&gb.to_f64_vec(), &wb.to_f64_vec(), 1e-12);
}

#[test]
fn a_root_solver_reports_its_steps_beside_the_root() {
    // Newton for x³ = c until |f| < 1e-14, counting steps.
    let cube_root = |c: Tensor| {
        let f = |x: &Tensor| x.powi(3) - &c;
        let newton = |f: &dyn Fn(&Tensor) -> Tensor, x0: &Tensor| {
            let far = |(x, _): (Tensor, Tensor)| f(&x).abs().gt(1e-14);
            let step = |(x, k): (Tensor, Tensor)| (&x - f(&x) / (x.powi(2) * 3.0), k + 1.0);
            while_loop(far, step, &(x0.clone(), x0.zeros_like()), None)
        };
        let tangent_solve = |g: &dyn Fn(&Tensor) -> Tensor, rhs: &Tensor| rhs / g(&rhs.ones_like());
        custom_root_with_aux(f, &c.ones_like(), &newton, &tangent_solve)
    };
    let (root, steps) = ferrax::eval(cube_root, &Array::scalar(27.0f64)).unwrap();
    close(&root.to_f64_vec(), &[3.0], 1e-14);
    assert!((3.0..60.0).contains(&steps.to_f64_vec()[0]), "{steps:?}");
    let g = grad(|c: Tensor| cube_root(c).0).call(&Array::scalar(27.0f64)).unwrap().to_f64_vec();
    close(&g, &[1.0 / 27.0], 1e-13);
}
