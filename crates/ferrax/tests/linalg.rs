//! `ferrax::linalg`: the Cholesky factor and triangular solves, their gradients against
//! closed forms (W10's `log det A + bᵀA⁻¹b`), batching against a loop, the JIT against
//! the interpreter, and errors at the caller's line; eigh, LU and norms; QR and SVD with
//! what is built on them (lstsq, pinv, the matrix 2-norm and nuclear norm), their
//! gradients against finite differences and known identities.

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
    let line = line!() + 1;
    let err = trace(|a: Tensor| linalg::svd(&a, true, false).s, &Type::new(DType::F64, &[3])).unwrap_err().to_string();
    assert!(err.contains(&format!("tests/linalg.rs:{line}:")) && err.contains("f64[3]"), "{err}");
    let line = line!() + 1;
    let err = trace(|a: Tensor| linalg::qr(&a, false).0, &Type::new(DType::F16, &[3, 2])).unwrap_err().to_string();
    assert!(err.contains(&format!("tests/linalg.rs:{line}:")) && err.contains("f16[3,2]"), "{err}");
    let err = trace(
        |(a, b): (Tensor, Tensor)| linalg::lstsq(&a, &b).x,
        &(Type::new(DType::F64, &[3, 2]), Type::new(DType::F64, &[4])),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("lstsq") && err.contains("f64[3,2]") && err.contains("f64[4]"), "{err}");
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
    // Unsupported: a matrix 3-norm, the nuclear norm of a vector.
    let err =
        trace(|x: Tensor| linalg::norm(&x, Ord::P(3.0)), &Type::new(DType::F64, &[2, 2])).unwrap_err().to_string();
    assert!(err.contains("not supported"), "{err}");
    let err = trace(|x: Tensor| linalg::norm(&x, Ord::Nuc), &Type::new(DType::F64, &[3])).unwrap_err().to_string();
    assert!(err.contains("not supported"), "{err}");
}

/// Central differences of the scalar `f` at `x` (f64), one element at a time.
fn numeric_grad(f: &impl Fn(Tensor) -> Tensor, x: &Array) -> Vec<f64> {
    let base = x.to_f64_vec();
    let h = 1e-6;
    (0..base.len())
        .map(|i| {
            let at = |d: f64| {
                let mut v = base.clone();
                v[i] += d;
                eval(|t: Tensor| f(t), &f64a(x.shape(), &v)).unwrap().to_f64_vec()[0]
            };
            (at(h) - at(-h)) / (2.0 * h)
        })
        .collect()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol * (1.0 + w.abs()), "{what}[{k}]: {g} vs {w}\n{got:?}\n{want:?}");
    }
}

/// Row-major `x·y` of `[m, k]` and `[k, n]`.
fn mm(x: &[f64], y: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    (0..m * n).map(|i| (0..k).map(|l| x[i / n * k + l] * y[l * n + i % n]).sum()).collect()
}

/// Row-major transpose of `[m, n]`.
fn tr(x: &[f64], m: usize, n: usize) -> Vec<f64> {
    (0..m * n).map(|i| x[(i % m) * n + i / m]).collect()
}

/// A tall 4×3 matrix with distinct singular values, and a wide one (its transpose).
fn tall() -> Array {
    f64a(&[4, 3], &[2.0, -1.0, 0.5, 1.0, 3.0, 1.0, -0.5, 1.0, 4.0, 1.0, 0.0, -1.0])
}

#[test]
fn qr_factors_and_its_gradients_match_finite_differences() {
    let a = tall();
    let av = a.to_f64_vec();
    for full in [false, true] {
        let (q, r) = eval(move |a: Tensor| linalg::qr(&a, full), &a).unwrap();
        let (qc, rr) = if full { (4, 4) } else { (3, 3) };
        assert_eq!((q.shape(), r.shape()), (&[4, qc][..], &[rr, 3][..]));
        let (q, r) = (q.to_f64_vec(), r.to_f64_vec());
        // q·r = a, qᵀ·q = I, r upper triangular; LAPACK's sign: r_00 = -‖a_0‖ (a_00 > 0).
        assert_close(&mm(&q, &r, 4, qc, 3), &av, 1e-12, "q·r");
        let eye: Vec<f64> = (0..qc * qc).map(|i| f64::from(u8::from(i % (qc + 1) == 0))).collect();
        assert_close(&mm(&tr(&q, 4, qc), &q, qc, 4, qc), &eye, 1e-12, "qᵀ·q");
        assert!((0..rr * 3).all(|i| i % 3 >= i / 3 || r[i] == 0.0), "{r:?}");
        assert!((r[0] + (4.0f64 + 1.0 + 0.25 + 1.0).sqrt()).abs() < 1e-12, "{r:?}");
    }
    // Gradients of weighted sums of both factors, every mode and shape JAX differentiates.
    let weights = |n: usize, seed: f64| -> Vec<f64> { (0..n).map(|i| ((i as f64 + seed) * 0.7).sin()).collect() };
    for (shape, full) in [([4, 3], false), ([4, 3], true), ([3, 3], true), ([3, 4], false)] {
        let data: Vec<f64> = if shape == [3, 4] { tr(&av, 4, 3) } else { av[..shape[0] * 3].to_vec() };
        let x = f64a(&shape, &data);
        let (m, n) = (shape[0], shape[1]);
        let k = m.min(n);
        let (qc, rr) = if full { (m, m) } else { (k, k) };
        let (wq, wr) = (f64a(&[m, qc], &weights(m * qc, 1.0)), f64a(&[rr, n], &weights(rr * n, 2.0)));
        let f = move |a: Tensor| {
            let (q, r) = linalg::qr(&a, full);
            (q * Tensor::constant(&wq)).sum_all() + (r * Tensor::constant(&wr)).sum_all()
        };
        let g = eval(grad(f.clone()), &x).unwrap().to_f64_vec();
        assert_close(&g, &numeric_grad(&f, &x), 1e-6, &format!("qr grad {shape:?} full={full}"));
    }
}

#[test]
fn svd_values_vectors_norms_and_their_gradients() {
    use linalg::Ord;
    let a = tall();
    let av = a.to_f64_vec();
    let parts = |full: bool| {
        let f = eval(
            move |a: Tensor| {
                let f = linalg::svd(&a, full, true);
                (f.u.unwrap(), f.s, f.vt.unwrap())
            },
            &a,
        );
        let (u, s, vt) = f.unwrap();
        (u.to_f64_vec(), s.to_f64_vec(), vt.to_f64_vec())
    };
    let (u, s, vt) = parts(false);
    assert!(s.windows(2).all(|p| p[0] > p[1]) && s[2] > 0.0, "{s:?}");
    // u·diag(s)·vt = a; the full u's extra column is orthogonal to the others.
    let us: Vec<f64> = (0..12).map(|i| u[i] * s[i % 3]).collect();
    assert_close(&mm(&us, &vt, 4, 3, 3), &av, 1e-12, "u·diag(s)·vt");
    let (uf, sf, vtf) = parts(true);
    assert_eq!((uf.len(), sf, vtf.len()), (16, s.clone(), 9));
    let eye4: Vec<f64> = (0..16).map(|i| f64::from(u8::from(i % 5 == 0))).collect();
    assert_close(&mm(&tr(&uf, 4, 4), &uf, 4, 4, 4), &eye4, 1e-12, "full uᵀ·u");
    // Singular values squared are the eigenvalues of aᵀ·a: their sum is ‖a‖²_F.
    let fro2: f64 = av.iter().map(|x| x * x).sum();
    assert!((s.iter().map(|x| x * x).sum::<f64>() - fro2).abs() < 1e-10);
    // The norms: 2-norm s₀, -2 s₂, nuclear Σs; gradients u₀·v₀ᵀ, u₂·v₂ᵀ and u·vᵀ.
    for (ord, want, cols) in
        [(Ord::P(2.0), s[0], vec![0]), (Ord::P(-2.0), s[2], vec![2]), (Ord::Nuc, s.iter().sum(), vec![0, 1, 2])]
    {
        let value = eval(move |x: Tensor| linalg::norm(&x, ord), &a).unwrap().to_f64_vec()[0];
        assert!((value - want).abs() < 1e-12, "{ord:?}: {value} vs {want}");
        let g = eval(grad(move |x: Tensor| linalg::norm(&x, ord)), &a).unwrap().to_f64_vec();
        let closed: Vec<f64> =
            (0..12).map(|i| cols.iter().map(|&c| u[i / 3 * 3 + c] * vt[c * 3 + i % 3]).sum()).collect();
        assert_close(&g, &closed, 1e-10, &format!("{ord:?} gradient"));
    }
    // Gradients of the thin vectors (sign-invariant weighted sums) against differences,
    // tall and wide; the JIT and vmap agree with the interpreter.
    for x in [a.clone(), f64a(&[3, 4], &tr(&av, 4, 3))] {
        let f = |a: Tensor| {
            let f = linalg::svd(&a, false, true);
            let (u, vt) = (f.u.unwrap(), f.vt.unwrap());
            let n = u.shape()[0];
            let w = Tensor::constant(&Array::from_f64(&[n], (0..n).map(|i| i as f64 + 1.0).collect()).unwrap());
            ((&u * &u).sum([1usize]) * w).sum_all()
                + (&vt * &vt).sum([0usize]).max_axes([0usize], false)
                + f.s.sum_all()
        };
        let g = eval(grad(f), &x).unwrap().to_f64_vec();
        assert_close(&g, &numeric_grad(&f, &x), 1e-6, "svd vectors' gradient");
        let svd3 = |a: Tensor| {
            let f = linalg::svd(&a, true, true);
            (f.u.unwrap(), f.s, f.vt.unwrap())
        };
        let (iu, is, ivt) = eval(svd3, &x).unwrap();
        let (ju, js, jvt) = jit(svd3).call(&x).unwrap();
        for (i, j) in [(iu, ju), (is, js), (ivt, jvt)] {
            assert_close(&j.to_f64_vec(), &i.to_f64_vec(), 1e-12, "jit vs interpreter");
        }
    }
    let batch = f64a(&[2, 4, 3], &[av.clone(), av.iter().map(|x| x * -2.0).collect()].concat());
    let together = eval(vmap(|a: Tensor| linalg::svd(&a, true, false).s), &batch).unwrap().to_f64_vec();
    let doubled: Vec<f64> = s.iter().map(|x| x * 2.0).collect();
    assert_close(&together, &[s.clone(), doubled].concat(), 1e-12, "vmap");
    // As in JAX, the vectors of a non-square full decomposition have no derivative.
    let full_u = |a: Tensor| linalg::svd(&a, true, true).u.unwrap().sum_all();
    let err = eval(grad(full_u), &a).unwrap_err().to_string();
    assert!(err.contains("full_matrices=true") && err.contains("f64[4,3]"), "{err}");
}

#[test]
fn lstsq_and_pinv_solve_least_squares_and_differentiate() {
    let a = tall();
    let av = a.to_f64_vec();
    let b = f64a(&[4], &[1.0, -2.0, 0.5, 3.0]);
    let bv = b.to_f64_vec();
    // The normal equations: aᵀ·a·x = aᵀ·b.
    let ata = mm(&tr(&av, 4, 3), &av, 3, 4, 3);
    let atb = mm(&tr(&av, 4, 3), &bv, 3, 4, 1);
    let want = mm(&inverse3(&ata), &atb, 3, 3, 1);
    let solved = |(a, b): (Tensor, Tensor)| {
        let l = linalg::lstsq(&a, &b);
        (l.x, l.residuals, l.rank)
    };
    let (x, resid, rank) = eval(solved, &(a.clone(), b.clone())).unwrap();
    assert_close(&x.to_f64_vec(), &want, 1e-12, "lstsq x");
    let fit = mm(&av, &want, 4, 3, 1);
    let r2: f64 = fit.iter().zip(&bv).map(|(f, b)| (f - b) * (f - b)).sum();
    assert_close(&resid.to_f64_vec(), &[r2], 1e-12, "residuals");
    assert_eq!((resid.shape(), rank.dtype(), rank.to_f64_vec()), (&[1][..], DType::I32, vec![3.0]));
    // Underdetermined: the minimum-norm solution aᵀ·(a·aᵀ)⁻¹·c of the wide aᵀ.
    let wide = f64a(&[3, 4], &tr(&av, 4, 3));
    let c = f64a(&[3, 2], &[1.0, 0.0, -1.0, 2.0, 0.5, 1.0]);
    let x = eval(|(a, b): (Tensor, Tensor)| linalg::lstsq(&a, &b).x, &(wide.clone(), c.clone())).unwrap();
    let min_norm = mm(&av, &mm(&inverse3(&ata), &c.to_f64_vec(), 3, 3, 2), 4, 3, 2);
    assert_close(&x.to_f64_vec(), &min_norm, 1e-12, "minimum-norm lstsq");
    // pinv of the tall matrix is (aᵀa)⁻¹aᵀ; of the wide one its transpose.
    let p = eval(|a: Tensor| linalg::pinv(&a), &a).unwrap().to_f64_vec();
    let p_want = mm(&inverse3(&ata), &tr(&av, 4, 3), 3, 3, 4);
    assert_close(&p, &p_want, 1e-12, "pinv");
    let pw = eval(|a: Tensor| linalg::pinv(&a), &wide).unwrap().to_f64_vec();
    assert_close(&pw, &tr(&p_want, 3, 4), 1e-12, "pinv of the transpose");
    // Gradients against finite differences: lstsq through the SVD, pinv by its rule.
    let lsq = |a: Tensor| {
        let b = Tensor::constant(&Array::from_f64(&[4], vec![1.0, -2.0, 0.5, 3.0]).unwrap());
        let l = linalg::lstsq(&a, &b);
        (l.x * Tensor::constant(&Array::from_f64(&[3], vec![1.0, -1.0, 2.0]).unwrap())).sum_all()
            + l.residuals.sum_all()
    };
    assert_close(&eval(grad(lsq), &a).unwrap().to_f64_vec(), &numeric_grad(&lsq, &a), 1e-6, "lstsq grad");
    for x in [a.clone(), wide] {
        let f = |a: Tensor| {
            let p = linalg::pinv(&a);
            let n = p.shape()[0] * p.shape()[1];
            let w = Array::from_f64(p.shape(), (0..n).map(|i| (i as f64 * 0.9).cos()).collect()).unwrap();
            (p * Tensor::constant(&w)).sum_all()
        };
        assert_close(&eval(grad(f), &x).unwrap().to_f64_vec(), &numeric_grad(&f, &x), 1e-6, "pinv grad");
    }
    // The pinv rule holds where singular values repeat (an orthogonal matrix: pinv = aᵀ).
    let rot = f64a(&[2, 2], &[0.6, -0.8, 0.8, 0.6]);
    let f = |a: Tensor| (linalg::pinv(&a) * Tensor::constant(&f64a(&[2, 2], &[1.0, 2.0, 3.0, 4.0]))).sum_all();
    let g = eval(grad(f), &rot).unwrap().to_f64_vec();
    assert!(g.iter().all(|x| x.is_finite()), "{g:?}");
    assert_close(&g, &numeric_grad(&f, &rot), 1e-6, "pinv grad at an orthogonal matrix");
}
