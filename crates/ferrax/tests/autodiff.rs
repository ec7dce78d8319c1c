//! Textbook worked examples of automatic differentiation, through the closure API, with
//! their exact numbers, in forward mode (`jvp`) and in reverse mode (`grad`, `vjp`);
//! an MLP's gradient against finite differences; and compositions: `grad(grad(f))`,
//! `jvp(grad(f))` (the Hessian-vector product), `grad` of a jvp, and the classic
//! perturbation-confusion example.

use ferrax::{Array, DType, Tensor, Tree, grad, hvp, jvp, nn, transforms, value_and_grad, vjp};
use std::f64::consts::FRAC_PI_2;

fn s(x: f64) -> Array {
    Array::scalar_f64(x)
}

fn v(values: &[f64]) -> Array {
    Array::from_f64(&[values.len()], values.to_vec()).unwrap()
}

fn get(a: &Array) -> f64 {
    assert_eq!(a.dtype(), DType::F64, "{a:?}");
    assert_eq!(a.len(), 1, "{a:?}");
    a.to_f64_vec()[0]
}

fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!((actual - expected).abs() <= 1e-12 * expected.abs().max(1.0), "{what}: {actual} vs {expected}");
}

/// The partial derivatives of `f` at `x` by forward mode, one unit tangent at a time.
fn forward_partials<const N: usize>(f: impl Fn([Tensor; N]) -> Tensor + Copy, x: [f64; N]) -> [f64; N] {
    let primals = x.map(s);
    std::array::from_fn(|i| {
        let tangents: [Array; N] = std::array::from_fn(|j| s(if i == j { 1.0 } else { 0.0 }));
        let (_, t) = jvp(f, &primals, &tangents).unwrap();
        get(&t)
    })
}

/// The gradient of `f` at `x` by reverse mode: `grad`, `value_and_grad` and `vjp`
/// (with cotangent 1) agree; returns the value and the gradient.
fn reverse_partials<const N: usize>(f: impl Fn([Tensor; N]) -> Tensor + Copy, x: [f64; N]) -> (f64, [f64; N]) {
    let primals = x.map(s);
    let g = grad(f).call(&primals).unwrap();
    let (value, g2) = value_and_grad(f).call(&primals).unwrap();
    let (value2, g3) = vjp(f, &primals, &s(1.0)).unwrap();
    assert_eq!(get(&value), get(&value2));
    for i in 0..N {
        assert_eq!(get(&g[i]), get(&g2[i]), "grad vs value_and_grad, partial {i}");
        assert_eq!(get(&g[i]), get(&g3[i]), "grad vs vjp, partial {i}");
    }
    (get(&value), g.each_ref().map(get))
}

#[test]
fn product_of_a_sum_at_3_4() {
    // f(x1, x2) = (x1 + x2) x1: df/dx1 = 2 x1 + x2 = 10, df/dx2 = x1 = 3.
    let f = |[x1, x2]: [Tensor; 2]| (&x1 + &x2) * &x1;
    assert_eq!(forward_partials(f, [3.0, 4.0]), [10.0, 3.0]);
    let (value, g) = reverse_partials(f, [3.0, 4.0]);
    assert_eq!(value, 21.0);
    assert_eq!(g, [10.0, 3.0]);
}

#[test]
fn sum_times_sine_at_1_half_pi() {
    // f(x, y) = (x + y) sin y: df/dx = sin y = 1, df/dy = sin y + (x + y) cos y = 1.
    let f = |[x, y]: [Tensor; 2]| (&x + &y) * y.sin();
    let at = [1.0, FRAC_PI_2];
    let [dx, dy] = forward_partials(f, at);
    assert_close(dx, 1.0, "forward df/dx");
    assert_close(dy, 1.0, "forward df/dy");
    let (value, [rx, ry]) = reverse_partials(f, at);
    assert_close(value, 1.0 + FRAC_PI_2, "value");
    assert_close(rx, 1.0, "reverse df/dx");
    assert_close(ry, 1.0, "reverse df/dy");
}

#[test]
fn square_plus_identity_at_3() {
    // f(x) = x^2 + x: f'(3) = 7.
    let f = |[x]: [Tensor; 1]| &x * &x + &x;
    assert_eq!(forward_partials(f, [3.0]), [7.0]);
    assert_eq!(reverse_partials(f, [3.0]), (12.0, [7.0]));
    // The same with integer_pow.
    let f = |[x]: [Tensor; 1]| x.powi(2) + &x;
    assert_eq!(forward_partials(f, [3.0]), [7.0]);
    assert_eq!(reverse_partials(f, [3.0]), (12.0, [7.0]));
}

#[test]
fn product_plus_sum_at_2_3() {
    // f(x, y) = x y + x + y: df/dx = y + 1 = 4, df/dy = x + 1 = 3.
    let f = |[x, y]: [Tensor; 2]| &x * &y + &x + &y;
    assert_eq!(forward_partials(f, [2.0, 3.0]), [4.0, 3.0]);
    assert_eq!(reverse_partials(f, [2.0, 3.0]), (11.0, [4.0, 3.0]));
}

#[test]
fn vjp_of_the_square_with_an_upstream_cotangent() {
    // x^2 at [1, 2, 3] with upstream [10, 1, 0.1]: 2 x u = [20, 4, 0.6].
    let x = v(&[1.0, 2.0, 3.0]);
    let (y, ct) = vjp(|x: Tensor| &x * &x, &x, &v(&[10.0, 1.0, 0.1])).unwrap();
    assert_eq!(y, v(&[1.0, 4.0, 9.0]));
    assert!(ct.allclose(&v(&[20.0, 4.0, 0.6]), 1e-15, 0.0), "{ct:?}");
    // Forward mode: the Jacobian is diagonal, so the jvp along u is the same vector.
    let (_, t) = jvp(|x: Tensor| x.powi(2), &x, &v(&[10.0, 1.0, 0.1])).unwrap();
    assert!(t.allclose(&v(&[20.0, 4.0, 0.6]), 1e-15, 0.0), "{t:?}");
}

#[derive(Tree, Clone, Debug, PartialEq)]
struct Layer<T> {
    w: T,
    b: T,
}

#[derive(Tree, Clone, Debug, PartialEq)]
struct Mlp<T> {
    layers: Vec<Layer<T>>,
}

/// Deterministic, varied parameters of an MLP with layer `sizes`, in f64.
fn init(sizes: &[usize]) -> Mlp<Array> {
    let mut k = 0.0f64;
    let mut values = |n: usize, scale: f64| {
        let out: Vec<f64> = (0..n)
            .map(|_| {
                k += 1.0;
                (1.7 * k).sin() * scale
            })
            .collect();
        out
    };
    let layers = sizes
        .windows(2)
        .map(|pair| {
            let (fan_in, fan_out) = (pair[0], pair[1]);
            let scale = 1.5 / (fan_in as f64).sqrt();
            Layer {
                w: Array::from_f64(&[fan_in, fan_out], values(fan_in * fan_out, scale)).unwrap(),
                b: Array::from_f64(&[fan_out], values(fan_out, 0.3)).unwrap(),
            }
        })
        .collect();
    Mlp { layers }
}

fn mlp_loss(params: &Mlp<Tensor>, x: &Tensor, labels: &Tensor) -> Tensor {
    let n = params.layers.len();
    let mut h = x.clone();
    for (i, layer) in params.layers.iter().enumerate() {
        h = h.matmul(&layer.w) + &layer.b;
        if i + 1 < n {
            h = h.tanh();
        }
    }
    let classes = h.shape()[1];
    nn::cross_entropy(&h, &nn::one_hot(labels, classes, DType::F64))
}

#[test]
fn mlp_gradient_matches_finite_differences() {
    let params = init(&[4, 8, 3]);
    let x = Array::from_f64(&[5, 4], (0..20).map(|i| (0.37 * i as f64).cos()).collect()).unwrap();
    let labels = Array::from_i32(&[5], vec![0, 2, 1, 2, 0]).unwrap();
    let loss = |(p, x, y): (Mlp<Tensor>, Tensor, Tensor)| mlp_loss(&p, &x, &y);
    let args = (params.clone(), x.clone(), labels.clone());
    let (value, (g, gx, glabels)) = value_and_grad(loss).call(&args).unwrap();
    let value = get(&value);
    assert_eq!(value, get(&ferrax::eval(loss, &args).unwrap()));
    assert!((0.5..3.0).contains(&value), "loss {value}");
    // Labels are integers: their gradient is zero.
    assert_eq!(glabels, Array::from_i32(&[5], vec![0; 5]).unwrap());

    // Central differences on every parameter and input element, with the loss traced once.
    let spec = ferrax::tree_map(&args, |a: &Array| ferrax::Type::new(a.dtype(), a.shape()));
    let module = ferrax::trace(loss, &spec).unwrap();
    let leaves: Vec<Array> = ferrax::tree_leaves(&args).into_iter().cloned().collect();
    let eval = |leaves: &[Array]| get(&ferrax::ir::eval_entry(&module, leaves, &Default::default()).unwrap()[0]);
    let mut grads: Vec<Array> = ferrax::tree_leaves(&g).into_iter().cloned().collect();
    grads.push(gx);
    let eps = 1e-6;
    let mut checked = 0;
    for (leaf, grad_leaf) in grads.iter().enumerate() {
        for i in 0..leaves[leaf].len() {
            let shifted = |delta: f64| {
                let mut moved = leaves.clone();
                let mut values = moved[leaf].to_f64_vec();
                values[i] += delta;
                moved[leaf] = Array::from_f64(leaves[leaf].shape(), values).unwrap();
                eval(&moved)
            };
            let fd = (shifted(eps) - shifted(-eps)) / (2.0 * eps);
            let ad = grad_leaf.to_f64_vec()[i];
            assert!(
                (fd - ad).abs() <= 1e-8 + 1e-6 * fd.abs(),
                "leaf {leaf}, element {i}: grad {ad} vs central difference {fd}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4 * 8 + 8 + 8 * 3 + 3 + 20);
}

#[test]
fn grad_of_grad() {
    // f(x) = x^3: f''(x) = 6x.
    let g = grad(|x: Tensor| x.powi(3));
    let gg = grad(|x: Tensor| g.apply(&x));
    assert_eq!(get(&gg.call(&s(2.0)).unwrap()), 12.0);
    assert_eq!(get(&gg.call(&s(-0.5)).unwrap()), -3.0);
    // sin'' = -sin, and a third derivative: sin''' = -cos.
    let d1 = grad(|x: Tensor| x.sin());
    let d2 = grad(|x: Tensor| d1.apply(&x));
    let d3 = grad(|x: Tensor| d2.apply(&x));
    assert_close(get(&d2.call(&s(0.7)).unwrap()), -(0.7f64).sin(), "sin''");
    assert_close(get(&d3.call(&s(0.7)).unwrap()), -(0.7f64).cos(), "sin'''");
}

#[test]
fn jvp_of_grad_is_the_hessian_vector_product() {
    // f(x, y) = x^2 y + sin(y): H = [[2y, 2x], [2x, -sin y]].
    let f = |[x, y]: [Tensor; 2]| x.powi(2) * &y + y.sin();
    let g = grad(f);
    let at = [s(1.5), s(-0.5)];
    let dir = [s(2.0), s(3.0)];
    let (grads, hv) = jvp(|p: [Tensor; 2]| g.apply(&p), &at, &dir).unwrap();
    let (x, y) = (1.5f64, -0.5f64);
    assert_close(get(&grads[0]), 2.0 * x * y, "df/dx");
    assert_close(get(&grads[1]), x * x + y.cos(), "df/dy");
    let expected = [2.0 * y * 2.0 + 2.0 * x * 3.0, 2.0 * x * 2.0 - y.sin() * 3.0];
    assert_close(get(&hv[0]), expected[0], "(Hv)_x");
    assert_close(get(&hv[1]), expected[1], "(Hv)_y");
    // The hvp transform gives the same.
    let h = hvp(f, &at, &dir).unwrap();
    assert_close(get(&h[0]), expected[0], "hvp x");
    assert_close(get(&h[1]), expected[1], "hvp y");
}

#[test]
fn grad_of_a_jvp() {
    // The jvp of f(x) = x^3 along 1 is 3x^2, whose derivative is 6x.
    let d = grad(|x: Tensor| {
        let one = x.ones_like();
        let (_, t) = transforms::jvp(|x: Tensor| x.powi(3)).apply(&x, &one);
        t
    });
    assert_eq!(get(&d.call(&s(2.0)).unwrap()), 12.0);
    // A directional derivative of a two-argument function, differentiated in both:
    // d/d(x, y) of [jvp of x*y*y along (1, 1)] = d/d(x, y) (y^2 + 2xy) = (2y, 2y + 2x).
    let d = grad(|p: [Tensor; 2]| {
        let ones = [p[0].ones_like(), p[1].ones_like()];
        transforms::jvp(|[x, y]: [Tensor; 2]| &x * &y * &y).apply(&p, &ones).1
    });
    let g = d.call(&[s(2.0), s(3.0)]).unwrap();
    assert_eq!((get(&g[0]), get(&g[1])), (6.0, 10.0));
}

#[test]
fn no_perturbation_confusion() {
    // d/dx [x * (d/dy (x + y))(1)] = d/dx [x * 1] = 1 at every x. The inner closure
    // captures the outer x, which the inner grad must hold constant.
    let outer = grad(|x: Tensor| {
        let inner = grad(|y: Tensor| &x + &y);
        let one = x.ones_like();
        &x * &inner.apply(&one)
    });
    for x in [-2.0, 0.0, 1.0, 3.5] {
        assert_eq!(get(&outer.call(&s(x)).unwrap()), 1.0, "at x = {x}");
    }
    // The same in forward mode over reverse mode: the jvp of x * grad(y -> x * y)(1)
    // = x * x along 1 is 2x.
    let f = |x: Tensor| {
        let inner = grad(|y: Tensor| &x * &y);
        let one = x.ones_like();
        &x * &inner.apply(&one)
    };
    let (value, tangent) = jvp(f, &s(3.0), &s(1.0)).unwrap();
    assert_eq!((get(&value), get(&tangent)), (9.0, 6.0));
}

#[test]
fn value_and_grad_gives_the_value_on_arrays_and_in_a_trace() {
    let f = |x: Tensor| x.powi(2).sum_all();
    let x = Array::from(vec![1.0f64, -2.0]);
    let (value, g) = value_and_grad(f).call(&x).unwrap();
    assert_eq!((value.to_f64_vec(), g.to_f64_vec()), (vec![5.0], vec![2.0, -4.0]));
    // Inside a trace `apply` emits both the value and the gradient.
    let vg = value_and_grad(f);
    let traced = ferrax::eval(|x: Tensor| vg.apply(&x), &x).unwrap();
    assert_eq!((traced.0.to_f64_vec(), traced.1.to_f64_vec()), (vec![5.0], vec![2.0, -4.0]));
    // And it composes: jit of value_and_grad.
    let (v2, g2) = ferrax::jit(value_and_grad(f)).call(&x).unwrap();
    assert_eq!((v2, g2), (value.clone(), g.clone()));
    // The old spelling still compiles (with a deprecation warning) and agrees.
    #[allow(deprecated)]
    let old = value_and_grad(f).call_with_value(&x).unwrap();
    assert_eq!(old, (value, g));
}

#[test]
fn has_aux_carries_a_tree_out_beside_the_gradient() {
    // loss = sum((w x - y)^2); aux = (the residuals, the loss's square root), not differentiated.
    let f = |[w, x, y]: [Tensor; 3]| {
        let r = &(&w * &x) - &y;
        let loss = r.powi(2).sum_all();
        let root = loss.sqrt();
        (loss, (r, root))
    };
    let args = [Array::from(vec![2.0f64, -1.0]), Array::from(vec![3.0f64, 4.0]), Array::from(vec![1.0f64, 1.0])];
    // r = [5, -5], loss = 50; dL/dw = 2 r x = [30, -40]; dL/dx = 2 r w = [20, 10]; dL/dy = -2 r.
    let (g, (r, root)) = grad(f).has_aux().call(&args).unwrap();
    assert_eq!((r.to_f64_vec(), root.to_f64_vec()), (vec![5.0, -5.0], vec![50f64.sqrt()]));
    assert_eq!(g[0].to_f64_vec(), [30.0, -40.0]);
    assert_eq!(g[1].to_f64_vec(), [20.0, 10.0]);
    assert_eq!(g[2].to_f64_vec(), [-10.0, 10.0]);
    let ((value, (r2, _)), g2) = value_and_grad(f).has_aux().call(&args).unwrap();
    assert_eq!((value.to_f64_vec(), r2.to_f64_vec()), (vec![50.0], vec![5.0, -5.0]));
    assert_eq!(g2, g);
    // Compiled: jit of the has_aux transform gives the same tree.
    let (g3, (r3, root3)) = ferrax::jit(grad(f).has_aux()).call(&args).unwrap();
    assert_eq!((g3, r3, root3), (g, r, root));
    // Inside a trace, apply emits both.
    let vg = value_and_grad(f).has_aux();
    let ((v4, _), _) = ferrax::jit(|a: [Tensor; 3]| vg.apply(&a)).call(&args).unwrap();
    assert_eq!(v4, value);
}

#[test]
fn argnums_differentiates_only_the_chosen_arguments() {
    // f(w, x, b) = sum(w x + b) over a tuple of arguments; d/dw = x, d/dx = w, d/db = 1.
    let f = |(w, x, b): (Tensor, Tensor, Tensor)| (&(&w * &x) + &b).sum_all();
    let args = (Array::from(vec![2.0f64, -1.0]), Array::from(vec![3.0f64, 4.0]), Array::from(vec![0.5f64, 0.5]));
    let (dw, dx, db) = grad(f).argnums(&[0, 2]).call(&args).unwrap();
    assert_eq!((dw.to_f64_vec(), dx.to_f64_vec(), db.to_f64_vec()), (vec![3.0, 4.0], vec![0.0, 0.0], vec![1.0, 1.0]));
    let (value, (_, dx, _)) = value_and_grad(f).argnums(&[1]).call(&args).unwrap();
    assert_eq!((value.to_f64_vec(), dx.to_f64_vec()), (vec![3.0], vec![2.0, -1.0]));
    // Compiled, and inside a trace.
    let (dw, dx, _) = ferrax::jit(grad(f).argnums(&[1])).call(&args).unwrap();
    assert_eq!((dw.to_f64_vec(), dx.to_f64_vec()), (vec![0.0, 0.0], vec![2.0, -1.0]));
    // A Vec of arguments counts its elements; a child that is itself a tree counts as one.
    let g = |p: Vec<(Tensor, Tensor)>| (&(&p[0].0 * &p[0].1) * &p[1].0).sum_all() + p[1].1.sum_all();
    let pairs = vec![(Array::scalar(2.0f64), Array::scalar(3.0f64)), (Array::scalar(5.0f64), Array::scalar(7.0f64))];
    let grads = grad(g).argnums(&[1]).call(&pairs).unwrap();
    assert_eq!((grads[0].0.to_f64_vec(), grads[0].1.to_f64_vec()), (vec![0.0], vec![0.0]));
    assert_eq!((grads[1].0.to_f64_vec(), grads[1].1.to_f64_vec()), (vec![6.0], vec![1.0]));
    // Mistakes name the call and the counts.
    let err = grad(f).argnums(&[3]).call(&args).unwrap_err().to_string();
    assert!(
        err.contains("tests/autodiff.rs:") && err.contains("argument 3 does not exist: the function takes 3"),
        "{err}"
    );
    // One argument that is not a tuple: argnums 0 is all of it (JAX's default), 1 an error.
    let one = grad(|x: Tensor| x.powi(2).sum_all()).argnums(&[0]).call(&Array::scalar(3.0f64)).unwrap();
    assert_eq!(one.to_f64_vec(), [6.0]);
    let err = grad(|x: Tensor| x.sum_all()).argnums(&[1]).call(&Array::scalar(1.0f64)).unwrap_err().to_string();
    assert!(err.contains("takes one argument") && err.contains("only 0 selects it"), "{err}");
}
