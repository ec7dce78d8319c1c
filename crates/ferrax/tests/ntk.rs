//! `ferrax::ntk`: the empirical neural tangent kernel of an MLP from products, against
//! the explicit `J(x1)·J(x2)ᵀ` of its Jacobians (`jacrev` on host arrays).

use ferrax::ntk::{NtkMethod, ntk, ntk_with};
use ferrax::{Array, DType, Tensor, Type, eval, jacrev, jit, trace};

/// Deterministic values in [-1, 1).
fn values(seed: u64, count: usize) -> Vec<f64> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn array(shape: &[usize], seed: u64) -> Array {
    Array::from_f64(shape, values(seed, shape.iter().product())).unwrap()
}

/// `sin(tanh(x·w1 + b1)·w2 + b2)` on a batch `[N, D]`: `[N, K]`. (The output's
/// nonlinearity makes `Θ[i, j, a, b]` differ from `Θ[i, j, b, a]`, which a linear last
/// layer would not.)
fn mlp(p: &(Tensor, Tensor, Tensor, Tensor), x: &Tensor) -> Tensor {
    let (w1, b1, w2, b2) = p;
    ((x.matmul(w1) + b1).tanh().matmul(w2) + b2).sin()
}

/// The MLP with one output per example: `[N]`.
fn scalar_mlp(p: &(Tensor, Tensor, Tensor, Tensor), x: &Tensor) -> Tensor {
    let n = x.shape()[0];
    mlp(p, x).reshape(&[n])
}

type Params = (Array, Array, Array, Array);

fn params(d: usize, h: usize, k: usize) -> Params {
    (array(&[d, h], 1), array(&[h], 2), array(&[h, k], 3), array(&[k], 4))
}

/// `Σ_leaves J1·J2ᵀ` on host arrays: `[N1·K, N2·K]` row-major, from jacrev's blocks
/// (each `[N, (K,) leaf...]`).
fn explicit_ntk(
    f: fn(&(Tensor, Tensor, Tensor, Tensor), &Tensor) -> Tensor,
    p: &Params,
    x1: &Array,
    x2: &Array,
) -> Vec<f64> {
    let jacobian = |x: &Array| -> Vec<Array> {
        let args = (p.0.clone(), p.1.clone(), p.2.clone(), p.3.clone(), x.clone());
        let blocks =
            jacrev(move |(w1, b1, w2, b2, x): (Tensor, Tensor, Tensor, Tensor, Tensor)| f(&(w1, b1, w2, b2), &x))
                .argnums(&[0, 1, 2, 3])
                .call(&args)
                .unwrap();
        vec![blocks.0, blocks.1, blocks.2, blocks.3]
    };
    let (j1, j2) = (jacobian(x1), jacobian(x2));
    let rows = |j: &Array, leaf: &Array| (j.len() / leaf.len(), j.to_f64_vec());
    let leaves = [&p.0, &p.1, &p.2, &p.3];
    let (r1, r2) = (j1[0].len() / p.0.len(), j2[0].len() / p.0.len());
    let mut theta = vec![0.0; r1 * r2];
    for (l, leaf) in leaves.iter().enumerate() {
        let ((n1, a), (n2, b)) = (rows(&j1[l], leaf), rows(&j2[l], leaf));
        let size = leaf.len();
        for i in 0..n1 {
            for j in 0..n2 {
                theta[i * n2 + j] += (0..size).map(|q| a[i * size + q] * b[j * size + q]).sum::<f64>();
            }
        }
    }
    theta
}

fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

type Kernel = fn((Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)) -> Tensor;

#[test]
fn scalar_output_ntk_equals_j_jt() {
    let p = params(3, 5, 1);
    let (x1, x2) = (array(&[4, 3], 5), array(&[6, 3], 6));
    let want = explicit_ntk(scalar_mlp, &p, &x1, &x2);
    let kernels: [(&str, Kernel); 2] = [
        ("products", |(w1, b1, w2, b2, x1, x2)| ntk(scalar_mlp, &(w1, b1, w2, b2), &x1, &x2)),
        ("jacobian", |(w1, b1, w2, b2, x1, x2)| ntk_with(scalar_mlp, &(w1, b1, w2, b2), &x1, &x2, NtkMethod::Jacobian)),
    ];
    let args = (p.0, p.1, p.2, p.3, x1, x2);
    for (name, kernel) in kernels {
        let theta = eval(kernel, &args).unwrap();
        assert_eq!(theta.shape(), [4, 6], "{name}");
        let difference = max_difference(&theta.to_f64_vec(), &want);
        assert!(difference < 1e-12, "{name}: max difference {difference:e}");
        let compiled = jit(kernel).call(&args).unwrap();
        let difference = max_difference(&compiled.to_f64_vec(), &want);
        assert!(difference < 1e-12, "{name} under jit: max difference {difference:e}");
    }
}

#[test]
fn vector_output_ntk_is_n1_n2_k_k() {
    let (n1, n2, k) = (3, 2, 4);
    let p = params(2, 6, k);
    let (x1, x2) = (array(&[n1, 2], 7), array(&[n2, 2], 8));
    // Explicit: [N1·K, N2·K] with rows (i, a) and columns (j, b).
    let want = explicit_ntk(mlp, &p, &x1, &x2);
    let args = (p.0, p.1, p.2, p.3, x1, x2);
    for method in [NtkMethod::Products, NtkMethod::Jacobian] {
        let kernel = |(w1, b1, w2, b2, x1, x2): (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)| {
            ntk_with(mlp, &(w1, b1, w2, b2), &x1, &x2, method)
        };
        let theta = eval(kernel, &args).unwrap();
        assert_eq!(theta.shape(), [n1, n2, k, k], "{method:?}");
        let got = theta.to_f64_vec();
        let mut difference: f64 = 0.0;
        for i in 0..n1 {
            for j in 0..n2 {
                for a in 0..k {
                    for b in 0..k {
                        let theta_ijab = got[((i * n2 + j) * k + a) * k + b];
                        let explicit = want[(i * k + a) * (n2 * k) + j * k + b];
                        difference = difference.max((theta_ijab - explicit).abs());
                    }
                }
            }
        }
        assert!(difference < 1e-12, "{method:?}: max difference {difference:e}");
    }
}

#[test]
fn the_product_form_never_forms_a_batch_jacobian() {
    // P = 4·64 + 64 + 64·3 + 3 = 515 parameters; J(x1) would be [N1, K, ...] per leaf,
    // [8, 3, 4, 64] for w1 (6144 elements), which never appears: only one example's
    // Jacobian rows ([K, ...]) are live at a time.
    let (n1, n2, d, h, k) = (8, 5, 4, 64, 3);
    let types = [
        Type::new(DType::F64, &[d, h]),
        Type::new(DType::F64, &[h]),
        Type::new(DType::F64, &[h, k]),
        Type::new(DType::F64, &[k]),
        Type::new(DType::F64, &[n1, d]),
        Type::new(DType::F64, &[n2, d]),
    ];
    let kernel = |[w1, b1, w2, b2, x1, x2]: [Tensor; 6]| ntk(mlp, &(w1, b1, w2, b2), &x1, &x2);
    let module = trace(kernel, &types).unwrap();
    let batch_jacobian = n1 * k * d * h;
    for func in module.funcs.values() {
        for ty in &func.value_types {
            let elements: usize = ty.shape.iter().product();
            assert!(elements < batch_jacobian, "@{} has {ty}", func.name);
        }
    }
    // The explicit method does form it.
    let explicit =
        |[w1, b1, w2, b2, x1, x2]: [Tensor; 6]| ntk_with(mlp, &(w1, b1, w2, b2), &x1, &x2, NtkMethod::Jacobian);
    let module = trace(explicit, &types).unwrap();
    let largest =
        module.funcs.values().flat_map(|f| f.value_types.iter()).map(|t| t.shape.iter().product::<usize>()).max();
    assert!(largest >= Some(batch_jacobian));
}

#[test]
fn bad_batches_are_errors() {
    let types = [Type::new(DType::F64, &[3]), Type::new(DType::F64, &[4, 3]), Type::new(DType::F64, &[2, 2])];
    let kernel = |[w, x1, x2]: [Tensor; 3]| ntk(|w: &Tensor, x: &Tensor| x.matmul(w), &w, &x1, &x2);
    let message = trace(kernel, &types).unwrap_err().to_string();
    assert!(message.contains("ntk: x1 is f64[4,3] and x2 is f64[2,2]"), "{message}");
    let types = [Type::new(DType::F64, &[3]), Type::new(DType::F64, &[4, 3]), Type::new(DType::F64, &[2, 3])];
    let per_batch = |[w, x1, x2]: [Tensor; 3]| ntk(|w: &Tensor, x: &Tensor| x.matmul(w).sum_all(), &w, &x1, &x2);
    let message = trace(per_batch, &types).unwrap_err().to_string();
    assert!(message.contains("it must return [1] or [1, K]"), "{message}");
}
