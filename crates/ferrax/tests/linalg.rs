//! `ferrax::linalg`: the Cholesky factor and triangular solves, their gradients against
//! closed forms (W10's `log det A + bᵀA⁻¹b`), batching against a loop, the JIT against
//! the interpreter, and errors at the caller's line.

use ferrax::{Array, DType, Tensor, Type, eval, grad, jit, linalg, trace, vmap};

fn f64a(shape: &[usize], values: &[f64]) -> Array {
    Array::from_f64(shape, values.to_vec()).unwrap()
}

/// A symmetric positive definite 3×3 matrix and a vector.
fn spd() -> (Array, Array) {
    let a = f64a(&[3, 3], &[4.0, 1.0, -1.0, 1.0, 5.0, 2.0, -1.0, 2.0, 6.0]);
    (a, f64a(&[3], &[1.0, -2.0, 0.5]))
}

/// The inverse of a 3×3 matrix by its adjugate.
fn inverse3(m: &[f64]) -> Vec<f64> {
    let c = |r: usize, k: usize| m[r * 3 + k];
    let cof = |r: usize, k: usize| {
        let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
        let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
        c(r1, k1) * c(r2, k2) - c(r1, k2) * c(r2, k1)
    };
    let det: f64 = (0..3).map(|k| c(0, k) * cof(0, k)).sum();
    (0..9).map(|i| cof(i % 3, i / 3) / det).collect()
}

/// `log det A + bᵀ·A⁻¹·b` through the Cholesky factor and two triangular solves (W10).
fn objective((a, b): (Tensor, Tensor)) -> Tensor {
    let l = linalg::cholesky(&a);
    let n = a.shape()[0];
    let eye =
        Tensor::constant(&Array::from_f64(&[n, n], (0..n * n).map(|i| f64::from(i % (n + 1) == 0)).collect()).unwrap());
    let logdet = (&l * &eye).sum([1usize]).log().sum_all() * 2.0;
    let y = linalg::solve_triangular(&l, &b, true);
    logdet + (&y * &y).sum_all()
}

#[test]
fn cholesky_factors_and_cho_solve_solves() {
    let (a, b) = spd();
    let l = eval(|a: Tensor| linalg::cholesky(&a), &a).unwrap().to_f64_vec();
    // L·Lᵀ = A, L lower triangular.
    for i in 0..3 {
        for j in 0..3 {
            let llt: f64 = (0..3).map(|k| l[i * 3 + k] * l[j * 3 + k]).sum();
            assert!((llt - a.to_f64_vec()[i * 3 + j]).abs() < 1e-12, "{l:?}");
            assert!(j <= i || l[i * 3 + j] == 0.0);
        }
    }
    let x = eval(|(a, b): (Tensor, Tensor)| linalg::cho_solve(&linalg::cholesky(&a), &b), &(a.clone(), b.clone()));
    let inv = inverse3(&a.to_f64_vec());
    let want: Vec<f64> = (0..3).map(|i| (0..3).map(|k| inv[i * 3 + k] * b.to_f64_vec()[k]).sum()).collect();
    for (g, w) in x.unwrap().to_f64_vec().iter().zip(&want) {
        assert!((g - w).abs() < 1e-12, "{g} vs {w}");
    }
}

#[test]
fn gradient_of_logdet_plus_quadratic_form_is_the_closed_form() {
    // d/dA = A⁻¹ − A⁻¹·b·bᵀ·A⁻¹ (symmetric), d/db = 2·A⁻¹·b.
    let (a, b) = spd();
    let (ga, gb) = eval(grad(objective), &(a.clone(), b.clone())).unwrap();
    let inv = inverse3(&a.to_f64_vec());
    let bv = b.to_f64_vec();
    let ab: Vec<f64> = (0..3).map(|i| (0..3).map(|k| inv[i * 3 + k] * bv[k]).sum()).collect();
    for i in 0..3 {
        for j in 0..3 {
            let want = inv[i * 3 + j] - ab[i] * ab[j];
            assert!((ga.to_f64_vec()[i * 3 + j] - want).abs() < 1e-12, "dA[{i},{j}]");
        }
        assert!((gb.to_f64_vec()[i] - 2.0 * ab[i]).abs() < 1e-12, "db[{i}]");
    }
    // The JIT runs the same program to the same values.
    let (ja, jb) = jit(grad(objective)).call(&(a, b)).unwrap();
    assert!(ja.to_f64_vec().iter().zip(ga.to_f64_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
    assert!(jb.to_f64_vec().iter().zip(gb.to_f64_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
}

#[test]
fn batched_factors_match_a_loop() {
    let (a, _) = spd();
    let scaled: Vec<f64> = a.to_f64_vec().iter().map(|x| x * 2.0).collect();
    let batch = f64a(&[2, 3, 3], &[a.to_f64_vec(), scaled.clone()].concat());
    let together = eval(vmap(|a: Tensor| linalg::cholesky(&a)), &batch).unwrap().to_f64_vec();
    let first = eval(|a: Tensor| linalg::cholesky(&a), &a).unwrap().to_f64_vec();
    let second = eval(|a: Tensor| linalg::cholesky(&a), &f64a(&[3, 3], &scaled)).unwrap().to_f64_vec();
    assert_eq!(together, [first, second].concat());
    // An indefinite matrix gives NaNs, not an error.
    let bad = eval(|a: Tensor| linalg::cholesky(&a), &f64a(&[2, 2], &[1.0, 2.0, 2.0, 1.0])).unwrap();
    let bad = bad.to_f64_vec();
    assert!(bad[0].is_nan() && bad[1] == 0.0 && bad[2].is_nan() && bad[3].is_nan(), "{bad:?}");
}

#[test]
fn errors_name_the_callers_line() {
    let line = line!() + 1;
    let err = trace(|a: Tensor| linalg::cholesky(&a), &Type::new(DType::F64, &[3])).unwrap_err().to_string();
    assert!(err.contains(&format!("tests/linalg.rs:{line}:")) && err.contains("f64[3]"), "{err}");
    let line = line!() + 1;
    let err = trace(|a: Tensor| linalg::cholesky(&a), &Type::new(DType::BF16, &[2, 2])).unwrap_err().to_string();
    assert!(err.contains(&format!("tests/linalg.rs:{line}:")) && err.contains("bf16[2,2]"), "{err}");
}

#[test]
fn eigh_decomposes_and_its_gradient_is_the_closed_form() {
    let (a, _) = spd();
    let (w, v) = eval(|a: Tensor| linalg::eigh(&a), &a).unwrap();
    let (w, v, av) = (w.to_f64_vec(), v.to_f64_vec(), a.to_f64_vec());
    assert!(w.windows(2).all(|p| p[0] < p[1]), "{w:?}");
    // A·v_k = w_k·v_k, and vᵀ·v = I.
    for k in 0..3 {
        for i in 0..3 {
            let av_ik: f64 = (0..3).map(|j| av[i * 3 + j] * v[j * 3 + k]).sum();
            assert!((av_ik - w[k] * v[i * 3 + k]).abs() < 1e-12);
            let vv: f64 = (0..3).map(|j| v[j * 3 + i] * v[j * 3 + k]).sum();
            assert!((vv - f64::from(u8::from(i == k))).abs() < 1e-12);
        }
    }
    // d/dA of the largest eigenvalue is v·vᵀ for its eigenvector.
    let largest = |a: Tensor| linalg::eigh(&a).0.slice(&[ferrax::s(2..3)]).sum_all();
    let g = eval(grad(largest), &a).unwrap().to_f64_vec();
    for i in 0..3 {
        for j in 0..3 {
            assert!((g[i * 3 + j] - v[i * 3 + 2] * v[j * 3 + 2]).abs() < 1e-10, "{g:?}");
        }
    }
    // The JIT agrees, and vmap equals a loop.
    let (jw, jv) = jit(|a: Tensor| linalg::eigh(&a)).call(&a).unwrap();
    assert!(jw.to_f64_vec().iter().zip(&w).all(|(x, y)| (x - y).abs() < 1e-12));
    assert!(jv.to_f64_vec().iter().zip(&v).all(|(x, y)| (x - y).abs() < 1e-12));
    let batch = f64a(&[2, 3, 3], &[av.clone(), av.iter().map(|x| -x).collect()].concat());
    let (bw, _) = eval(vmap(|a: Tensor| linalg::eigh(&a)), &batch).unwrap();
    let neg: Vec<f64> = w.iter().rev().map(|x| -x).collect();
    assert!(bw.to_f64_vec().iter().zip([w.clone(), neg].concat()).all(|(x, y)| (x - y).abs() < 1e-12));
}

#[test]
fn lu_solve_inv_det_and_their_derivative_identities() {
    // A general (non-symmetric) matrix that needs pivoting.
    let a = f64a(&[3, 3], &[0.5, 2.0, -1.0, 3.0, 1.0, 2.0, -1.0, 4.0, 1.0]);
    let b = f64a(&[3], &[1.0, -2.0, 0.5]);
    let av = a.to_f64_vec();
    let inv = inverse3(&av);
    let x = eval(|(a, b): (Tensor, Tensor)| linalg::solve(&a, &b), &(a.clone(), b.clone())).unwrap().to_f64_vec();
    let want: Vec<f64> = (0..3).map(|i| (0..3).map(|k| inv[i * 3 + k] * b.to_f64_vec()[k]).sum()).collect();
    assert!(x.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-12), "{x:?} {want:?}");
    let got_inv = eval(|a: Tensor| linalg::inv(&a), &a).unwrap().to_f64_vec();
    assert!(got_inv.iter().zip(&inv).all(|(g, w)| (g - w).abs() < 1e-12));
    // det by cofactors; d det/dA = det·A⁻ᵀ; d log|det|/dA = A⁻ᵀ.
    let det_want = av[0] * (av[4] * av[8] - av[5] * av[7]) - av[1] * (av[3] * av[8] - av[5] * av[6])
        + av[2] * (av[3] * av[7] - av[4] * av[6]);
    let det = eval(|a: Tensor| linalg::det(&a), &a).unwrap().to_f64_vec()[0];
    assert!((det - det_want).abs() < 1e-12, "{det} vs {det_want}");
    let (sign, logabs) = eval(|a: Tensor| linalg::slogdet(&a), &a).unwrap();
    assert_eq!(sign.to_f64_vec()[0], det_want.signum());
    assert!((logabs.to_f64_vec()[0] - det_want.abs().ln()).abs() < 1e-12);
    let g_det = eval(grad(|a: Tensor| linalg::det(&a)), &a).unwrap().to_f64_vec();
    let g_log = eval(grad(|a: Tensor| linalg::slogdet(&a).1), &a).unwrap().to_f64_vec();
    for i in 0..3 {
        for j in 0..3 {
            let inv_t = inv[j * 3 + i];
            assert!((g_det[i * 3 + j] - det_want * inv_t).abs() < 1e-10, "det grad {g_det:?}");
            assert!((g_log[i * 3 + j] - inv_t).abs() < 1e-12, "slogdet grad {g_log:?}");
        }
    }
    // grad through solve equals grad through the explicit inverse.
    let through_solve =
        eval(grad(|(a, b): (Tensor, Tensor)| linalg::solve(&a, &b).sum_all()), &(a.clone(), b.clone())).unwrap();
    let through_inv =
        eval(grad(|(a, b): (Tensor, Tensor)| linalg::inv(&a).matmul(&b).sum_all()), &(a.clone(), b.clone())).unwrap();
    for (s, i) in [(through_solve.0, through_inv.0), (through_solve.1, through_inv.1)] {
        assert!(s.to_f64_vec().iter().zip(i.to_f64_vec()).all(|(x, y)| (x - y).abs() < 1e-12));
    }
    // The JIT agrees.
    let j = jit(|a: Tensor| linalg::det(&a)).call(&a).unwrap().to_f64_vec()[0];
    assert!((j - det).abs() < 1e-12);
    // A singular matrix: det 0, slogdet (0, -inf).
    let singular = f64a(&[2, 2], &[1.0, 2.0, 2.0, 4.0]);
    let (sign, logabs) = eval(|a: Tensor| linalg::slogdet(&a), &singular).unwrap();
    assert_eq!((sign.to_f64_vec()[0], logabs.to_f64_vec()[0]), (0.0, f64::NEG_INFINITY));
}

#[test]
fn norms_and_their_subgradients_at_zero_follow_jax() {
    use linalg::Ord;
    let v = f64a(&[3], &[3.0, -4.0, 0.0]);
    let m = f64a(&[2, 2], &[1.0, -2.0, 3.0, 4.0]);
    let value = |x: &Array, ord: Ord| eval(move |x: Tensor| linalg::norm(&x, ord), x).unwrap().to_f64_vec()[0];
    // Vector norms (jnp.linalg.norm of [3, -4, 0]).
    let p3 = (27.0f64 + 64.0).powf(1.0 / 3.0);
    for (ord, want) in [
        (Ord::Default, 5.0),
        (Ord::P(1.0), 7.0),
        (Ord::Inf, 4.0),
        (Ord::NegInf, 0.0),
        (Ord::P(0.0), 2.0),
        (Ord::P(3.0), p3),
    ] {
        assert!((value(&v, ord) - want).abs() < 1e-12, "{ord:?}");
    }
    // Matrix norms of [[1, -2], [3, 4]]: columns sum to 4 and 6, rows to 3 and 7.
    let fro = 30f64.sqrt();
    for (ord, want) in [(Ord::Fro, fro), (Ord::P(1.0), 6.0), (Ord::P(-1.0), 4.0), (Ord::Inf, 7.0), (Ord::NegInf, 3.0)] {
        assert!((value(&m, ord) - want).abs() < 1e-12, "{ord:?}");
    }
    // Gradients at zero, as JAX gives them (jax 0.10): NaN for the 2-norm, abs's
    // subgradient 1 for the 1-norm, a tie split by max/min for the others.
    let zero = f64a(&[3], &[0.0; 3]);
    let g = |ord: Ord| eval(grad(move |x: Tensor| linalg::norm(&x, ord)), &zero).unwrap().to_f64_vec();
    assert!(g(Ord::Default).iter().all(|x| x.is_nan()));
    assert_eq!(g(Ord::P(1.0)), vec![1.0; 3]);
    assert_eq!(g(Ord::P(0.0)), vec![0.0; 3]);
    // Unsupported: the matrix 2-norm needs singular values.
    let err =
        trace(|x: Tensor| linalg::norm(&x, Ord::P(2.0)), &Type::new(DType::F64, &[2, 2])).unwrap_err().to_string();
    assert!(err.contains("not supported"), "{err}");
}
