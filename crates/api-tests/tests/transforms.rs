//! The transforms of `ferrax::transforms` (`jvp`, `vjp`, `hvp`, `linearize`,
//! `checkpoint` as functions of `f`) nest in the others as `grad`, `vmap` and `jit` do:
//! each composition against a closed form or a finite difference in f64, through the
//! public API only.

use ferrax::transforms::{RematPolicy, checkpoint, hvp, jvp, linearize, vjp};
use ferrax::{Array, DType, Tensor, Type, grad, jit, make_ir, vmap};

fn close(got: &Array, want: &[f64]) {
    let got = got.to_f64_vec();
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{got:?} vs {want:?}");
    }
}

fn f64s(v: &[f64]) -> Array {
    Array::from(v.to_vec())
}

/// g(x) = sin(x) · x elementwise: g' = cos x · x + sin x.
fn g(x: Tensor) -> Tensor {
    x.sin() * &x
}

fn dg(x: f64) -> f64 {
    x.cos() * x + x.sin()
}

fn d2g(x: f64) -> f64 {
    2.0 * x.cos() - x * x.sin()
}

const XS: [f64; 3] = [0.5, -1.25, 2.0];
const TS: [f64; 3] = [1.0, 0.5, -2.0];

#[test]
fn jvp_as_a_transform_runs_compiles_and_batches() {
    let want: Vec<f64> = XS.iter().zip(TS).map(|(&x, t)| dg(x) * t).collect();
    let values: Vec<f64> = XS.iter().map(|&x| x.sin() * x).collect();
    let (y, t) = jvp(g).call(&f64s(&XS), &f64s(&TS)).unwrap();
    close(&y, &values);
    close(&t, &want);
    let (y, t) = jit(jvp(g)).call(&(f64s(&XS), f64s(&TS))).unwrap();
    close(&y, &values);
    close(&t, &want);
    // vmap over the pair: each row its own point and direction.
    let xs = Array::from_f64(&[3, 1], XS.to_vec()).unwrap();
    let ts = Array::from_f64(&[3, 1], TS.to_vec()).unwrap();
    let (_, t): (Array, Array) = vmap(jvp(g)).call::<_, (Tensor, Tensor)>(&(xs, ts)).unwrap();
    close(&t, &want);
}

#[test]
fn grad_of_jvp_is_a_second_derivative() {
    // d/dx of the tangent of g along 1 is g''.
    let dt = grad(|x: Tensor| {
        let one = x.ones_like();
        jvp(g).apply(&x, &one).1.sum_all()
    });
    close(&dt.call(&f64s(&XS)).unwrap(), &XS.map(d2g));
}

#[test]
fn vjp_as_a_transform_matches_forward_mode_and_nests() {
    let ct = f64s(&TS);
    let want: Vec<f64> = XS.iter().zip(TS).map(|(&x, c)| dg(x) * c).collect();
    let (_, got) = vjp(g).call(&f64s(&XS), &ct).unwrap();
    close(&got, &want);
    let (_, got) = jit(vjp(g)).call(&(f64s(&XS), ct.clone())).unwrap();
    close(&got, &want);
    // Reverse over reverse: d/dx Σ (vᵀJ) = Σ_i g''(x_i) v_i along each coordinate.
    let second = grad(|x: Tensor| {
        let v = Tensor::constant(&f64s(&TS));
        vjp(g).apply(&x, &v).1.sum_all()
    });
    let want: Vec<f64> = XS.iter().zip(TS).map(|(&x, c)| d2g(x) * c).collect();
    close(&second.call(&f64s(&XS)).unwrap(), &want);
}

#[test]
fn hvp_compiles_batches_and_takes_trees() {
    let f = |x: Tensor| g(x).sum_all();
    let want: Vec<f64> = XS.iter().zip(TS).map(|(&x, t)| d2g(x) * t).collect();
    close(&hvp(f).call(&f64s(&XS), &f64s(&TS)).unwrap(), &want);
    let compiled = jit(hvp(f));
    close(&compiled.call(&(f64s(&XS), f64s(&TS))).unwrap(), &want);
    assert_eq!(compiled.compiles(), 1);
    // Per-row Hessian-vector products.
    let xs = Array::from_f64(&[3, 1], XS.to_vec()).unwrap();
    let ts = Array::from_f64(&[3, 1], TS.to_vec()).unwrap();
    close(&vmap(hvp(f)).call::<_, Tensor>(&(xs, ts)).unwrap(), &want);
    // A two-leaf argument: f(a, b) = Σ a² b, H = [[2b, 2a], [2a, 0]].
    let pair = |[a, b]: [Tensor; 2]| (a.powi(2) * &b).sum_all();
    let (a, b, va, vb) = (1.5f64, -0.5f64, 1.0f64, 2.0f64);
    let x = [Array::scalar(a), Array::scalar(b)];
    let v = [Array::scalar(va), Array::scalar(vb)];
    let hv = jit(hvp(pair)).call(&(x.clone(), v.clone())).unwrap();
    close(&hv[0], &[2.0 * b * va + 2.0 * a * vb]);
    close(&hv[1], &[2.0 * a * va]);
    let eager = hvp(pair).call(&x, &v).unwrap();
    assert_eq!(eager[0].to_f64_vec(), hv[0].to_f64_vec());
}

#[test]
fn linearize_keeps_the_linear_map_for_many_directions() {
    let two_outputs = |x: Tensor| (g(x.clone()), x.argmax(0));
    let (y, f_jvp) = linearize(two_outputs).call(&f64s(&XS)).unwrap();
    close(&y.0, &XS.map(|x| x.sin() * x));
    assert_eq!(y.1.dtype(), DType::I32);
    for direction in [[1.0, 0.0, 0.0], TS, [0.25, 0.25, 0.25]] {
        let want: Vec<f64> = XS.iter().zip(direction).map(|(&x, t)| dg(x) * t).collect();
        let (t, int_tangent) = f_jvp.call(&f64s(&direction)).unwrap();
        close(&t, &want);
        // An integer output's tangent is a zero of its type, as for jvp.
        assert_eq!((int_tangent.dtype(), int_tangent.to_f64_vec()), (DType::I32, vec![0.0]));
        let (t, _) = jit(f_jvp.clone()).call(&f64s(&direction)).unwrap();
        close(&t, &want);
    }
    // The wrong tangent type is an error that names both sides.
    let err = f_jvp.call(&Array::from(vec![1.0f32, 2.0, 3.0])).unwrap_err().to_string();
    assert!(err.contains("f32[3]") && err.contains("f64[3]"), "{err}");
    // Under a trace, linearize is forward mode.
    let (_, t) = jit(linearize(g)).call(&(f64s(&XS), f64s(&TS))).unwrap();
    close(&t, &XS.iter().zip(TS).map(|(&x, t)| dg(x) * t).collect::<Vec<_>>());
}

#[test]
fn checkpoint_leaves_values_and_gradients_alone_and_emits_a_remat_region() {
    let block = checkpoint(|x: Tensor| x.sin().sin());
    let loss = |x: Tensor| block.apply(&x).sum_all();
    let want: Vec<f64> = XS.iter().map(|&x| x.sin().cos() * x.cos()).collect();
    close(&grad(loss).call(&f64s(&XS)).unwrap(), &want);
    close(&jit(grad(loss)).call(&f64s(&XS)).unwrap(), &want);
    close(&block.call(&f64s(&XS)).unwrap(), &XS.map(|x| x.sin().sin()));
    let ir = make_ir(loss, &Type::new(DType::F64, &[3])).unwrap();
    assert!(ir.contains("remat[func=@remat"), "{ir}");
    assert!(ir.contains("policy=\"nothing\""), "{ir}");
    // A policy is printed on the region; closures over outer tensors become operands.
    let named = |x: Tensor| {
        let scale = x.sum_all();
        let inner =
            checkpoint(|y: Tensor| (y.sin().name("s") * &scale).cos()).policy(RematPolicy::Names(vec!["s".into()]));
        inner.apply(&x).sum_all()
    };
    let ir = make_ir(named, &Type::new(DType::F64, &[3])).unwrap();
    assert!(ir.contains("policy=\"names:s\""), "{ir}");
    let by_hand = |x: Tensor| {
        let scale = x.sum_all();
        (x.sin() * &scale).cos().sum_all()
    };
    let want = grad(by_hand).call(&f64s(&XS)).unwrap().to_f64_vec();
    close(&grad(named).call(&f64s(&XS)).unwrap(), &want);
    close(&jit(grad(named)).call(&f64s(&XS)).unwrap(), &want);
}

#[test]
fn make_ir_eval_and_trace_take_transform_objects_owned_or_borrowed() {
    let f = |x: Tensor| g(x).sum_all();
    let spec = Type::new(DType::F64, &[3]);
    // The module of a compiled Hessian-vector product, as jax.make_jaxpr shows it.
    let pair = (spec.clone(), spec.clone());
    let ir = make_ir(jit(hvp(f)), &pair).unwrap();
    assert!(ir.starts_with("func @main(%0: f64[3], %1: f64[3]) -> (f64[3])"), "{ir}");
    let gradient = grad(f);
    let ir = make_ir(&gradient, &spec).unwrap();
    assert!(ir.contains("cos"), "{ir}");
    let module = ferrax::trace(&gradient, &spec).unwrap();
    assert_eq!(module.to_string(), ferrax::trace(grad(f), &spec).unwrap().to_string());
    close(&ferrax::eval(&gradient, &f64s(&XS)).unwrap(), &XS.map(dg));
    // A borrowed transform nests without giving up the object (and its caches).
    let compiled = jit(&gradient);
    close(&compiled.call(&f64s(&XS)).unwrap(), &XS.map(dg));
    close(&gradient.call(&f64s(&XS)).unwrap(), &XS.map(dg));
}

#[test]
fn vjp_and_the_jacobians_take_has_aux() {
    use ferrax::{jacfwd, jacrev};
    // Outputs g(x), aux the sum of x and an integer.
    let f = |x: Tensor| (g(x.clone()), (x.sum_all(), x.argmax(0)));
    let x = f64s(&XS);
    let want_ct: Vec<f64> = XS.iter().zip(TS).map(|(&x, c)| dg(x) * c).collect();
    let (y, ct, (total, at)) = vjp(f).has_aux().call(&x, &f64s(&TS)).unwrap();
    close(&y, &XS.map(|x| x.sin() * x));
    close(&ct, &want_ct);
    close(&total, &[XS.iter().sum()]);
    assert_eq!(at.to_f64_vec(), [2.0]);
    let (_, ct, (total, _)) = jit(vjp(f).has_aux()).call(&(x.clone(), f64s(&TS))).unwrap();
    close(&ct, &want_ct);
    close(&total, &[XS.iter().sum()]);
    // The Jacobian is diag(g'); forward and reverse agree, eagerly and compiled.
    let diag: Vec<f64> = (0..3).flat_map(|i| (0..3).map(move |j| if i == j { dg(XS[i]) } else { 0.0 })).collect();
    for (j, (total, at)) in [
        jacfwd(f).has_aux().call(&x).unwrap(),
        jacrev(f).has_aux().call(&x).unwrap(),
        jit(jacrev(f).has_aux()).call(&x).unwrap(),
    ] {
        close(&j, &diag);
        close(&total, &[XS.iter().sum()]);
        assert_eq!(at.to_f64_vec(), [2.0]);
    }
    // With argnums: the blocks of the other argument are zeros, the aux is whole.
    let two = |[a, b]: [Tensor; 2]| (&a * &b, b.clone());
    let ([da, db], aux) =
        jacrev(two).has_aux().argnums(&[1]).call(&[Array::scalar(2.0f64), Array::scalar(5.0f64)]).unwrap();
    assert_eq!((da.to_f64_vec(), db.to_f64_vec(), aux.to_f64_vec()), (vec![0.0], vec![2.0], vec![5.0]));
}

#[test]
fn vjp_takes_argnums() {
    // f(w, x) = w x² elementwise: cotangent of w is x² c, of x is 2 w x c.
    let f = |(w, x): (Tensor, Tensor)| &w * &x * &x;
    let at = (f64s(&[2.0, 3.0]), f64s(&XS[..2]));
    let ct = f64s(&TS[..2]);
    let (_, (dw, dx)) = vjp(f).argnums(&[1]).call(&at, &ct).unwrap();
    close(&dw, &[0.0, 0.0]);
    close(&dx, &[2.0 * 2.0 * XS[0] * TS[0], 2.0 * 3.0 * XS[1] * TS[1]]);
    let (_, (dw, dx)) = jit(vjp(f).argnums(&[0])).call(&(at.clone(), ct.clone())).unwrap();
    close(&dw, &[XS[0] * XS[0] * TS[0], XS[1] * XS[1] * TS[1]]);
    close(&dx, &[0.0, 0.0]);
    let err = vjp(f).argnums(&[2]).call(&at, &ct).unwrap_err().to_string();
    assert!(err.starts_with("crates/api-tests/tests/transforms.rs:") && err.contains("argnums"), "{err}");
}
