//! Values and gradients of `ferrax::linalg` and the sorting ops against JAX's, from the
//! committed fixture `fixtures/jax_grads.txt` (made by `fixtures/make_jax_grads.py`,
//! which defines the same objectives in JAX: well-posed inputs built from one
//! unconstrained matrix, sign-invariant outputs, fixed weights; the LU of a tall 4×3
//! matrix and of its wide transpose).

use ferrax::linalg::{self, Ord};
use ferrax::{Array, Tensor, value_and_grad};

const FIXTURE: &str = include_str!("fixtures/jax_grads.txt");

/// The fixture's rows: name, then numbers.
fn rows() -> Vec<(String, Vec<f64>)> {
    FIXTURE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let (name, rest) = line.split_once(' ').unwrap();
            let numbers = rest.split([' ', ',']).filter(|t| !t.is_empty()).map(|t| t.parse().unwrap()).collect();
            (name.to_string(), numbers)
        })
        .collect()
}

fn constant(shape: &[usize], values: Vec<f64>) -> Tensor {
    Tensor::constant(&Array::from_f64(shape, values).unwrap())
}

/// `Σ sin(0.7·i + phase)·y_i` over `y`'s elements (row-major), as the script's `wsum`.
fn wsum(y: &Tensor, phase: f64) -> Tensor {
    let n: usize = y.shape().iter().product();
    let w = constant(y.shape(), (0..n).map(|i| (i as f64 * 0.7 + phase).sin()).collect());
    (&w * y).sum_all()
}

fn diag(d: [f64; 3]) -> Tensor {
    constant(&[3, 3], (0..9).map(|i| if i % 4 == 0 { d[i / 4] } else { 0.0 }).collect())
}

type Objective = Box<dyn Fn(Tensor) -> Tensor>;

fn objectives(b: &Array) -> Vec<(&'static str, Objective)> {
    let b = b.clone();
    let b2 = b.clone();
    let eye = || diag([1.0, 1.0, 1.0]);
    vec![
        (
            "cholesky",
            Box::new(move |m: Tensor| wsum(&linalg::cholesky(&(m.matmul(&m.transpose()) + eye() * 3.0)), 0.1)),
        ),
        (
            "solve_triangular",
            Box::new(move |m: Tensor| {
                wsum(&linalg::solve_triangular(&(m + eye() * 4.0), &Tensor::constant(&b), true), 0.2)
            }),
        ),
        ("solve", Box::new(move |m: Tensor| wsum(&linalg::solve(&(m + eye() * 4.0), &Tensor::constant(&b2)), 0.3))),
        ("inv", Box::new(move |m: Tensor| wsum(&linalg::inv(&(m + eye() * 4.0)), 0.4))),
        ("det", Box::new(move |m: Tensor| linalg::det(&(m + eye() * 4.0)))),
        ("slogdet", Box::new(move |m: Tensor| linalg::slogdet(&(m + eye() * 4.0)).1)),
        (
            "eigh",
            Box::new(|m: Tensor| {
                let (w, v) = linalg::eigh(&((&m + &m.transpose()) * 0.2 + diag([0.0, 3.0, 6.0])));
                wsum(&w, 0.5) + wsum(&(&v * &v), 0.6)
            }),
        ),
        (
            "qr",
            Box::new(move |m: Tensor| {
                let (q, r) = linalg::qr(&(m + eye() * 2.0), false);
                wsum(&(&q * &q), 0.7) + wsum(&(&r * &r), 0.8)
            }),
        ),
        (
            "svd",
            Box::new(|m: Tensor| {
                let f = linalg::svd(&(m + diag([3.0, 1.5, 0.0])), false, true);
                let (u, vt) = (f.u.unwrap(), f.vt.unwrap());
                wsum(&f.s, 0.9) + wsum(&(&u * &u), 1.0) + wsum(&(&vt * &vt), 1.1)
            }),
        ),
        ("norm_nuc", Box::new(|m: Tensor| linalg::norm(&m, Ord::Nuc))),
        ("norm_2", Box::new(|m: Tensor| linalg::norm(&m, Ord::P(2.0)))),
        ("lu_tall", Box::new(|r: Tensor| wsum(&linalg::lu(&r).0, 1.4))),
        ("lu_wide", Box::new(|r: Tensor| wsum(&linalg::lu(&r.transpose()).0, 1.5))),
        ("sort", Box::new(|x: Tensor| wsum(&x.sort(0), 1.2))),
        ("top_k", Box::new(|x: Tensor| wsum(&x.top_k(3).0, 1.3))),
    ]
}

#[test]
fn values_and_gradients_match_jax() {
    let rows = rows();
    let get = |name: &str| rows.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap();
    let m = Array::from_f64(&[3, 3], get("M")).unwrap();
    let b = Array::from_f64(&[3, 2], get("B")).unwrap();
    let x = Array::from_f64(&[6], get("X")).unwrap();
    let r = Array::from_f64(&[4, 3], get("R")).unwrap();
    let objectives = objectives(&b);
    let mut checked = 0;
    for (name, f) in objectives {
        let want = get(name);
        let arg = match name {
            "sort" | "top_k" => x.clone(),
            "lu_tall" | "lu_wide" => r.clone(),
            _ => m.clone(),
        };
        let (value, grad) = value_and_grad(|t: Tensor| f(t)).call(&arg).unwrap();
        let (value, grad) = (value.to_f64_vec()[0], grad.to_f64_vec());
        let scale = want[1..].iter().fold(1.0f64, |s, g| s.max(g.abs()));
        assert!((value - want[0]).abs() <= 1e-11 * want[0].abs().max(1.0), "{name}: value {value} vs JAX {}", want[0]);
        assert_eq!(grad.len(), want.len() - 1, "{name}");
        for (i, (g, w)) in grad.iter().zip(&want[1..]).enumerate() {
            assert!((g - w).abs() <= 1e-10 * scale, "{name}: gradient [{i}] {g} vs JAX {w}");
        }
        checked += 1;
    }
    assert_eq!(checked, 15);
}
