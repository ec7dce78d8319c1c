//! `ferrax::solve`: the Krylov solvers against a dense solve, under `eval` and `jit`,
//! with operators that are matrices, vjps and stencils; Newton-Krylov on the Bratu
//! problem, converging quadratically without ever forming the Jacobian.

use ferrax::solve::{
    Forcing, GmresOptions, NewtonInfo, NewtonOptions, SolveInfo, SolveOptions, bicgstab, cg, gmres, newton_krylov,
};
use ferrax::transforms::vjp;
use ferrax::{Array, DType, Tensor, Type, eval, jit, s, trace};

/// Deterministic values in [-1, 1) (a linear congruential generator).
fn values(seed: u64, count: usize) -> Vec<f64> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// `M·Mᵀ + n·I`: symmetric positive definite, condition number a few.
fn spd(n: usize, seed: u64) -> Vec<f64> {
    let m = values(seed, n * n);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] =
                (0..n).map(|k| m[i * n + k] * m[j * n + k]).sum::<f64>() + if i == j { n as f64 } else { 0.0 };
        }
    }
    a
}

/// `3·I + M / sqrt(n)`: nonsymmetric and well conditioned.
fn nonsymmetric(n: usize, seed: u64) -> Vec<f64> {
    let m = values(seed, n * n);
    (0..n * n).map(|k| m[k] / (n as f64).sqrt() + if k % (n + 1) == 0 { 3.0 } else { 0.0 }).collect()
}

/// The dense solve of `a·x = b` by Gaussian elimination with partial pivoting.
fn dense_solve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> = (0..n).map(|i| a[i * n..(i + 1) * n].iter().copied().chain([b[i]]).collect()).collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&p, &q| m[p][col].abs().total_cmp(&m[q][col].abs())).unwrap();
        m.swap(col, pivot);
        let (top, rest) = m.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for row in rest {
            let factor = row[col] / pivot_row[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= factor * p;
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| m[row][k] * x[k]).sum();
        x[row] = (m[row][n] - tail) / m[row][row];
    }
    x
}

/// `‖a - b‖ / ‖b‖`.
fn relative_error(a: &[f64], b: &[f64]) -> f64 {
    let diff: f64 = a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum();
    let size: f64 = b.iter().map(|y| y * y).sum();
    (diff / size).sqrt()
}

type Solver = fn(&dyn Fn(&Tensor) -> Tensor, &Tensor) -> (Tensor, SolveInfo);

fn tight() -> SolveOptions {
    SolveOptions { tol: 1e-12, ..SolveOptions::default() }
}

const SOLVERS: [(&str, Solver); 3] = [
    ("cg", |a, b| cg(a, b, &tight())),
    ("gmres", |a, b| gmres(a, b, &GmresOptions { tol: 1e-12, ..GmresOptions::default() })),
    ("bicgstab", |a, b| bicgstab(a, b, &tight())),
];

/// Runs `solver` on the matrix `a` (n x n) and `b` through `eval`: `x` and the info.
fn solve_dense(solver: Solver, a: &[f64], b: &[f64]) -> (Vec<f64>, SolveInfo<Array>) {
    let n = b.len();
    let args = (Array::from_f64(&[n, n], a.to_vec()).unwrap(), Array::from(b.to_vec()));
    let (x, info) = eval(|(a, b): (Tensor, Tensor)| solver(&|x: &Tensor| a.matmul(x), &b), &args).unwrap();
    (x.to_f64_vec(), info)
}

#[test]
fn every_solver_matches_a_dense_solve_of_an_spd_system() {
    let n = 12;
    let (a, b) = (spd(n, 1), values(2, n));
    let want = dense_solve(&a, &b);
    for (name, solver) in SOLVERS {
        let (x, info) = solve_dense(solver, &a, &b);
        let error = relative_error(&x, &want);
        assert!(error < 1e-9, "{name}: relative error {error:e}");
        assert_eq!(info.converged.to_f64_vec(), [1.0], "{name}");
        assert!(info.residual_norm.to_f64_vec()[0] < 1e-10, "{name}: {:?}", info.residual_norm);
        let iterations = info.iterations.to_f64_vec()[0];
        assert!((1.0..=2.0 * n as f64).contains(&iterations), "{name}: {iterations} iterations");
    }
}

#[test]
fn gmres_and_bicgstab_match_a_dense_solve_of_a_nonsymmetric_system() {
    let n = 15;
    let (a, b) = (nonsymmetric(n, 3), values(4, n));
    let want = dense_solve(&a, &b);
    for (name, solver) in &SOLVERS[1..] {
        let (x, info) = solve_dense(*solver, &a, &b);
        let error = relative_error(&x, &want);
        assert!(error < 1e-9, "{name}: relative error {error:e}");
        assert_eq!(info.converged.to_f64_vec(), [1.0], "{name}");
    }
}

#[test]
fn solvers_compile_with_jit_and_agree_with_eval() {
    let n = 10;
    let (a, b) = (nonsymmetric(n, 5), values(6, n));
    let args = (Array::from_f64(&[n, n], a.clone()).unwrap(), Array::from(b.clone()));
    let want = dense_solve(&a, &b);
    let solve = |(a, b): (Tensor, Tensor)| {
        let options = GmresOptions { tol: 1e-12, restart: 4, ..GmresOptions::default() };
        let (x, info) = gmres(&|x: &Tensor| a.matmul(x), &b, &options);
        let (y, _) = bicgstab(&|x: &Tensor| a.matmul(x), &b, &tight());
        (x, y, info)
    };
    let (x, y, info) = jit(solve).call(&args).unwrap();
    let (x_eval, y_eval, info_eval) = eval(solve, &args).unwrap();
    assert!(relative_error(&x.to_f64_vec(), &want) < 1e-9);
    assert!(relative_error(&y.to_f64_vec(), &want) < 1e-9);
    assert!(relative_error(&x.to_f64_vec(), &x_eval.to_f64_vec()) < 1e-12);
    assert!(relative_error(&y.to_f64_vec(), &y_eval.to_f64_vec()) < 1e-12);
    assert_eq!(info.iterations, info_eval.iterations);
    assert_eq!(info.matvecs, info_eval.matvecs);
}

#[test]
fn restarted_gmres_converges_with_a_restart_shorter_than_the_system() {
    let n = 24;
    let (a, b) = (nonsymmetric(n, 7), values(8, n));
    let want = dense_solve(&a, &b);
    for restart in [1, 3, 8] {
        let (x, info) = solve_dense(
            match restart {
                1 => |a, b| gmres(a, b, &GmresOptions { tol: 1e-11, restart: 1, ..GmresOptions::default() }),
                3 => |a, b| gmres(a, b, &GmresOptions { tol: 1e-11, restart: 3, ..GmresOptions::default() }),
                _ => |a, b| gmres(a, b, &GmresOptions { tol: 1e-11, restart: 8, ..GmresOptions::default() }),
            },
            &a,
            &b,
        );
        let (steps, matvecs) = (info.iterations.to_f64_vec()[0], info.matvecs.to_f64_vec()[0]);
        println!("restart {restart}: {steps} Arnoldi steps, {matvecs} operator applications");
        assert_eq!(info.converged.to_f64_vec(), [1.0], "restart {restart}");
        assert!(relative_error(&x, &want) < 1e-8, "restart {restart}");
        // More steps than one cycle holds: the restarts did the work.
        assert!(steps > restart as f64, "restart {restart}: {steps} steps");
        // One operator application per step and one true residual per cycle.
        let cycles = (steps / restart as f64).ceil();
        assert!(matvecs >= steps + cycles, "restart {restart}: {matvecs} applications");
    }
}

#[test]
fn the_operator_can_be_a_vjp_and_b_any_shape() {
    // x ↦ Aᵀ·x as the vjp of y ↦ A·y, on a right-hand side of shape [3, 4].
    let n = 12;
    let a = nonsymmetric(n, 9);
    let b = values(10, n);
    let mut at = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            at[i * n + j] = a[j * n + i];
        }
    }
    let want = dense_solve(&at, &b);
    let args = (Array::from_f64(&[n, n], a).unwrap(), Array::from_f64(&[3, 4], b).unwrap());
    let solve = |(a, b): (Tensor, Tensor)| {
        let transpose = |x: &Tensor| {
            let flat = x.reshape(&[12]);
            let (_, ct) = vjp(|y: Tensor| a.matmul(&y)).apply(&flat, &flat);
            ct.reshape(&[3, 4])
        };
        let (x, _) = gmres(&transpose, &b, &GmresOptions { tol: 1e-12, ..GmresOptions::default() });
        let (y, _) = bicgstab(&transpose, &b, &tight());
        (x, y)
    };
    let (x, y) = eval(solve, &args).unwrap();
    assert_eq!(x.shape(), [3, 4]);
    assert!(relative_error(&x.to_f64_vec(), &want) < 1e-9);
    assert!(relative_error(&y.to_f64_vec(), &want) < 1e-9);
}

#[test]
fn an_f32_system_meets_the_default_tolerance_from_a_starting_guess() {
    let n = 8;
    let a = spd(n, 11);
    let b = values(12, n);
    let want = dense_solve(&a, &b);
    let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    let args = (Array::from_f32(&[n, n], f32s(&a)).unwrap(), Array::from(f32s(&b)), Array::from(vec![1.0f32; n]));
    let (x, info) = eval(
        |(a, b, x0): (Tensor, Tensor, Tensor)| {
            cg(&|x: &Tensor| a.matmul(x), &b, &SolveOptions { x0: Some(x0), ..SolveOptions::default() })
        },
        &args,
    )
    .unwrap();
    assert_eq!(x.dtype(), DType::F32);
    assert!(relative_error(&x.to_f64_vec(), &want) < 1e-4);
    // The starting residual took one operator application more than the iterations.
    assert_eq!(info.matvecs.to_f64_vec()[0], info.iterations.to_f64_vec()[0] + 1.0);
}

#[test]
fn bad_problems_are_errors_naming_the_mismatch() {
    let b = Type::new(DType::F64, &[4]);
    let wrong_shape = trace(|b: Tensor| cg(&|x: &Tensor| x.slice(&[s(0..2)]), &b, &SolveOptions::default()).0, &b);
    let message = wrong_shape.unwrap_err().to_string();
    assert!(message.contains("cg: the operator maps f64[4] to f64[2]; it must return f64[4]"), "{message}");
    let integers =
        trace(|b: Tensor| gmres(&|x: &Tensor| x.clone(), &b, &GmresOptions::default()).0, &Type::new(DType::I32, &[4]));
    let message = integers.unwrap_err().to_string();
    assert!(message.contains("gmres: b is i32[4]; the solvers take f32 or f64"), "{message}");
    let x0 = |b: Tensor| {
        let options = SolveOptions { x0: Some(Tensor::zeros(DType::F64, &[3])), ..SolveOptions::default() };
        bicgstab(&|x: &Tensor| x.clone(), &b, &options).0
    };
    let message = trace(x0, &b).unwrap_err().to_string();
    assert!(message.contains("bicgstab: x0 is f64[3], b is f64[4]"), "{message}");
    let restart = trace(
        |b: Tensor| gmres(&|x: &Tensor| x.clone(), &b, &GmresOptions { restart: 0, ..GmresOptions::default() }).0,
        &b,
    );
    assert!(restart.unwrap_err().to_string().contains("gmres: restart must be at least 1"));
    let forcing = NewtonOptions { forcing: Forcing::Constant(1.5), ..NewtonOptions::default() };
    let newton = trace(|x: Tensor| newton_krylov(&|x: &Tensor| x.exp() - 2.0, &x, &forcing).0, &b);
    let message = newton.unwrap_err().to_string();
    assert!(
        message.contains("newton_krylov: the forcing terms must satisfy 0 <= min <= max < 1, got 1.5 and 1.5"),
        "{message}"
    );
    let to_scalar = trace(|x: Tensor| newton_krylov(&|x: &Tensor| x.sum_all(), &x, &NewtonOptions::default()).0, &b);
    let message = to_scalar.unwrap_err().to_string();
    assert!(message.contains("newton_krylov: f maps f64[4] to f64[]; it must return f64[4]"), "{message}");
}

/// The 2-D Bratu problem `-Δu = λ·e^u` on the unit square, zero on the boundary, by
/// central differences on the interior points of an `n x n` grid (`u` is `[n, n]`).
fn bratu(u: &Tensor, lambda: f64) -> Tensor {
    let n = u.shape()[0] as i64;
    let h = 1.0 / (n as f64 + 1.0);
    let padded = u.pad(&[1, 1], &[1, 1], &[0, 0], 0.0);
    let shifted = |rows: std::ops::Range<i64>, cols: std::ops::Range<i64>| padded.slice(&[s(rows), s(cols)]);
    let neighbours =
        shifted(0..n, 1..n + 1) + shifted(2..n + 2, 1..n + 1) + shifted(1..n + 1, 0..n) + shifted(1..n + 1, 2..n + 2);
    (u * 4.0 - neighbours) / (h * h) - u.exp() * lambda
}

fn bratu_options() -> NewtonOptions {
    NewtonOptions { tol: 1e-13, forcing: Forcing::Quadratic { max: 0.1, min: 1e-12 }, ..NewtonOptions::default() }
}

/// Prints the residual table and returns the residuals of the steps taken.
fn residual_table(info: &NewtonInfo<Array>) -> Vec<f64> {
    let steps = info.steps.to_f64_vec()[0] as usize;
    let history = info.residual_history.to_f64_vec();
    let jvps = info.jvp_history.to_f64_vec();
    println!("step   ‖F(u)‖        ‖F_k+1‖/‖F_k‖²   jvps");
    for k in 0..=steps {
        let ratio = if k > 0 { history[k] / history[k - 1].powi(2) } else { f64::NAN };
        let products = if k > 0 { jvps[k - 1] } else { 0.0 };
        println!("{k:>4}   {:<12.4e}  {ratio:<14.4e}  {products}", history[k]);
    }
    println!("total jvp products: {}", info.jvps.to_f64_vec()[0]);
    history[..=steps].to_vec()
}

#[test]
fn newton_krylov_solves_bratu_quadratically_under_jit() {
    let n = 16;
    let solve = |u0: Tensor| newton_krylov(&|u: &Tensor| bratu(u, 1.0), &u0, &bratu_options());
    let (u, info) = jit(solve).call(&Array::from_f64(&[n, n], vec![0.0; n * n]).unwrap()).unwrap();
    let history = residual_table(&info);
    assert_eq!(info.converged.to_f64_vec(), [1.0]);
    assert!(history.len() <= 8, "{} Newton steps", history.len() - 1);
    // Quadratic convergence: near the root, ‖F_k+1‖ / ‖F_k‖² stays bounded (the
    // ratio of a linearly converging method would grow like 1 / ‖F_k‖).
    let near: Vec<f64> = history
        .windows(2)
        .filter(|w| w[0] < 1e-2 * history[0] && w[1] > 1e-13 * history[0])
        .map(|w| w[1] / (w[0] * w[0]))
        .collect();
    assert!(near.len() >= 2, "too few steps near the root: {history:?}");
    assert!(near.iter().all(|&ratio| ratio < 1.0), "ratios {near:?}");
    // The solution is positive inside, largest at the centre (≈ 0.078 for λ = 1).
    let u = u.to_f64_vec();
    let centre = u[(n / 2) * n + n / 2];
    assert!((0.07..0.09).contains(&centre), "u at the centre {centre}");
    assert!(u.iter().all(|&v| v > 0.0));
    assert!(info.jvps.to_f64_vec()[0] > 0.0);
}

#[test]
fn newton_krylov_evaluates_like_it_compiles() {
    let n = 6;
    let options = NewtonOptions { forcing: Forcing::Constant(1e-6), ..NewtonOptions::default() };
    let solve = |(u0, lambda): (Tensor, Tensor)| {
        // λ is an outer tensor the residual closes over.
        newton_krylov(&|u: &Tensor| &bratu(u, 0.0) - &(u.exp() * &lambda), &u0, &options)
    };
    let args = (Array::from_f64(&[n, n], vec![0.0; n * n]).unwrap(), Array::scalar(2.0f64));
    let (u, info) = eval(solve, &args).unwrap();
    let (u_jit, info_jit) = jit(solve).call(&args).unwrap();
    residual_table(&info);
    assert_eq!(info.converged.to_f64_vec(), [1.0]);
    assert_eq!(info.steps, info_jit.steps);
    assert_eq!(info.jvps, info_jit.jvps);
    assert!(relative_error(&u.to_f64_vec(), &u_jit.to_f64_vec()) < 1e-12);
    // The residual at the answer, evaluated afresh.
    let residual = eval(|(u, l): (Tensor, Tensor)| &bratu(&u, 0.0) - &(u.exp() * &l), &(u, Array::scalar(2.0f64)));
    let norm = residual.unwrap().to_f64_vec().iter().map(|r| r * r).sum::<f64>().sqrt();
    assert!(norm <= 1e-8 * info.residual_history.to_f64_vec()[0], "‖F(u)‖ = {norm:e}");
}

#[test]
fn the_traced_newton_step_never_forms_the_jacobian() {
    let n = 16;
    let solve = |u0: Tensor| newton_krylov(&|u: &Tensor| bratu(u, 1.0), &u0, &bratu_options()).0;
    let module = trace(solve, &Type::new(DType::F64, &[n, n])).unwrap();
    let unknowns = n * n;
    let mut values = 0;
    let mut jvp_funcs = 0;
    for func in module.funcs.values() {
        for ty in &func.value_types {
            values += 1;
            let elements: usize = ty.shape.iter().product();
            assert!(
                elements < unknowns * unknowns && ty.shape.as_slice() != [unknowns, unknowns],
                "@{} has a value of type {ty}: a Jacobian-sized matrix",
                func.name
            );
        }
        jvp_funcs += usize::from(func.eqns.iter().any(|e| e.prim.name() == "exp") && func.params.len() > 1);
    }
    assert!(values > 100 && jvp_funcs > 0, "{values} values, {jvp_funcs} Funcs with the residual's exp");
}

#[test]
fn newton_krylov_reports_a_stall_instead_of_looping() {
    // x² + 1 has no real root: the line search finds no decrease at x = 0.
    let options = NewtonOptions { max_steps: 30, ..NewtonOptions::default() };
    let solve = |x0: Tensor| newton_krylov(&|x: &Tensor| x * x + 1.0, &x0, &options);
    let (_, info) = eval(solve, &Array::from(vec![0.0f64])).unwrap();
    assert_eq!(info.converged.to_f64_vec(), [0.0]);
    assert_eq!(info.stalled.to_f64_vec(), [1.0]);
    assert!(info.steps.to_f64_vec()[0] < 30.0);
}

#[test]
fn scalar_and_empty_right_hand_sides_and_vmap_over_solves() {
    let double = |x: &Tensor| x * 2.0;
    let scalar = eval(|b: Tensor| gmres(&double, &b, &GmresOptions::default()).0, &Array::scalar(3.0f64));
    assert_eq!(scalar.unwrap().to_f64_vec(), [1.5]);
    let empty = eval(|b: Tensor| cg(&double, &b, &SolveOptions::default()), &Array::from(Vec::<f64>::new())).unwrap();
    assert_eq!((empty.0.shape(), empty.1.iterations.to_f64_vec()), (&[0][..], vec![0.0]));
    // A batch of right-hand sides for [[2, 1], [1, 2]]: the while loops batch too.
    let rows = Array::from_f64(&[3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let operator = |x: &Tensor| x * 2.0 + x.rev(&[0]);
    let batched = ferrax::vmap(|b: Tensor| cg(&operator, &b, &tight()).0).call(&rows).unwrap();
    let want: Vec<f64> = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
        .iter()
        .flat_map(|[p, q]| [(2.0 * p - q) / 3.0, (2.0 * q - p) / 3.0])
        .collect();
    assert!(max_abs_difference(&batched.to_f64_vec(), &want) < 1e-12);
}

fn max_abs_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// The gradient of the root of `x + 0.3·tanh(W·x) = c` through `newton_krylov` is the
/// implicit function theorem's: `d(Σx)/dc = J⁻ᵀ·1`, with `J = I + 0.3·diag(1 - t²)·W`
/// formed on the host from the root; and the same through `cg`, `gmres` and `bicgstab`
/// on a linear system equals the explicit inverse's gradient.
#[test]
fn solvers_are_differentiable_by_implicit_differentiation() {
    let w = Array::from_f64(&[3, 3], vec![0.5, -0.3, 0.2, 0.1, 0.4, -0.6, -0.2, 0.3, 0.5]).unwrap();
    let c = Array::from(vec![0.7f64, -0.4, 1.1]);
    let root = |(w, c): (Tensor, Tensor)| {
        let f = |x: &Tensor| x + w.matmul(x).tanh() * 0.3 - &c;
        let options = NewtonOptions { tol: 1e-13, ..NewtonOptions::default() };
        newton_krylov(&f, &c.zeros_like(), &options).0
    };
    let x = ferrax::eval(root, &(w.clone(), c.clone())).unwrap().to_f64_vec();
    let (_, gc) = ferrax::grad(|args: (Tensor, Tensor)| root(args).sum_all()).call(&(w.clone(), c)).unwrap();
    let wv = w.to_f64_vec();
    let s: Vec<f64> = (0..3).map(|i| 1.0 - (0..3).map(|k| wv[i * 3 + k] * x[k]).sum::<f64>().tanh().powi(2)).collect();
    // Jᵀ·λ = 1 by Gaussian elimination on the host.
    let jt: Vec<f64> = (0..9).map(|i| f64::from(i / 3 == i % 3) + 0.3 * s[i % 3] * wv[(i % 3) * 3 + i / 3]).collect();
    let lambda = dense_solve(&jt, &[1.0; 3]);
    for (g, l) in gc.to_f64_vec().iter().zip(&lambda) {
        assert!((g - l).abs() < 1e-9, "{g} vs {l}");
    }
    // Linear solvers: grad of Σ sin(x) for A·x = b against the explicit inverse.
    let a = Array::from_f64(&[3, 3], vec![4.0, 1.0, -0.5, 1.0, 5.0, 1.5, -0.5, 1.5, 6.0]).unwrap();
    let b = Array::from(vec![1.0f64, -2.0, 0.5]);
    let inverse = |(a, b): (Tensor, Tensor)| ferrax::linalg::inv(&a).matmul(&b).sin().sum_all();
    let (wa, wb) = ferrax::grad(inverse).call(&(a.clone(), b.clone())).unwrap();
    type Solver = fn(&Tensor, &Tensor) -> Tensor;
    let solvers: [(&str, Solver); 3] = [
        ("cg", |a, b| cg(&|x: &Tensor| a.matmul(x), b, &SolveOptions { tol: 1e-13, ..SolveOptions::default() }).0),
        ("gmres", |a, b| {
            gmres(&|x: &Tensor| a.matmul(x), b, &GmresOptions { tol: 1e-13, ..GmresOptions::default() }).0
        }),
        ("bicgstab", |a, b| {
            bicgstab(&|x: &Tensor| a.matmul(x), b, &SolveOptions { tol: 1e-13, ..SolveOptions::default() }).0
        }),
    ];
    for (name, solve) in solvers {
        let f = move |(a, b): (Tensor, Tensor)| solve(&a, &b).sin().sum_all();
        let (ga, gb) = ferrax::grad(f).call(&(a.clone(), b.clone())).unwrap();
        for (g, w) in ga.to_f64_vec().iter().chain(&gb.to_f64_vec()).zip(wa.to_f64_vec().iter().chain(&wb.to_f64_vec()))
        {
            assert!((g - w).abs() < 1e-9, "{name}: {g} vs {w}");
        }
    }
}
