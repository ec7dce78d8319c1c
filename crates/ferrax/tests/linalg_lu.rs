//! `linalg::lu` on rectangular (tall and wide) stacks of matrices: the factors rebuild
//! the permuted matrix, the jvp of the packed factors agrees with central differences at
//! orders 1 and 2 (f64), the vjp satisfies the adjoint identity, vmap equals a loop and
//! the JIT (faer's blocked LU, with the reference rule at a zero pivot) equals the
//! interpreter; the functions that need square matrices say so at the caller's line.

use ferrax::{Array, DType, Tensor, Type, eval, jit, jvp, linalg, trace, transforms, vjp, vmap};

fn f64a(shape: &[usize], values: &[f64]) -> Array {
    Array::from_f64(shape, values.to_vec()).unwrap()
}

/// Deterministic values in [-1, 1].
fn noise(count: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..count)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

/// A batch of `m`×`n` matrices whose pivots are far from ties: noise plus 4 on the main
/// diagonal of the rectangle, rows reversed (so that pivoting permutes them).
fn pivoted(batch: usize, m: usize, n: usize, seed: u64) -> Array {
    let x = noise(batch * m * n, seed);
    let values: Vec<f64> = (0..batch * m * n)
        .map(|i| {
            let (b, r, c) = (i / (m * n), i / n % m, i % n);
            let from = b * m * n + (m - 1 - r) * n + c;
            x[from] + if m - 1 - r == c { 4.0 } else { 0.0 }
        })
        .collect();
    f64a(&[batch, m, n], &values)
}

fn packed(a: Tensor) -> Tensor {
    linalg::lu(&a).0
}

/// The largest absolute difference of `x` and `y`, over the largest magnitude of `y`.
fn relative_gap(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len());
    let scale = y.iter().fold(1e-300f64, |s, v| s.max(v.abs()));
    x.iter().zip(y).fold(0.0f64, |g, (a, b)| g.max((a - b).abs())) / scale
}

/// `a + h·v` element by element.
fn step(a: &Array, v: &Array, h: f64) -> Array {
    let values: Vec<f64> = a.to_f64_vec().iter().zip(v.to_f64_vec()).map(|(x, d)| x + h * d).collect();
    f64a(a.shape(), &values)
}

fn lu_of(a: &Array) -> Vec<f64> {
    eval(packed, a).unwrap().to_f64_vec()
}

const SHAPES: [(usize, usize, usize); 4] = [(2, 5, 3), (2, 3, 5), (1, 4, 1), (1, 1, 4)];

#[test]
fn the_factors_rebuild_the_permuted_matrix() {
    for (seed, (batch, m, n)) in SHAPES.into_iter().enumerate() {
        let a = pivoted(batch, m, n, seed as u64 + 1);
        let (lu, pivots, perm) = eval(|a: Tensor| linalg::lu(&a), &a).unwrap();
        let k = m.min(n);
        assert_eq!((lu.shape(), pivots.shape(), perm.shape()), (&[batch, m, n][..], &[batch, k][..], &[batch, m][..]));
        let (lu, perm, av) = (lu.to_f64_vec(), perm.as_i32().unwrap().to_vec(), a.to_f64_vec());
        for b in 0..batch {
            let at = |i: usize, j: usize| lu[b * m * n + i * n + j];
            for i in 0..m {
                for j in 0..n {
                    // (L·U)[i, j] = Σ_{t ≤ min(i, j), t < k} L[i, t]·U[t, j], L's diagonal one.
                    let sum: f64 =
                        (0..=i.min(j).min(k - 1)).map(|t| if t == i { at(t, j) } else { at(i, t) * at(t, j) }).sum();
                    let row = perm[b * m + i] as usize;
                    let want = av[b * m * n + row * n + j];
                    assert!((sum - want).abs() < 1e-12, "{m}x{n} [{b}, {i}, {j}]: {sum} vs {want}");
                }
            }
        }
        // The reversed rows come back in order: pivoting undid the reversal.
        let first: Vec<i32> = (0..m as i32).rev().collect();
        assert_eq!(&perm[..k], &first[..k], "{m}x{n}");
    }
}

#[test]
fn jvp_agrees_with_central_differences_at_orders_one_and_two() {
    for (seed, (batch, m, n)) in SHAPES.into_iter().enumerate() {
        let a = pivoted(batch, m, n, seed as u64 + 11);
        let v = f64a(a.shape(), &noise(batch * m * n, seed as u64 + 21));
        let (_, first) = jvp(packed, &a, &v).unwrap();
        let h = 1e-5;
        let (plus, minus) = (lu_of(&step(&a, &v, h)), lu_of(&step(&a, &v, -h)));
        let central: Vec<f64> = plus.iter().zip(&minus).map(|(p, q)| (p - q) / (2.0 * h)).collect();
        let gap = relative_gap(&first.to_f64_vec(), &central);
        assert!(gap < 1e-9, "{m}x{n}: first order off by {gap:e}");
        // Order 2: the jvp of the jvp along the same direction.
        let along = |a: Tensor| transforms::jvp(packed).apply(&a, &Tensor::constant(&v)).1;
        let (_, second) = jvp(along, &a, &v).unwrap();
        let h = 1e-3;
        let (plus, minus, mid) = (lu_of(&step(&a, &v, h)), lu_of(&step(&a, &v, -h)), lu_of(&a));
        let curvature: Vec<f64> = (0..mid.len()).map(|i| (plus[i] - 2.0 * mid[i] + minus[i]) / (h * h)).collect();
        let gap = relative_gap(&second.to_f64_vec(), &curvature);
        assert!(gap < 2e-6, "{m}x{n}: second order off by {gap:e}");
        // A single row is its own U (the map is linear); otherwise L = rows / pivots curves.
        let curved = second.to_f64_vec().iter().any(|x| x.abs() > 1e-3);
        assert_eq!(curved, m > 1, "{m}x{n}: second derivative {second:?}");
    }
}

#[test]
fn vjp_is_the_adjoint_of_the_jvp() {
    for (seed, (batch, m, n)) in SHAPES.into_iter().enumerate() {
        let a = pivoted(batch, m, n, seed as u64 + 31);
        let v = f64a(a.shape(), &noise(batch * m * n, seed as u64 + 41));
        let ct = f64a(a.shape(), &noise(batch * m * n, seed as u64 + 51));
        let (_, jv) = jvp(packed, &a, &v).unwrap();
        let (_, vj) = vjp(packed, &a, &ct).unwrap();
        let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>();
        let (left, right) = (dot(&ct.to_f64_vec(), &jv.to_f64_vec()), dot(&vj.to_f64_vec(), &v.to_f64_vec()));
        assert!((left - right).abs() < 1e-12 * left.abs().max(1.0), "{m}x{n}: {left} vs {right}");
    }
}

#[test]
fn vmap_equals_a_loop_and_the_jit_equals_the_interpreter() {
    for (seed, (batch, m, n)) in [(2, 5, 3), (2, 3, 5), (1, 40, 24), (1, 24, 40)].into_iter().enumerate() {
        let a = pivoted(batch, m, n, seed as u64 + 61);
        let (lu, pivots, perm) = eval(|a: Tensor| linalg::lu(&a), &a).unwrap();
        let (vl, vp, vq) = eval(vmap(|a: Tensor| linalg::lu(&a)), &a).unwrap();
        assert_eq!((vl.to_f64_vec(), vp.as_i32(), vq.as_i32()), (lu.to_f64_vec(), pivots.as_i32(), perm.as_i32()));
        let looped: Vec<f64> = (0..batch)
            .flat_map(|b| {
                let one = f64a(&[m, n], &a.to_f64_vec()[b * m * n..(b + 1) * m * n]);
                lu_of(&one)
            })
            .collect();
        assert_eq!(looped, lu.to_f64_vec(), "{m}x{n}");
        let (jl, jp, jq) = jit(|a: Tensor| linalg::lu(&a)).call(&a).unwrap();
        assert_eq!((jp.as_i32(), jq.as_i32()), (pivots.as_i32(), perm.as_i32()), "{m}x{n}");
        let gap = relative_gap(&jl.to_f64_vec(), &lu.to_f64_vec());
        assert!(gap < 1e-13, "{m}x{n}: JIT off by {gap:e}");
        // And the JIT of the jvp agrees with the interpreter's.
        let v = f64a(a.shape(), &noise(batch * m * n, seed as u64 + 71));
        let (_, want) = jvp(packed, &a, &v).unwrap();
        let (_, got) = jit(transforms::jvp(packed)).call(&(a.clone(), v.clone())).unwrap();
        let gap = relative_gap(&got.to_f64_vec(), &want.to_f64_vec());
        assert!(gap < 1e-12, "{m}x{n}: JIT jvp off by {gap:e}");
    }
}

#[test]
fn a_zero_column_under_the_jit_is_the_interpreters_result() {
    // Column 0 is zero: no swap, no scaling, a zero on U's diagonal.
    for (shape, values) in [
        (vec![3, 2], vec![0.0, 1.0, 0.0, 2.0, 0.0, 3.0]),
        (vec![2, 3], vec![0.0, 1.0, 2.0, 0.0, 4.0, 1.0]),
        (vec![3, 3], vec![1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 0.0, 1.0]),
    ] {
        let a = f64a(&shape, &values);
        let (lu, pivots, perm) = eval(|a: Tensor| linalg::lu(&a), &a).unwrap();
        let (jl, jp, jq) = jit(|a: Tensor| linalg::lu(&a)).call(&a).unwrap();
        assert!(lu.to_f64_vec().iter().all(|x| x.is_finite()), "{shape:?}: {lu:?}");
        assert_eq!(
            (jl.to_f64_vec(), jp.as_i32(), jq.as_i32()),
            (lu.to_f64_vec(), pivots.as_i32(), perm.as_i32()),
            "{shape:?}"
        );
    }
}

#[test]
fn functions_that_need_square_matrices_say_so_at_the_callers_line() {
    let tall = Type::new(DType::F64, &[2, 3, 2]);
    let check = |err: String, line: u32, op: &str| {
        assert!(err.contains(&format!("tests/linalg_lu.rs:{line}:")), "{err}");
        assert!(err.contains(&format!("{op}: expects square matrices")) && err.contains("f64[2,3,2]"), "{err}");
    };
    let line = line!() + 1;
    let err = trace(|a: Tensor| linalg::det(&a), &tall).unwrap_err().to_string();
    check(err, line, "det");
    let line = line!() + 1;
    let err = trace(|a: Tensor| linalg::slogdet(&a).1, &tall).unwrap_err().to_string();
    check(err, line, "slogdet");
    let line = line!() + 1;
    let err = trace(|a: Tensor| linalg::inv(&a), &tall).unwrap_err().to_string();
    check(err, line, "inv");
    let b = Type::new(DType::F64, &[2, 3]);
    let line = line!() + 1;
    let err = trace(|(a, b): (Tensor, Tensor)| linalg::solve(&a, &b), &(tall.clone(), b)).unwrap_err().to_string();
    check(err, line, "solve");
    // lu itself takes the rectangle, but not a vector.
    assert!(trace(|a: Tensor| linalg::lu(&a).0, &tall).is_ok());
    let line = line!() + 1;
    let err = trace(|a: Tensor| linalg::lu(&a).0, &Type::new(DType::F64, &[3])).unwrap_err().to_string();
    assert!(err.contains(&format!("tests/linalg_lu.rs:{line}:")) && err.contains("f64[3]"), "{err}");
}
