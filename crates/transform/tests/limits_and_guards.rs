//! Regression tests from review: the module-size cap of growing passes, argument checks
//! of `check_grads`, and reverse mode through a batched `while` whose examples finish at
//! different iterations.

use ferrax_ir::{Array, EvalOptions, eval_entry, parse};
use ferrax_transform::{Modes, Tolerance, Wrt, check_grads, grad, vjp, vmap};

/// `@g0(x) = sin x`, `@gk(x) = g(k-1)(g(k-1)(x))`: inlining doubles at every level.
fn doubling(levels: usize) -> String {
    let mut text = format!("func @g{levels}(%x: f64[]) -> (f64[]) {{\n");
    text += &format!(
        "  %a: f64[] = call[func=@g{}](%x)\n  %b: f64[] = call[func=@g{}](%a)\n  return %b\n}}\n",
        levels - 1,
        levels - 1
    );
    for k in (1..levels).rev() {
        text += &format!(
            "func @g{k}(%x: f64[]) -> (f64[]) {{\n  %a: f64[] = call[func=@g{}](%x)\n  %b: f64[] = call[func=@g{}](%a)\n  return %b\n}}\n",
            k - 1,
            k - 1
        );
    }
    text += "func @g0(%x: f64[]) -> (f64[]) {\n  %y: f64[] = sin(%x)\n  return %y\n}\n";
    text
}

#[test]
fn reverse_mode_of_an_exponentially_inlined_module_is_an_error_not_an_abort() {
    let module = parse(&doubling(21)).unwrap();
    let err = grad(&module, &Wrt::Default, false).unwrap_err().to_string();
    assert!(err.contains("1000000 equations"), "{err}");
    // A small one still works.
    let small = parse(&doubling(3)).unwrap();
    assert!(grad(&small, &Wrt::Default, false).is_ok());
}

#[test]
fn check_grads_checks_its_arguments() {
    let module =
        parse("func @f(%0: f64[], %1: f64[]) -> (f64[]) {\n  %2: f64[] = mul(%0, %1)\n  return %2\n}\n").unwrap();
    let err = check_grads(&module, &[], 1, Modes::Both, Tolerance::default()).unwrap_err();
    assert!(err.contains("takes 2 arguments, got 0"), "{err}");
    let wrong = [Array::scalar_f64(1.0), Array::scalar_f32(2.0)];
    let err = check_grads(&module, &wrong, 1, Modes::Both, Tolerance::default()).unwrap_err();
    assert!(err.contains("argument 1 must be f64[]"), "{err}");
}

#[test]
fn reverse_mode_through_a_batched_while_has_no_nan_from_finished_examples() {
    // y ← sqrt(y) - 1 while i < n (at most 5 steps): example 0 stops after 1 step at
    // y = 0, where sqrt has an infinite derivative; its gradient must stay finite.
    let text = "func @f(%x: f64[], %n: i32[]) -> (f64[]) {
  %zero: i32[] = constant[value=0]()
  %y: f64[], %i: i32[], %m: i32[] = while[cond=@c, body=@b, max_iters=5](%x, %zero, %n)
  return %y
}
func @c(%y: f64[], %i: i32[], %n: i32[]) -> (bool[]) {
  %p: bool[] = lt(%i, %n)
  return %p
}
func @b(%y: f64[], %i: i32[], %n: i32[]) -> (f64[], i32[], i32[]) {
  %s: f64[] = sqrt(%y)
  %one: f64[] = constant[value=1.0]()
  %t: f64[] = sub(%s, %one)
  %k: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %k)
  return %t, %j, %n
}
";
    let module = parse(text).unwrap();
    let batched = vmap(&module, &[Some(0), Some(0)], &[0], 2).unwrap();
    let reverse = vjp(&batched, &Wrt::Params(vec![0])).unwrap();
    let args = [
        Array::from_f64(&[2], vec![1.0, 100.0]).unwrap(),
        Array::from_i32(&[2], vec![1, 3]).unwrap(),
        Array::from_f64(&[2], vec![1.0, 1.0]).unwrap(),
    ];
    let out = eval_entry(&reverse, &args, &EvalOptions::default()).unwrap();
    let grads = out[1].as_f64().unwrap();
    assert_eq!(grads[0], 0.5, "{grads:?}");
    assert!(grads[1].is_finite() && grads[1] > 0.0, "{grads:?}");
}
