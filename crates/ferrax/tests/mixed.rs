//! `ferrax::mixed`: policies, loss scaling, and skipping a step whose gradients
//! overflowed.

use ferrax::mixed::{DynamicLossScale, LossScale, NoLossScale, Policy, StaticLossScale, all_finite, select_tree};
use ferrax::optim::{Sgd, SgdState};
use ferrax::{Array, DType, Tensor, eval, grad, jit};

#[test]
fn policies_parse_print_and_cast_float_leaves_only() {
    let p: Policy = "params=f32,compute=bf16,output=f32".parse().unwrap();
    assert_eq!((p.params, p.compute, p.output), (DType::F32, DType::BF16, DType::F32));
    assert_eq!(p.to_string(), "params=f32,compute=bf16,output=f32");
    let short: Policy = "p=float32,c=float16".parse().unwrap();
    assert_eq!((short.compute, short.output), (DType::F16, DType::F32));
    for bad in ["params=i32", "compute", "speed=f32", "params=f8"] {
        let err = bad.parse::<Policy>().unwrap_err();
        assert!(err.starts_with("mixed policy: "), "{bad}: {err}");
    }
    let cast =
        eval(|(x, n): (Tensor, Tensor)| p.cast_to_compute(&(x, n)), &(Array::scalar(1.5f32), Array::scalar(3i32)));
    let (x, n) = cast.unwrap();
    assert_eq!((x.dtype(), n.dtype()), (DType::BF16, DType::I32));
    let master = p.params_from(&vec![Array::from(vec![ferrax::ir::array::bf16::from_f32(0.5)])]).unwrap();
    assert_eq!((master[0].dtype(), master[0].to_f64_vec()), (DType::F32, vec![0.5]));
}

#[test]
fn all_finite_looks_at_every_float_leaf() {
    let check = |values: Vec<f32>| {
        let args = (Array::from(values), Array::from(vec![1.0f64]), Array::scalar(7i32));
        eval(|t: (Tensor, Tensor, Tensor)| all_finite(&t), &args).unwrap().to_f64_vec()[0]
    };
    assert_eq!(check(vec![1.0, -2.0]), 1.0);
    assert_eq!(check(vec![1.0, f32::INFINITY]), 0.0);
    assert_eq!(check(vec![f32::NAN, 0.0]), 0.0);
}

#[test]
fn static_and_no_loss_scales_undo_themselves() {
    let out = eval(
        |x: Tensor| {
            let s = StaticLossScale(1024.0);
            (s.scale(&x), s.unscale(&vec![s.scale(&x)])[0].clone(), NoLossScale.scale(&x))
        },
        &Array::scalar(3.0f32),
    )
    .unwrap();
    assert_eq!((out.0.to_f64_vec(), out.1.to_f64_vec(), out.2.to_f64_vec()), (vec![3072.0], vec![3.0], vec![3.0]));
}

/// One SGD step on f(p) = Σ (p·x)² with a dynamic loss scale, skipped (by a select over
/// the parameters and state) when the unscaled gradients are not finite.
fn training_step() -> impl Fn(
    (Vec<Tensor>, SgdState<Vec<Tensor>>, DynamicLossScale<Tensor>, Tensor),
) -> (Vec<Tensor>, SgdState<Vec<Tensor>>, DynamicLossScale<Tensor>) {
    let policy: Policy = "params=f32,compute=f16,output=f32".parse().unwrap();
    let sgd = Sgd::new(0.1, 0.0);
    move |(p, s, ls, x)| {
        let loss = |p: Vec<Tensor>| {
            let y = &policy.cast_to_compute(&p)[0] * &policy.cast_to_compute(&x);
            ls.scale(&policy.cast_to_output(&(&y * &y).sum_all()))
        };
        let grads = ls.unscale(&policy.cast_to_param(&grad(loss).apply(&p)));
        let finite = all_finite(&grads);
        let (new_p, new_s) = sgd.update(&grads, &s, &p);
        let (p, s) = select_tree(&finite, &(new_p, new_s), &(p.clone(), s.clone()));
        (p, s, ls.adjust(&finite))
    }
}

#[test]
fn an_overflow_halves_the_scale_and_leaves_the_parameters_alone() {
    let step = jit(training_step());
    let params = vec![Array::from(vec![1.0f32, -0.5])];
    let state = Sgd::new(0.1, 0.0).init(&params).unwrap();
    // x = 300: (p x)² = 90000 already overflows f16 (max 65504) before scaling.
    let big = Array::from(vec![300.0f32, 300.0]);
    let (p, s, ls) = step.call(&(params.clone(), state.clone(), DynamicLossScale::new(), big)).unwrap();
    assert_eq!(p, params);
    assert_eq!(s, state);
    assert_eq!((ls.scale.to_f64_vec(), ls.counter.to_f64_vec()), (vec![16384.0], vec![0.0]));
    // Repeated overflows stop at the minimum scale, 1.
    let mut ls = DynamicLossScale::with_scale(2.0);
    for _ in 0..3 {
        let big = Array::from(vec![300.0f32, 300.0]);
        (_, _, ls) = step.call(&(params.clone(), state.clone(), ls, big)).unwrap();
    }
    assert_eq!(ls.scale.to_f64_vec(), [1.0]);
}

#[test]
fn period_finite_steps_double_the_scale() {
    let step = jit(training_step());
    let mut params = vec![Array::from(vec![1.0f32, -0.5])];
    let mut state = Sgd::new(0.1, 0.0).init(&params).unwrap();
    let mut ls = DynamicLossScale { period: 3, ..DynamicLossScale::with_scale(8.0) };
    let x = Array::from(vec![0.5f32, 0.25]);
    let mut scales = Vec::new();
    for _ in 0..7 {
        (params, state, ls) = step.call(&(params, state, ls, x.clone())).unwrap();
        scales.push(ls.scale.to_f64_vec()[0]);
    }
    assert_eq!(scales, [8.0, 8.0, 16.0, 16.0, 16.0, 32.0, 32.0]);
    // The finite steps moved the parameters toward the minimum at 0.
    assert!(params[0].to_f64_vec()[0] < 1.0);
    let defaults = DynamicLossScale::new();
    assert_eq!(
        (defaults.scale.to_f64_vec(), defaults.period, defaults.factor, defaults.min_scale),
        (vec![32768.0], 2000, 2.0, 1.0)
    );
}
