//! Custom rules from closures (`custom_jvp`, `custom_vjp`): that the rules are used,
//! that they agree with finite differences where they are true derivatives, captured
//! tensors, composition with `grad`/`jvp`/`vmap`/`jit`, errors, and the IR.

use ferrax::{
    Array, DType, Error, Tensor, Type, custom_jvp, custom_vjp, eval, grad, hvp, jit, jvp, make_ir, vjp, vmap,
};

fn f64s(values: &[f64]) -> Array {
    Array::from(values.to_vec())
}

fn assert_close(actual: &[f64], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: {actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() <= tol * (1.0 + e.abs()), "{what}: {actual:?} vs {expected:?}");
    }
}

/// Central finite differences of a scalar function of a vector.
fn numeric_grad(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|i| {
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[i] += h;
            down[i] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

/// `sin(x) * x` with its true derivative as the jvp rule (written from the formula).
fn sinx_times_x(x: &Tensor) -> Tensor {
    let rule = custom_jvp(
        |x: Tensor| x.sin() * &x,
        |x: Tensor, t: Tensor| {
            let slope = x.cos() * &x + x.sin();
            (x.sin() * &x, slope * t)
        },
    );
    rule.call(x)
}

fn softplus_rule(x: &Tensor) -> Tensor {
    let softplus = custom_jvp(
        |x: Tensor| x.exp().log1p(),
        |x: Tensor, t: Tensor| {
            let slope = 1.0 - 1.0 / (x.exp() + 1.0);
            (x.exp().log1p(), slope * t)
        },
    );
    softplus.call(x)
}

#[test]
fn softplus_gradient_is_finite_with_the_rule_and_nan_without() {
    let x = Array::from(vec![0.0f32, 10.0, 100.0]);
    let with_rule = grad(|x: Tensor| softplus_rule(&x).sum_all()).call(&x).unwrap().to_f64_vec();
    let naive = grad(|x: Tensor| x.exp().log1p().sum_all()).call(&x).unwrap().to_f64_vec();
    assert_close(&with_rule, &[0.5, 1.0 - 1.0 / (1.0 + 10f64.exp()), 1.0], 1e-6, "with the rule");
    assert!(naive[2].is_nan(), "naive: {naive:?}");
    // Forward mode uses the rule too.
    let (_, tangent) = jvp(|x: Tensor| softplus_rule(&x), &x, &Array::from(vec![1.0f32; 3])).unwrap();
    assert_close(&tangent.to_f64_vec(), &with_rule, 1e-6, "jvp");
}

#[test]
fn jvp_rule_matches_finite_differences_in_both_modes_and_second_order() {
    let x = [0.3, -1.2, 2.5];
    let exact = |x: &[f64]| x.iter().map(|v| v.sin() * v).sum::<f64>();
    let numeric = numeric_grad(exact, &x);
    let loss = |x: Tensor| sinx_times_x(&x).sum_all();
    let reverse = grad(loss).call(&f64s(&x)).unwrap().to_f64_vec();
    assert_close(&reverse, &numeric, 1e-7, "grad");
    let (_, forward) = jvp(|x: Tensor| sinx_times_x(&x), &f64s(&x), &f64s(&[1.0, 1.0, 1.0])).unwrap();
    assert_close(&forward.to_f64_vec(), &numeric, 1e-7, "jvp");
    let (_, pulled) = vjp(|x: Tensor| sinx_times_x(&x), &f64s(&x), &f64s(&[1.0, 2.0, -1.0])).unwrap();
    let weighted: Vec<f64> = numeric.iter().zip([1.0, 2.0, -1.0]).map(|(d, w)| d * w).collect();
    assert_close(&pulled.to_f64_vec(), &weighted, 1e-7, "vjp");
    // The rule is differentiable, so second order goes through it: d²/dx² = 2cos x − x sin x.
    let hv = hvp(loss, &f64s(&x), &f64s(&[1.0, 1.0, 1.0])).unwrap().to_f64_vec();
    let second: Vec<f64> = x.iter().map(|v| 2.0 * v.cos() - v * v.sin()).collect();
    assert_close(&hv, &second, 1e-10, "hvp");
}

#[test]
fn a_deliberately_wrong_rule_is_what_the_derivatives_show() {
    // f(x) = x², whose derivative is 2x; the rule claims 3 everywhere.
    let odd = custom_jvp(|x: Tensor| x.powi(2), |x: Tensor, t: Tensor| (x.powi(2), t * 3.0f64));
    let x = f64s(&[1.0, -2.0]);
    let g = grad(|x: Tensor| odd.call(&x).sum_all()).call(&x).unwrap();
    assert_eq!(g.to_f64_vec(), [3.0, 3.0]);
    let (value, tangent) = jvp(|x: Tensor| odd.call(&x), &x, &f64s(&[1.0, 1.0])).unwrap();
    assert_eq!((value.to_f64_vec(), tangent.to_f64_vec()), (vec![1.0, 4.0], vec![3.0, 3.0]));
}

#[test]
fn custom_vjp_clips_in_reverse_mode_and_forward_mode_differentiates_the_function() {
    let clip = custom_vjp(|x: Tensor| x, |x: Tensor| (x, ()), |(): (), g: Tensor| g.clamp(-1.0f64, 1.0f64));
    let loss = |x: Tensor| clip.call(&x).powi(2).sum_all();
    let x = f64s(&[0.2, 3.0, -5.0]);
    assert_eq!(grad(loss).call(&x).unwrap().to_f64_vec(), [0.4, 1.0, -1.0]);
    let (_, forward) = jvp(|x: Tensor| clip.call(&x).powi(2), &x, &f64s(&[1.0, 1.0, 1.0])).unwrap();
    assert_eq!(forward.to_f64_vec(), [0.4, 6.0, -10.0]);
}

#[test]
fn custom_vjp_with_residuals_matches_finite_differences_and_second_order() {
    // f(x, y) = exp(x) * y with the true vjp, exp(x) kept as the residual.
    let f = custom_vjp(
        |(x, y): (Tensor, Tensor)| x.exp() * &y,
        |(x, y): (Tensor, Tensor)| {
            let e = x.exp();
            (&e * &y, (e, y))
        },
        |(e, y): (Tensor, Tensor), g: Tensor| (&e * &y * &g, e * g),
    );
    let loss = |[x, y]: [Tensor; 2]| f.call(&(x, y)).sum_all();
    let (x, y) = ([0.5, -0.3], [2.0, 1.5]);
    let g = grad(loss).call(&[f64s(&x), f64s(&y)]).unwrap();
    let exact = |v: &[f64]| (0..2).map(|i| v[i].exp() * v[2 + i]).sum::<f64>();
    let numeric = numeric_grad(exact, &[x[0], x[1], y[0], y[1]]);
    let computed: Vec<f64> = g.iter().flat_map(Array::to_f64_vec).collect();
    assert_close(&computed, &numeric, 1e-7, "grad");
    // Second order differentiates bwd: H·[1,0 | 0,0] = [e^x0 y0, 0 | e^x0, 0].
    let tangent = [f64s(&[1.0, 0.0]), f64s(&[0.0, 0.0])];
    let hv = hvp(loss, &[f64s(&x), f64s(&y)], &tangent).unwrap();
    let e0 = x[0].exp();
    assert_close(&hv[0].to_f64_vec(), &[e0 * y[0], 0.0], 1e-10, "hvp x");
    assert_close(&hv[1].to_f64_vec(), &[e0, 0.0], 1e-10, "hvp y");
}

#[test]
fn captured_tensors_are_differentiated_through_the_function() {
    // f(x) = x² · c with c captured; the jvp rule claims 3·c for x. The derivative for x
    // is the rule's, the one for c the formula's (x²).
    let loss = |[x, c]: [Tensor; 2]| {
        let scaled = custom_jvp(|x: Tensor| x.powi(2) * &c, |x: Tensor, t: Tensor| (x.powi(2) * &c, t * 3.0f64 * &c));
        scaled.call(&x).sum_all()
    };
    let args = [f64s(&[2.0]), f64s(&[5.0])];
    let g = grad(loss).call(&args).unwrap();
    assert_eq!((g[0].to_f64_vec(), g[1].to_f64_vec()), (vec![15.0], vec![4.0]));
    let (_, t) = jvp(loss, &args, &[f64s(&[1.0]), f64s(&[1.0])]).unwrap();
    assert_eq!(t.to_f64_vec(), [19.0]);

    // The same with custom_vjp: bwd claims the cotangent 3·c for x; c's is x².
    let loss = |[x, c]: [Tensor; 2]| {
        let scaled = custom_vjp(
            |x: Tensor| x.powi(2) * &c,
            |x: Tensor| (x.powi(2) * &c, ()),
            |(): (), g: Tensor| g * 3.0f64 * &c,
        );
        scaled.call(&x).sum_all()
    };
    let g = grad(loss).call(&args).unwrap();
    assert_eq!((g[0].to_f64_vec(), g[1].to_f64_vec()), (vec![15.0], vec![4.0]));
    // A derived capture: c = y³ inside the function being differentiated.
    let derived = |[x, y]: [Tensor; 2]| {
        let c = y.powi(3);
        let scaled = custom_vjp(|x: Tensor| &x * &c, |x: Tensor| (&x * &c, ()), |(): (), g: Tensor| g * &c);
        scaled.call(&x).sum_all()
    };
    let g = grad(derived).call(&[f64s(&[2.0]), f64s(&[3.0])]).unwrap();
    assert_eq!((g[0].to_f64_vec(), g[1].to_f64_vec()), (vec![27.0], vec![54.0]));
}

#[test]
fn vmap_and_jit_of_functions_with_custom_rules() {
    let xs = Array::from_f32(&[2, 3], vec![0.0, 10.0, 100.0, -1.0, 1.0, 50.0]).unwrap();
    let per_row = vmap(|x: Tensor| grad(|x: Tensor| softplus_rule(&x).sum_all()).apply(&x));
    let batched = per_row.call(&xs).unwrap().to_f64_vec();
    let expected: Vec<f64> = xs.to_f64_vec().iter().map(|&v| 1.0 - 1.0 / (1.0 + (v as f32).exp() as f64)).collect();
    assert_close(&batched, &expected, 1e-6, "vmap(grad)");
    // Values (away from e^x's overflow in f32) are the function's.
    let moderate = Array::from_f32(&[2, 3], vec![0.0, 10.0, 20.0, -1.0, 1.0, 5.0]).unwrap();
    let values = vmap(|x: Tensor| softplus_rule(&x)).call(&moderate).unwrap().to_f64_vec();
    let naive: Vec<f64> = moderate.to_f64_vec().iter().map(|v| v.exp().ln_1p()).collect();
    assert_close(&values, &naive, 1e-6, "vmap");

    let compiled = jit(|x: Tensor| grad(|x: Tensor| softplus_rule(&x).sum_all()).apply(&x));
    let g: Array = compiled.call(&Array::from(vec![0.0f32, 100.0])).unwrap();
    assert_eq!(g.to_f64_vec(), [0.5, 1.0]);
    let clip = custom_vjp(|x: Tensor| x, |x: Tensor| (x, ()), |(): (), g: Tensor| g.clamp(-1.0f64, 1.0f64));
    let compiled = jit(|x: Tensor| grad(|x: Tensor| clip.call(&x).powi(2).sum_all()).apply(&x));
    let g: Array = compiled.call(&f64s(&[0.2, 3.0])).unwrap();
    assert_eq!(g.to_f64_vec(), [0.4, 1.0]);
}

#[test]
fn grad_of_a_custom_rule_inside_jvp() {
    // d/dx of the gradient along t: the second derivative of sin(x)·x, through the rule.
    let hv = |x: Tensor| {
        let g = grad(|x: Tensor| sinx_times_x(&x).sum_all());
        let ones = x.ones_like();
        ferrax::transforms::jvp(|x: Tensor| g.apply(&x)).apply(&x, &ones).1
    };
    let x = [0.7, -0.4];
    let out = eval(hv, &f64s(&x)).unwrap().to_f64_vec();
    let second: Vec<f64> = x.iter().map(|v| 2.0 * v.cos() - v * v.sin()).collect();
    assert_close(&out, &second, 1e-10, "jvp(grad)");
}

fn spec() -> [Type; 1] {
    [Type::new(DType::F64, &[2])]
}

#[test]
fn a_rule_of_the_wrong_type_is_an_error_naming_both_sides_at_the_call() {
    let bad = custom_jvp(|x: Tensor| x.sum_all(), |x: Tensor, t: Tensor| (x.sum_all(), t));
    let line = line!() + 1;
    let result = ferrax::trace(|[x]: [Tensor; 1]| bad.call(&x), &spec());
    let Err(Error::Trace(error)) = result else { panic!("expected a trace error, got {result:?}") };
    assert!(error.message.contains("f64[2]") && error.message.contains("f64[]"), "{error}");
    assert!(error.location.as_deref().is_some_and(|l| l.contains(&format!("custom.rs:{line}:"))), "{error}");

    let bad_fwd = custom_vjp(|x: Tensor| x.sum_all(), |x: Tensor| (x.clone(), ()), |(): (), g: Tensor| g);
    let result = ferrax::trace(|[x]: [Tensor; 1]| bad_fwd.call(&x), &spec());
    let Err(Error::Trace(error)) = result else { panic!("expected a trace error, got {result:?}") };
    assert!(error.message.contains("fwd returns (f64[2])") && error.message.contains("(f64[])"), "{error}");

    let bad_bwd = custom_vjp(|x: Tensor| x.sum_all(), |x: Tensor| (x.sum_all(), ()), |(): (), g: Tensor| g);
    let result = ferrax::trace(|[x]: [Tensor; 1]| bad_bwd.call(&x), &spec());
    let Err(Error::Trace(error)) = result else { panic!("expected a trace error, got {result:?}") };
    assert!(error.message.contains("bwd returns (f64[])") && error.message.contains("(f64[2])"), "{error}");
}

#[test]
fn custom_rules_print_as_ir() {
    let ir = make_ir(
        |[x]: [Tensor; 1]| {
            let clip = custom_vjp(|x: Tensor| x, |x: Tensor| (x, ()), |(): (), g: Tensor| g.clamp(-1.0f64, 1.0f64));
            let odd = custom_jvp(|x: Tensor| x.powi(2), |x: Tensor, t: Tensor| (x.powi(2), t * 3.0f64));
            odd.call(&clip.call(&x))
        },
        &spec(),
    )
    .unwrap();
    insta::assert_snapshot!(ir);
}

#[test]
fn captures_print_as_extra_operands() {
    let ir = make_ir(
        |[x, c]: [Tensor; 2]| {
            let scaled = custom_jvp(|x: Tensor| &x * &c, |x: Tensor, t: Tensor| (&x * &c, t * &c));
            scaled.call(&x)
        },
        &[Type::new(DType::F64, &[2]), Type::new(DType::F64, &[2])],
    )
    .unwrap();
    insta::assert_snapshot!(ir);
}

#[test]
fn captures_a_function_cannot_be_differentiated_in_are_an_error_at_the_call() {
    // An unbounded while_loop has no reverse mode, so the vjp of f with respect to the
    // captured bound cannot be formed: the error says to pass it as an argument.
    let line = line!() + 8;
    let result = ferrax::trace(
        |[x, bound]: [Tensor; 2]| {
            let grow = custom_vjp(
                |x: Tensor| ferrax::while_loop(|x: Tensor| x.lt(&bound), |x: Tensor| &x * 2.0f64, &x, None),
                |x: Tensor| (ferrax::while_loop(|x: Tensor| x.lt(&bound), |x: Tensor| &x * 2.0f64, &x, None), ()),
                |(): (), g: Tensor| g,
            );
            grow.call(&x)
        },
        &[Type::scalar(DType::F64), Type::scalar(DType::F64)],
    );
    let Err(Error::Trace(error)) = result else { panic!("expected a trace error, got {result:?}") };
    assert!(error.message.contains("pass them as arguments"), "{error}");
    assert!(error.location.as_deref().is_some_and(|l| l.contains(&format!("custom.rs:{line}:"))), "{error}");
    // Passed as an argument, the same function is fine: the rule covers both.
    let fine = custom_vjp(
        |(x, bound): (Tensor, Tensor)| ferrax::while_loop(|x: Tensor| x.lt(&bound), |x: Tensor| &x * 2.0f64, &x, None),
        |(x, bound): (Tensor, Tensor)| {
            (ferrax::while_loop(|x: Tensor| x.lt(&bound), |x: Tensor| &x * 2.0f64, &x, None), ())
        },
        |(): (), g: Tensor| (g.clone(), g.zeros_like()),
    );
    let g = grad(|[x, bound]: [Tensor; 2]| fine.call(&(x, bound)))
        .call(&[Array::scalar(1.5f64), Array::scalar(10.0f64)])
        .unwrap();
    assert_eq!((g[0].to_f64_vec(), g[1].to_f64_vec()), (vec![1.0], vec![0.0]));
}

#[test]
fn custom_rule_wrappers_are_traceable() {
    // jvp, grad and jit take a custom_jvp wrapper as they take a closure.
    let x = f64s(&[1.0, -2.0]);
    let (f, rule) = (|x: Tensor| x.powi(2), |x: Tensor, t: Tensor| (x.powi(2), t * 3.0f64));
    let (_, direct) = jvp(custom_jvp(f, rule), &x, &f64s(&[1.0, 1.0])).unwrap();
    assert_eq!(direct.to_f64_vec(), [3.0, 3.0]);
    let compiled = ferrax::jit(custom_jvp(f, rule)).call(&x).unwrap();
    assert_eq!(compiled.to_f64_vec(), [1.0, 4.0]);
    let scalar = |x: Tensor| x.powi(2).sum_all();
    let scalar_rule = |x: Tensor, t: Tensor| (x.powi(2).sum_all(), (t * 3.0f64).sum_all());
    assert_eq!(grad(custom_jvp(scalar, scalar_rule)).call(&x).unwrap().to_f64_vec(), [3.0, 3.0]);
    // And a custom_vjp: grad through the clipping rule.
    let clip = custom_vjp(
        |x: Tensor| (&x * 10.0).sum_all(),
        |x: Tensor| ((&x * 10.0).sum_all(), x),
        |x: Tensor, g: Tensor| (&x * 0.0 + 1.0) * g,
    );
    assert_eq!(grad(clip).call(&x).unwrap().to_f64_vec(), [1.0, 1.0]);
}
