//! Misuse of the transforms is an error that names the user's line (`file:line:col` of
//! the call), what was expected and what was given, never a panic or an IR-internal
//! place.

use ferrax::{Array, Tensor, grad, jit, value_and_grad, vmap};

fn v(values: &[f64]) -> Array {
    Array::from(values.to_vec())
}

/// Asserts that `error` starts at this test file and says every one of `parts`.
#[track_caller]
fn says(error: ferrax::Error, parts: &[&str]) {
    let text = error.to_string();
    assert!(text.starts_with("crates/api-tests/tests/misuse.rs:"), "no caller location: {text}");
    assert!(!text.contains("in @"), "an IR-internal place: {text}");
    for part in parts {
        assert!(text.contains(part), "{text:?} does not say {part:?}");
    }
}

#[test]
fn gradients_of_non_scalars_name_the_call_and_the_result_type() {
    let x = v(&[1.0, 2.0]);
    says(grad(|x: Tensor| x.sin()).call(&x).unwrap_err(), &["grad:", "float scalar", "got f64[2]"]);
    says(value_and_grad(|x: Tensor| x.sin()).call(&x).unwrap_err(), &["value_and_grad:", "got f64[2]"]);
    // Inside a trace the same mistake is reported at the `apply`.
    let inner = jit(|x: Tensor| grad(|y: Tensor| y.sin()).apply(&x)).call(&x).unwrap_err();
    says(inner, &["grad:", "got f64[2]"]);
}

#[test]
fn tangents_and_cotangents_must_match_their_primals() {
    let x = v(&[1.0, 2.0]);
    let f = |x: Tensor| x.sin();
    says(ferrax::jvp(f, &x, &v(&[1.0])).unwrap_err(), &["jvp: tangent leaf 0 is f64[1], its primal is f64[2]"]);
    let t32 = Array::from(vec![1.0f32, 1.0]);
    let scalar = |x: Tensor| x.sin().sum_all();
    says(ferrax::hvp(scalar, &x, &t32).unwrap_err(), &["hvp: tangent leaf 0 is f32[2], its primal is f64[2]"]);
    let two = vec![x.clone(), x.clone()];
    let pair = |p: Vec<Tensor>| &p[0] * &p[1];
    says(ferrax::jvp(pair, &two, &vec![x.clone()]).unwrap_err(), &["jvp: 1 tangent leaves given for 2 primal leaves"]);
    says(ferrax::vjp(f, &x, &v(&[1.0])).unwrap_err(), &["vjp: cotangent leaf 0 is f64[1], its float output is f64[2]"]);
}

#[test]
fn batching_errors_name_the_axis_and_the_type() {
    let x = v(&[1.0, 2.0]);
    let f = |x: Tensor| x.sin();
    says(vmap(f).in_axes(&[Some(3)]).call::<_, Tensor>(&x).unwrap_err(), &["vmap: in_axes: axis 3", "f64[2]"]);
    says(vmap(f).in_axes(&[None]).call::<_, Tensor>(&x).unwrap_err(), &["vmap: no argument is batched"]);
    let pair = |[a, b]: [Tensor; 2]| &a * &b;
    let uneven = [Array::from_f64(&[2, 1], vec![1.0, 2.0]).unwrap(), v(&[1.0, 2.0, 3.0])];
    says(vmap(pair).call::<_, Tensor>(&uneven).unwrap_err(), &["vmap: batch sizes differ: 2 vs 3"]);
    says(
        vmap(f).in_axes(&[Some(0), None]).call::<_, Tensor>(&x).unwrap_err(),
        &["vmap: 2 in_axes for 1 argument leaves"],
    );
}

/// A jitted function whose traced body calls that same jit with the same types: an
/// error at the call, not a thread waiting for itself.
#[test]
fn a_jit_that_calls_itself_while_traced_is_an_error_not_a_deadlock() {
    use std::sync::OnceLock;
    type SelfCalling = ferrax::Jit<fn(Tensor) -> Tensor>;
    static J: OnceLock<SelfCalling> = OnceLock::new();
    static INNER: OnceLock<String> = OnceLock::new();
    fn body(x: Tensor) -> Tensor {
        if let Some(j) = J.get()
            && let Err(e) = j.call(&Array::scalar(1.0f64))
        {
            let _ = INNER.set(e.to_string());
        }
        x.sin()
    }
    let j = J.get_or_init(|| jit(body as fn(Tensor) -> Tensor));
    let out = j.call(&Array::scalar(0.0f64)).unwrap();
    assert_eq!(out.to_f64_vec(), [0.0]);
    let inner = INNER.get().expect("the inner call returned an error");
    assert!(inner.contains("calls its own jit") && inner.contains("tests/misuse.rs:"), "{inner}");
}

#[test]
fn composed_transforms_report_the_users_call() {
    let x = v(&[1.0, 2.0]);
    says(jit(grad(|x: Tensor| x.sin())).call(&x).unwrap_err(), &["grad:", "got f64[2]"]);
    says(
        vmap(grad(|x: Tensor| x.sin()))
            .call::<_, Tensor>(&ferrax::Array::from_f64(&[2, 2], vec![1.0; 4]).unwrap())
            .unwrap_err(),
        &["grad:", "got f64[2]"],
    );
    says(grad(jit(|x: Tensor| x.sin())).call(&x).unwrap_err(), &["grad:", "got f64[2]"]);
    says(
        jit(ferrax::transforms::hvp(|x: Tensor| x.sin())).call(&(x.clone(), x.clone())).unwrap_err(),
        &["grad:", "got f64[2]"],
    );
}
