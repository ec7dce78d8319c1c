//! The optimisers of `ferrax::optim` against values computed by hand, on a quadratic,
//! over a derived parameter struct, and traced together with the gradient.

use ferrax::optim::{Adam, AdamState, Sgd, SgdState};
use ferrax::{Array, DType, Tensor, Tree, Type, grad, tree_map};

#[derive(Tree, Clone, Debug, PartialEq)]
struct Params<T> {
    w: T,
    b: T,
}

fn f64s(values: &[f64]) -> Array {
    Array::from_f64(&[values.len()], values.to_vec()).unwrap()
}

fn close(a: &Array, expected: &[f64]) {
    let got = a.to_f64_vec();
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(expected) {
        assert!((g - e).abs() < 1e-9, "got {got:?}, expected {expected:?}");
    }
}

#[test]
fn sgd_two_steps_match_hand_computation() {
    let sgd = Sgd::new(0.1, 0.9);
    let params = Params { w: f64s(&[1.0, -2.0]), b: f64s(&[0.5]) };
    let state = sgd.init(&params).unwrap();
    let g1 = Params { w: f64s(&[1.0, 2.0]), b: f64s(&[-4.0]) };
    let (params, state) = sgd.step(&g1, &state, &params).unwrap();
    // v = g; p = p - 0.1 g
    close(&state.velocity.w, &[1.0, 2.0]);
    close(&params.w, &[0.9, -2.2]);
    close(&params.b, &[0.9]);
    let g2 = Params { w: f64s(&[0.0, 1.0]), b: f64s(&[1.0]) };
    let (params, state) = sgd.step(&g2, &state, &params).unwrap();
    // v = 0.9 v + g = [0.9, 2.8], [-2.6]; p -= 0.1 v
    close(&state.velocity.w, &[0.9, 2.8]);
    close(&state.velocity.b, &[-2.6]);
    close(&params.w, &[0.81, -2.48]);
    close(&params.b, &[1.16]);
}

#[test]
fn adam_two_steps_match_hand_computation() {
    let (lr, b1, b2, eps) = (0.01, 0.9, 0.999, 1e-8);
    let adam = Adam::with(lr, b1, b2, eps);
    let params = vec![f64s(&[1.0, 3.0])];
    let state = adam.init(&params).unwrap();
    let (g1, g2) = ([2.0, -0.5], [1.0, 4.0]);
    let (params, state) = adam.step(&vec![f64s(&g1)], &state, &params).unwrap();
    let mut p = [1.0, 3.0];
    let (mut m, mut v) = ([0.0; 2], [0.0; 2]);
    for (t, g) in [(1, g1), (2, g2)] {
        for i in 0..2 {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let m_hat = m[i] / (1.0 - f64::powi(b1, t));
            let v_hat = v[i] / (1.0 - f64::powi(b2, t));
            p[i] -= lr * m_hat / (v_hat.sqrt() + eps);
        }
        if t == 1 {
            // The count is f32: the bias corrections agree to f32 precision.
            let got = params[0].to_f64_vec();
            assert!((got[0] - p[0]).abs() < 1e-7 && (got[1] - p[1]).abs() < 1e-7, "{got:?} vs {p:?}");
            close(&state.mu[0], &m);
        }
    }
    let (params, state) = adam.step(&vec![f64s(&g2)], &state, &params).unwrap();
    let got = params[0].to_f64_vec();
    assert!((got[0] - p[0]).abs() < 1e-7 && (got[1] - p[1]).abs() < 1e-7, "{got:?} vs {p:?}");
    close(&state.nu[0], &v);
    assert_eq!(state.count, Array::scalar(2.0f32));
}

fn quadratic(p: Params<Tensor>) -> Tensor {
    // minimum 0 at w = [1, 2], b = -3
    let target = ferrax::constant(&Array::from_f32(&[2], vec![1.0, 2.0]).unwrap());
    (&p.w - target).powi(2).sum_all() + (&p.b + 3.0f32).powi(2).sum_all()
}

#[test]
fn both_optimisers_reduce_a_quadratic() {
    let start =
        Params { w: Array::from_f32(&[2], vec![5.0, -4.0]).unwrap(), b: Array::from_f32(&[1], vec![2.0]).unwrap() };
    let loss = |p: &Params<Array>| ferrax::eval(quadratic, p).unwrap().to_f64_vec()[0];
    let g = grad(quadratic);

    let sgd = Sgd::new(0.05, 0.5);
    let (mut p, mut s) = (start.clone(), sgd.init(&start).unwrap());
    for _ in 0..30 {
        (p, s) = sgd.step(&g.call(&p).unwrap(), &s, &p).unwrap();
    }
    assert!(loss(&p) < 1e-3 * loss(&start), "sgd: {} from {}", loss(&p), loss(&start));

    let adam = Adam::new(0.3);
    let (mut p, mut s) = (start.clone(), adam.init(&start).unwrap());
    for _ in 0..60 {
        (p, s) = adam.step(&g.call(&p).unwrap(), &s, &p).unwrap();
    }
    assert!(loss(&p) < 0.05 * loss(&start), "adam: {} from {}", loss(&p), loss(&start));
}

#[test]
fn a_whole_training_step_traces_into_one_module() {
    let adam = Adam::new(0.1);
    let params =
        Params { w: Array::from_f32(&[2], vec![5.0, -4.0]).unwrap(), b: Array::from_f32(&[1], vec![2.0]).unwrap() };
    let state = adam.init(&params).unwrap();
    let step = |(p, s): (Params<Tensor>, AdamState<Params<Tensor>, Tensor>)| {
        let g = grad(quadratic).apply(&p);
        adam.update(&g, &s, &p)
    };
    let spec = tree_map(&(params.clone(), state.clone()), |a: &Array| Type::new(a.dtype(), a.shape()));
    let ir = ferrax::make_ir(step, &spec).unwrap();
    assert!(ir.contains("sqrt") && ir.contains("expm1"), "{ir}");
    // Running the traced step equals the host step with the same gradient.
    let (p_traced, s_traced) = ferrax::eval(step, &(params.clone(), state.clone())).unwrap();
    let g = grad(quadratic).call(&params).unwrap();
    let (p_host, s_host) = adam.step(&g, &state, &params).unwrap();
    assert_eq!(p_traced, p_host);
    assert_eq!(s_traced, s_host);
    assert_eq!(s_traced.count.dtype(), DType::F32);
}

#[test]
fn mismatched_trees_are_errors() {
    let sgd = Sgd::new(0.1, 0.0);
    let params = vec![Array::scalar(1.0f32), Array::scalar(2.0f32)];
    let state = sgd.init(&params).unwrap();
    let err = sgd.step(&vec![Array::scalar(1.0f32)], &state, &params).unwrap_err();
    assert_eq!(err.to_string(), "optim: the gradient has 1 leaves, the parameters 2");
    let adam = Adam::new(0.1);
    let bad = AdamState { count: Array::scalar(0.0f32), mu: params.clone(), nu: vec![] };
    let err = adam.step(&params, &bad, &params).unwrap_err();
    assert_eq!(err.to_string(), "optim: the second moment has 0 leaves, the parameters 2");
    // Inside a trace, a mismatch is a trace error at the caller, not a panic.
    let spec = vec![Type::scalar(DType::F32); 2];
    let err =
        ferrax::trace(|p: Vec<Tensor>| sgd.update(&p[..1].to_vec(), &SgdState { velocity: p.clone() }, &p).0, &spec)
            .unwrap_err();
    assert!(err.to_string().contains("1 gradients and 2 velocities for 2 parameters"), "{err}");
    // No gradients at all, and Adam too: errors, not panics.
    let err =
        ferrax::trace(|p: Vec<Tensor>| sgd.update(&vec![], &SgdState { velocity: vec![] }, &p).0, &spec).unwrap_err();
    assert!(err.to_string().contains("0 gradients and 0 velocities for 2 parameters"), "{err}");
    let err = ferrax::trace(
        |p: Vec<Tensor>| {
            let s = AdamState { count: p[0].zeros_like(), mu: vec![], nu: p.clone() };
            adam.update(&p, &s, &p).0
        },
        &spec,
    )
    .unwrap_err();
    assert!(err.to_string().contains("2 gradients, 0 and 2 moments for 2 parameters"), "{err}");
}
