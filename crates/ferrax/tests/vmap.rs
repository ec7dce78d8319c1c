//! `vmap` and the Jacobians on closures, against loops over the examples: per-example
//! gradients (`vmap` of `Grad::apply`), `grad` of a sum over `vmap`, `vmap` of `vmap`,
//! and `jacfwd`/`jacrev`/`hessian` on host arrays.

use ferrax::{Array, Tensor, grad, hessian, jacfwd, jacrev, vmap};

fn f64s(shape: &[usize], seed: u64) -> Array {
    let n: usize = shape.iter().product();
    let values = (0..n).map(|i| ((i as u64 * 7 + seed * 13) % 17) as f64 / 8.0 - 1.0).collect();
    Array::from_f64(shape, values).unwrap()
}

/// Row `b` of a batch stacked at axis 0.
fn row(a: &Array, b: usize) -> Array {
    let n: usize = a.shape()[1..].iter().product();
    Array::from_f64(&a.shape()[1..], a.to_f64_vec()[b * n..(b + 1) * n].to_vec()).unwrap()
}

fn assert_close(actual: &Array, expected: &Array, what: &str) {
    assert_eq!(actual.shape(), expected.shape(), "{what}");
    for (a, e) in actual.to_f64_vec().into_iter().zip(expected.to_f64_vec()) {
        assert!((a - e).abs() <= 1e-12 * (1.0 + e.abs()), "{what}: {a} vs {e}");
    }
}

/// loss(w, x) = sum(tanh(w x) * sin(w)) for one example.
fn loss([w, x]: [Tensor; 2]) -> Tensor {
    ((&w * &x).tanh() * w.sin()).sum_all()
}

#[test]
fn per_example_gradients_through_the_closure_api() {
    let (w, xs) = (f64s(&[3], 1), f64s(&[5, 3], 2));
    let g = grad(loss);
    let per_example = vmap(|args: [Tensor; 2]| g.apply(&args)[0].clone()).in_axes(&[None, Some(0)]);
    let batched: Array = per_example.call(&[w.clone(), xs.clone()]).unwrap();
    assert_eq!(batched.shape(), &[5, 3]);
    for b in 0..5 {
        let expected = g.call(&[w.clone(), row(&xs, b)]).unwrap();
        assert_close(&row(&batched, b), &expected[0], &format!("example {b}"));
    }
}

#[test]
fn grad_of_a_sum_over_vmap_through_the_closure_api() {
    let (w, xs) = (f64s(&[3], 3), f64s(&[4, 3], 4));
    let total = |[w, xs]: [Tensor; 2]| vmap(loss).in_axes(&[None, Some(0)]).apply::<_, Tensor>(&[w, xs]).sum_all();
    let g = grad(total).call(&[w.clone(), xs.clone()]).unwrap();
    let mut expected = vec![0.0; 3];
    for b in 0..4 {
        let one = grad(loss).call(&[w.clone(), row(&xs, b)]).unwrap();
        for (e, v) in expected.iter_mut().zip(one[0].to_f64_vec()) {
            *e += v;
        }
        // The gradient with respect to the batch is the per-example one, row by row.
        assert_close(&row(&g[1], b), &one[1], &format!("d/dx of example {b}"));
    }
    assert_close(&g[0], &Array::from_f64(&[3], expected).unwrap(), "d/dw");
}

#[test]
fn vmap_of_vmap_through_the_closure_api() {
    let (ws, xs) = (f64s(&[2, 3], 5), f64s(&[2, 4, 3], 6));
    let inner = |args: [Tensor; 2]| vmap(loss).in_axes(&[None, Some(0)]).apply::<_, Tensor>(&args);
    let out: Array = vmap(inner).call(&[ws.clone(), xs.clone()]).unwrap();
    assert_eq!(out.shape(), &[2, 4]);
    let f = |args: [Tensor; 2]| loss(args);
    for i in 0..2 {
        let batch = row(&xs, i);
        for j in 0..4 {
            let expected: Array = ferrax::eval(f, &[row(&ws, i), row(&batch, j)]).unwrap();
            assert_close(&Array::scalar_f64(out.to_f64_vec()[4 * i + j]), &expected, &format!("({i}, {j})"));
        }
    }
}

/// f(x, y) = (sin(x) * y, sum(x * x)): two outputs, two parameters.
fn two_by_two([x, y]: [Tensor; 2]) -> [Tensor; 2] {
    [x.sin() * &y, (&x * &x).sum_all()]
}

#[test]
fn jacfwd_and_jacrev_agree_with_jax_layout() {
    let args = [f64s(&[3], 7), f64s(&[3], 8)];
    let fwd = jacfwd(two_by_two).call(&args).unwrap();
    let rev = jacrev(two_by_two).call(&args).unwrap();
    assert_eq!((fwd.len(), fwd[0].len()), (2, 2));
    let shapes = [[vec![3, 3], vec![3, 3]], [vec![3], vec![3]]];
    for o in 0..2 {
        for p in 0..2 {
            assert_eq!(fwd[o][p].shape(), shapes[o][p].as_slice(), "[{o}][{p}]");
            assert_close(&fwd[o][p], &rev[o][p], &format!("jacfwd vs jacrev [{o}][{p}]"));
        }
    }
    // d(sin(x) y)/dx = diag(cos(x) y); d(sum x^2)/dx = 2x.
    let (x, y) = (args[0].to_f64_vec(), args[1].to_f64_vec());
    let diag: Vec<f64> = (0..9).map(|k| if k % 4 == 0 { x[k / 4].cos() * y[k / 4] } else { 0.0 }).collect();
    assert_close(&fwd[0][0], &Array::from_f64(&[3, 3], diag).unwrap(), "d out0 / dx");
    assert_close(&fwd[1][0], &Array::from_f64(&[3], x.iter().map(|v| 2.0 * v).collect()).unwrap(), "d out1 / dx");
}

#[test]
fn hessian_is_symmetric_and_matches_differences_of_the_gradient() {
    let f = |[x]: [Tensor; 1]| ((&x * &x).sin() * x.exp()).sum_all();
    let x = f64s(&[3], 9);
    let h = hessian(f).call(&[x.to_f64_vec()].map(|v| Array::from_f64(&[3], v).unwrap())).unwrap();
    assert_eq!(h[0][0].shape(), &[3, 3]);
    let hv = h[0][0].to_f64_vec();
    let eps = 1e-5;
    for j in 0..3 {
        let at = |delta: f64| {
            let mut moved = x.to_f64_vec();
            moved[j] += delta;
            grad(f).call(&[Array::from_f64(&[3], moved).unwrap()]).unwrap()[0].to_f64_vec()
        };
        let (plus, minus) = (at(eps), at(-eps));
        for i in 0..3 {
            assert!((hv[3 * i + j] - hv[3 * j + i]).abs() < 1e-12, "symmetry at ({i}, {j})");
            let fd = (plus[i] - minus[i]) / (2.0 * eps);
            assert!((hv[3 * i + j] - fd).abs() < 1e-6 * (1.0 + fd.abs()), "H[{i},{j}] = {} vs {fd}", hv[3 * i + j]);
        }
    }
}

/// `Vmap::apply` with no batched argument is an error (as `call` is), not an empty batch.
#[test]
fn vmap_apply_with_nothing_batched_is_an_error() {
    let x = Array::from_f64(&[3], vec![1.0, 2.0, 3.0]).unwrap();
    let result = ferrax::eval(|a: Tensor| ferrax::vmap(|b: Tensor| b.sin()).in_axes(&[None]).apply(&a), &x);
    let err = result.unwrap_err().to_string();
    assert!(err.contains("no argument is batched"), "{err}");
}

#[test]
fn jacobians_are_trees_of_the_outputs_over_the_arguments() {
    // f(x, n) = (x * n, [sum(x^2)]): an f64 argument beside an i32 one, two outputs.
    let f = |(x, n): (Tensor, Tensor)| (&x * &n.cast(ferrax::DType::F64), vec![x.powi(2).sum_all()]);
    let x = Array::from(vec![1.0f64, -2.0, 0.5]);
    let n = Array::from_i32(&[3], vec![2, 3, 4]).unwrap();
    let args = (x.clone(), n.clone());
    for jac in [jacfwd(f).call(&args).unwrap(), jacrev(f).call(&args).unwrap()] {
        let ((d_prod_dx, d_prod_dn), sums) = jac;
        // d(x n)/dx = diag(n); the i32 argument's block is zeros of the output's dtype.
        let diag: Vec<f64> = (0..9).map(|k| if k % 4 == 0 { [2.0, 3.0, 4.0][k / 4] } else { 0.0 }).collect();
        assert_eq!((d_prod_dx.shape(), d_prod_dx.to_f64_vec()), (&[3, 3][..], diag));
        assert_eq!((d_prod_dn.shape(), d_prod_dn.dtype()), (&[3, 3][..], ferrax::DType::F64));
        assert!(d_prod_dn.to_f64_vec().iter().all(|&v| v == 0.0));
        // d sum(x^2)/dx = 2x, of shape [] + [3].
        let [(d_sum_dx, d_sum_dn)] = sums.try_into().unwrap();
        assert_eq!((d_sum_dx.shape(), d_sum_dx.to_f64_vec()), (&[3][..], vec![2.0, -4.0, 1.0]));
        assert_eq!(d_sum_dn.shape(), &[3]);
    }
    // The Hessian of a scalar function of a tuple: the tuple over the tuple.
    let g = |(a, b): (Tensor, Tensor)| (&a * &b).sum_all() + a.powi(3).sum_all();
    let a = Array::from(vec![1.0f64, 2.0]);
    let b = Array::from(vec![3.0f64, 5.0]);
    let ((haa, hab), (hba, hbb)) = hessian(g).call(&(a, b)).unwrap();
    assert_eq!(haa.to_f64_vec(), [6.0, 0.0, 0.0, 12.0]); // diag(6 a)
    assert_eq!((hab.to_f64_vec(), hba.to_f64_vec()), (vec![1.0, 0.0, 0.0, 1.0], vec![1.0, 0.0, 0.0, 1.0]));
    assert_eq!(hbb.to_f64_vec(), [0.0; 4]);
}
