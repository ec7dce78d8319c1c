//! Transforms compose in any order, as in JAX: every transform takes any
//! [`ferrax::Traceable`] (a closure or another transform). Each composition is checked
//! against a closed form in f64; this file uses only the public API, as a user's crate
//! does.

use ferrax::{Array, Tensor, grad, jit, vmap};

fn close(got: &Array, want: &[f64]) {
    let got = got.to_f64_vec();
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{got:?} vs {want:?}");
    }
}

/// f(x) = Σ x³ sin x: its gradient and second derivative in closed form.
fn f(x: Tensor) -> Tensor {
    (x.powi(3) * x.sin()).sum_all()
}

fn df(x: f64) -> f64 {
    3.0 * x * x * x.sin() + x.powi(3) * x.cos()
}

fn d2f(x: f64) -> f64 {
    6.0 * x * x.sin() + 6.0 * x * x * x.cos() - x.powi(3) * x.sin()
}

#[test]
fn jit_of_grad_compiles_the_gradient() {
    let xs = [0.5, -1.25, 2.0];
    let g = jit(grad(f));
    close(&g.call(&Array::from(xs.to_vec())).unwrap(), &xs.map(df));
    assert_eq!(g.compiles(), 1);
}

#[test]
fn grad_of_grad_is_the_second_derivative() {
    let scalar = |x: Tensor| f(x);
    for x in [0.5f64, -1.25, 2.0] {
        close(&grad(grad(scalar)).call(&Array::scalar(x)).unwrap(), &[d2f(x)]);
        close(&jit(grad(grad(scalar))).call(&Array::scalar(x)).unwrap(), &[d2f(x)]);
    }
}

#[test]
fn vmap_of_grad_gives_per_example_gradients() {
    let xs = Array::from_f64(&[3, 2], vec![0.5, -1.0, 2.0, 0.25, -0.75, 1.5]).unwrap();
    let want: Vec<f64> = xs.to_f64_vec().into_iter().map(df).collect();
    close(&vmap(grad(f)).call::<_, Tensor>(&xs).unwrap(), &want);
    close(&jit(vmap(grad(f))).call(&xs).unwrap(), &want);
    close(&vmap(jit(grad(f))).call::<_, Tensor>(&xs).unwrap(), &want);
}

#[test]
fn grad_of_jit_differentiates_the_compiled_function() {
    let xs = [0.5, -1.25, 2.0];
    close(&grad(jit(f)).call(&Array::from(xs.to_vec())).unwrap(), &xs.map(df));
}

#[test]
fn grad_of_vmap_differentiates_a_batched_sum() {
    // g(w) = Σ_rows tanh(w·x_row): per-row dot products through vmap, then a sum.
    let xs = Array::from_f64(&[2, 2], vec![1.0, 2.0, -0.5, 0.25]).unwrap();
    let rows = xs.to_f64_vec();
    let w = [0.3, -0.2];
    let dots = vmap(|[w, x]: [Tensor; 2]| (&w * &x).sum_all()).in_axes(&[None, Some(0)]);
    let g = grad(|[w, x]: [Tensor; 2]| dots.apply::<_, Tensor>(&[w, x]).tanh().sum_all());
    let [dw, _] = g.call(&[Array::from(w.to_vec()), xs]).unwrap();
    let mut want = [0.0; 2];
    for r in rows.chunks(2) {
        let s = 1.0 - (w[0] * r[0] + w[1] * r[1]).tanh().powi(2);
        want[0] += s * r[0];
        want[1] += s * r[1];
    }
    close(&dw, &want);
}

#[test]
fn a_compiled_hessian_vector_product_is_jvp_of_grad_under_jit() {
    // H = diag(d2f(x_i)) for the separable f, so H v = d2f(x) * v.
    let (xs, vs) = ([0.5, -1.25, 2.0], [1.0, 0.5, -2.0]);
    let want: Vec<f64> = xs.iter().zip(vs).map(|(&x, v)| d2f(x) * v).collect();
    let (x, v) = (Array::from(xs.to_vec()), Array::from(vs.to_vec()));
    let hvp = jit(ferrax::transforms::hvp(f));
    close(&hvp.call(&(x.clone(), v.clone())).unwrap(), &want);
    // Hand-written as JAX users do: the jvp of the gradient, under jit.
    let by_hand = jit(|[x, v]: [Tensor; 2]| ferrax::transforms::jvp(grad(f)).apply(&x, &v).1);
    close(&by_hand.call(&[x.clone(), v.clone()]).unwrap(), &want);
    // The same through the eager forms, which take any transform too.
    close(&ferrax::jvp(grad(f), &x, &v).unwrap().1, &want);
    close(&ferrax::hvp(jit(f), &x, &v).unwrap(), &want);
}

#[test]
fn jacobians_compose_and_compile() {
    use ferrax::{hessian, jacfwd, jacrev};
    let g = |x: Tensor| (x.powi(3) * x.sin()).sum_all() + x.sum_all().powi(2);
    let x = Array::from(vec![0.5f64, -1.25, 2.0]);
    // jit(jacrev(f)) is one compiled module; it agrees with the interpreted Jacobian.
    let square = |x: Tensor| &x * &x.sin();
    let compiled = jit(jacrev(square));
    let j: Array = compiled.call(&x).unwrap();
    let want: Array = jacrev(square).call(&x).unwrap();
    close(&j, &want.to_f64_vec());
    assert_eq!(compiled.compiles(), 1);
    // jacfwd(jacrev(g)) is the Hessian: diag(d2f) + 2 (the sum squared gives 2·ones).
    let h: Array = jacfwd(jacrev(g)).call(&x).unwrap();
    let xs = x.to_f64_vec();
    let want: Vec<f64> = (0..9).map(|k| 2.0 + if k % 4 == 0 { d2f(xs[k / 4]) } else { 0.0 }).collect();
    close(&h, &want);
    let direct: Array = hessian(g).call(&x).unwrap();
    close(&direct, &want);
    close(&jit(jacfwd(jacrev(g))).call(&x).unwrap(), &want);
    close(&jit(hessian(g)).call(&x).unwrap(), &want);
}

#[test]
fn jacobians_and_hessians_take_argnums() {
    use ferrax::{hessian, jacfwd, jacrev};
    // f(a, b) = a * b (elementwise): d/da = diag(b), d/db = diag(a).
    let f = |(a, b): (Tensor, Tensor)| &a * &b;
    let args = (Array::from(vec![1.0f64, 2.0]), Array::from(vec![3.0f64, 5.0]));
    for j in [jacfwd(f).argnums(&[1]).call(&args).unwrap(), jacrev(f).argnums(&[1]).call(&args).unwrap()] {
        let (d_da, d_db) = j;
        close(&d_da, &[0.0; 4]);
        close(&d_db, &[1.0, 0.0, 0.0, 2.0]);
    }
    let (d_da, _) = jit(jacrev(f).argnums(&[0])).call(&args).unwrap();
    close(&d_da, &[3.0, 0.0, 0.0, 5.0]);
    // g(a, b) = sum(a^2 b): d2/da2 = diag(2b), d2/dadb = diag(2a), d2/db2 = 0.
    let g = |(a, b): (Tensor, Tensor)| (a.powi(2) * &b).sum_all();
    let ((haa, hab), (hba, hbb)) = hessian(g).argnums(&[0]).call(&args).unwrap();
    close(&haa, &[6.0, 0.0, 0.0, 10.0]);
    for zero in [&hab, &hba, &hbb] {
        close(zero, &[0.0; 4]);
    }
    let ((haa2, _), _) = jit(hessian(g).argnums(&[0])).call(&args).unwrap();
    close(&haa2, &[6.0, 0.0, 0.0, 10.0]);
}

#[test]
fn a_new_tree_structure_with_the_same_leaf_types_is_a_new_signature() {
    // f(x, a, b) = (x + a) * b, with a or b absent: the same leaf types, two functions.
    let f = |(x, a, b): (Tensor, Option<Tensor>, Option<Tensor>)| {
        let s = match a {
            Some(a) => &x + &a,
            None => x.clone(),
        };
        match b {
            Some(b) => &s * &b,
            None => s,
        }
    };
    let two = Array::scalar(2.0f64);
    let three = Array::scalar(3.0f64);
    let compiled = jit(f);
    close(&compiled.call(&(two.clone(), Some(three.clone()), None::<Array>)).unwrap(), &[5.0]);
    close(&compiled.call(&(two.clone(), None::<Array>, Some(three.clone()))).unwrap(), &[6.0]);
    assert_eq!(compiled.compiles(), 2);
    let scalar = |(x, a, b): (Tensor, Option<Tensor>, Option<Tensor>)| f((x, a, b)).sum_all();
    let g = grad(scalar);
    let (dx, _, _) = g.call(&(two.clone(), Some(three.clone()), None::<Array>)).unwrap();
    close(&dx, &[1.0]);
    let (dx, _, _) = g.call(&(two, None::<Array>, Some(three))).unwrap();
    close(&dx, &[3.0]);
}
