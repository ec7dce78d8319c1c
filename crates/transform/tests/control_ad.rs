//! Reverse mode through the structured primitives (`scan`, `while` with `max_iters`,
//! `cond`, `remat`, `custom_vjp`), checked numerically with `check_grads` in f64 on
//! small programs written as IR text, and the residual report.

use ferrax_ir::array::Data;
use ferrax_ir::{Array, Module, parse, verify};
use ferrax_transform::{Modes, Residual, Tolerance, Wrt, check_grads, linearize, saved_residuals, transpose, vjp};

/// Parses and verifies a module.
fn module(text: &str) -> Module {
    let m = parse(text).unwrap_or_else(|e| panic!("{e}"));
    verify(&m).unwrap_or_else(|e| panic!("{e}"));
    m
}

/// An f64 array of `shape` with deterministic values in about [-1, 1] (offset by `seed`).
fn arg(shape: &[usize], seed: u64) -> Array {
    let n: usize = shape.iter().product();
    let values: Vec<f64> = (0..n).map(|i| ((i as f64 + 1.0) * 0.731 + seed as f64 * 1.37).sin()).collect();
    Array::new(shape, Data::F64(values)).unwrap()
}

/// Checks first and second derivatives (both modes) of `text`'s entry at `args`, and
/// that the transforms' outputs verify.
fn check(text: &str, args: &[Array], order: usize) {
    let m = module(text);
    for out in [vjp(&m, &Wrt::Default), linearize(&m, &Wrt::Default)] {
        let out = out.unwrap_or_else(|e| panic!("{e}"));
        verify(&out).unwrap_or_else(|e| panic!("{e}\n{}", ferrax_ir::print(&out)));
    }
    let lin = linearize(&m, &Wrt::Default).unwrap();
    let t = transpose(&lin).unwrap_or_else(|e| panic!("{e}"));
    verify(&t).unwrap_or_else(|e| panic!("{e}\n{}", ferrax_ir::print(&t)));
    check_grads(&m, args, order, Modes::Both, Tolerance::default()).unwrap_or_else(|e| panic!("{e}"));
}

const SCAN: &str = r#"
func @f(%w: f64[3], %c0: f64[3], %xs: f64[5,3]) -> (f64[3], f64[5,3]) {
  %c: f64[3], %ys: f64[5,3] = scan[body=@step, length=5, num_consts=1, num_carry=1](%w, %c0, %xs)
  return %c, %ys
}
func @step(%w: f64[3], %c: f64[3], %x: f64[3]) -> (f64[3], f64[3]) {
  %a: f64[3] = mul(%c, %w)
  %s: f64[3] = sin(%a)
  %e: f64[3] = exp(%w)
  %n: f64[3] = add(%s, %x)
  %m: f64[3] = mul(%n, %e)
  %y: f64[3] = mul(%m, %c)
  return %m, %y
}
"#;

#[test]
fn scan_gradients() {
    check(SCAN, &[arg(&[3], 1), arg(&[3], 2), arg(&[5, 3], 3)], 2);
}

#[test]
fn reverse_scan_gradients() {
    let text = SCAN.replace("num_carry=1]", "num_carry=1, reverse=true]");
    check(&text, &[arg(&[3], 1), arg(&[3], 2), arg(&[5, 3], 3)], 2);
}

#[test]
fn checkpointed_scan_gradients() {
    for (k, reverse) in [(2, false), (2, true), (3, false), (3, true), (4, false)] {
        let text = SCAN.replace("num_carry=1]", &format!("num_carry=1, reverse={reverse}, checkpoint={k}]"));
        check(&text, &[arg(&[3], 1), arg(&[3], 2), arg(&[5, 3], 3)], 1);
    }
}

/// The residual `exp(w)` depends only on the const `w`: linearize computes it once,
/// outside the loop, and the linear scan reads it as a const (not stacked per step).
#[test]
fn scan_invariant_residuals_are_read_once() {
    let lin = linearize(&module(SCAN), &Wrt::Default).unwrap();
    let primal = lin.entry().unwrap();
    let exp = primal.eqns.iter().find(|e| e.prim.name() == "exp").expect("exp is hoisted out of the scan");
    assert!(primal.results.contains(&exp.outputs[0]), "exp(w) is a residual");
    let linear = lin.funcs.values().find(|f| f.attr("residuals").is_some()).unwrap();
    let scan = linear.eqns.iter().find(|e| e.prim.name() == "scan").unwrap();
    let ferrax_ir::Prim::Control(ferrax_ir::prim::ControlOp::Scan(params)) = &scan.prim else { unreachable!() };
    // Consts: w, exp(w) and w's tangent; the stacked residuals are xs.
    assert_eq!(params.num_consts, 3);
    let stacked = scan.inputs[params.num_consts + params.num_carry..].iter().filter(|v| linear.ty(**v).rank() == 2);
    assert_eq!(stacked.count(), 5, "four stacked residuals and the tangent of xs");
}

/// `x <- x + s * sin(x)`, `s <- 1.1 * s` while `i < n`, at most `max_iters` times.
fn while_loop(n: i32, max_iters: &str) -> String {
    format!(
        r#"
func @f(%x: f64[2], %s: f64[]) -> (f64[2], f64[]) {{
  %zero: i32[] = constant[value=0]()
  %n: i32[] = constant[value={n}]()
  %x1: f64[2], %s1: f64[], %i: i32[], %m: i32[] = while[cond=@below, body=@step, max_iters={max_iters}](%x, %s, %zero, %n) loc("src/model.rs:7:9")
  return %x1, %s1
}}
func @below(%x: f64[2], %s: f64[], %i: i32[], %n: i32[]) -> (bool[]) {{
  %b: bool[] = lt(%i, %n)
  return %b
}}
func @step(%x: f64[2], %s: f64[], %i: i32[], %n: i32[]) -> (f64[2], f64[], i32[], i32[]) {{
  %sin: f64[2] = sin(%x)
  %sb: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%s)
  %d: f64[2] = mul(%sb, %sin)
  %x1: f64[2] = add(%x, %d)
  %k: f64[] = constant[value=1.1]()
  %s1: f64[] = mul(%s, %k)
  %one: i32[] = constant[value=1]()
  %i1: i32[] = add(%i, %one)
  return %x1, %s1, %i1, %n
}}
"#
    )
}

#[test]
fn bounded_while_gradients() {
    // The predicate ends the loop (3 < 6 iterations), the bound does (5 < 9), and no
    // iteration runs at all.
    for (n, max_iters) in [(3, "6"), (9, "5"), (0, "4")] {
        check(&while_loop(n, max_iters), &[arg(&[2], 1), Array::scalar_f64(0.7)], 2);
    }
}

#[test]
fn unbounded_while_is_an_error_naming_the_loop() {
    let m = module(&while_loop(3, "none"));
    let message = vjp(&m, &Wrt::Default).unwrap_err().to_string();
    assert!(message.contains("reverse mode through an unbounded while needs max_iters"), "{message}");
    assert!(message.contains("src/model.rs:7:9"), "{message}");
    assert!(message.contains("while[cond=@below, body=@step, max_iters=none]"), "{message}");
    assert!(message.contains("equation 2 of @f"), "{message}");
    // Forward mode does not need the bound.
    check_grads(&m, &[arg(&[2], 1), Array::scalar_f64(0.7)], 1, Modes::Fwd, Tolerance::default()).unwrap();
}

/// A three-way `cond` on an index computed from `x`, with branches that need different
/// residuals (none, one, two of other shapes), inside and outside a scan.
const COND: &str = r#"
func @f(%x: f64[3], %w: f64[2], %k: i32[]) -> (f64[3], f64[]) {
  %a: f64[3], %b: f64[] = cond[branches=[@zero, @one, @two]](%k, %x, %w)
  %p: bool[] = constant[value=true]()
  %c: f64[3], %d: f64[] = cond[branches=[@one, @two]](%p, %a, %w)
  return %c, %d
}
func @zero(%x: f64[3], %w: f64[2]) -> (f64[3], f64[]) {
  %y: f64[3] = neg(%x)
  %s: f64[] = reduce_sum[axes=[0]](%w)
  return %y, %s
}
func @one(%x: f64[3], %w: f64[2]) -> (f64[3], f64[]) {
  %y: f64[3] = sin(%x)
  %c: f64[] = constant[value=2.0]()
  return %y, %c
}
func @two(%x: f64[3], %w: f64[2]) -> (f64[3], f64[]) {
  %y: f64[3] = mul(%x, %x)
  %e: f64[2] = exp(%w)
  %p: f64[] = reduce_sum[axes=[0]](%e)
  %sx: f64[] = reduce_sum[axes=[0]](%y)
  %s: f64[] = mul(%p, %sx)
  return %y, %s
}
"#;

#[test]
fn cond_gradients() {
    for k in [0, 1, 2, 7, -1] {
        check(COND, &[arg(&[3], 1), arg(&[2], 2), Array::scalar_i32(k)], 2);
    }
}

#[test]
fn cond_in_scan_gradients() {
    let text = r#"
func @f(%x: f64[3], %ks: i32[4]) -> (f64[3], f64[4]) {
  %w: f64[2] = constant[value=0.5]()
  %c: f64[3], %ys: f64[4] = scan[body=@step, length=4, num_consts=1, num_carry=1](%w, %x, %ks)
  return %c, %ys
}
func @step(%w: f64[2], %x: f64[3], %k: i32[]) -> (f64[3], f64[]) {
  %a: f64[3], %b: f64[] = cond[branches=[@zero, @one, @two]](%k, %x, %w)
  return %a, %b
}
"#;
    let text = format!("{text}{}", &COND[COND.find("func @zero").unwrap()..]);
    check(&text, &[arg(&[3], 1), Array::new(&[4usize][..], Data::I32(vec![2, 0, 1, 2])).unwrap()], 2);
}

/// `x <- sqrt(x) - 0.5` while `x > 0`: the body is out of its domain once the loop is
/// over (sqrt of a negative number), which must not reach the gradient.
#[test]
fn finished_while_body_does_not_poison_the_gradient() {
    let text = r#"
func @f(%x: f64[]) -> (f64[]) {
  %y: f64[] = while[cond=@positive, body=@step, max_iters=8](%x)
  return %y
}
func @positive(%x: f64[]) -> (bool[]) {
  %z: f64[] = constant[value=0.0]()
  %b: bool[] = gt(%x, %z)
  return %b
}
func @step(%x: f64[]) -> (f64[]) {
  %r: f64[] = sqrt(%x)
  %h: f64[] = constant[value=0.5]()
  %y: f64[] = sub(%r, %h)
  return %y
}
"#;
    check(text, &[Array::scalar_f64(1.7)], 2);
}

/// A scan whose body ignores its carry: the initial carry gets no cotangent, so an
/// infinite residual upstream (here `reduce_max` over an empty axis, which is -inf)
/// does not turn the gradient into 0 * -inf = NaN. Found by the large differential
/// soak (seed 1602).
#[test]
fn ignored_scan_carry_gets_no_cotangent() {
    let text = r#"
func @f(%x: f64[6]) -> (f64[]) {
  %e: f64[0,6] = constant[value=0.0]()
  %m: f64[6] = reduce_max[axes=[0]](%e)
  %d: f64[] = dot_general[lhs_contract=[0], rhs_contract=[0], lhs_batch=[], rhs_batch=[]](%x, %m)
  %xs: f64[4] = constant[value=0.0]()
  %c: f64[], %ys: f64[4,3] = scan[body=@step, length=4, num_consts=0, num_carry=1](%d, %xs)
  return %c
}
func @step(%c: f64[], %x: f64[]) -> (f64[], f64[3]) {
  %y: f64[3] = constant[value=0.0]()
  %z: f64[] = constant[value=2.0]()
  return %z, %y
}
"#;
    check(text, &[arg(&[6], 1)], 2);
    // With no iterations the carry passes through, and the cotangent must reach it.
    let empty = text.replace("length=4", "length=0").replace("f64[4", "f64[0");
    let m = module(&empty);
    let grad = vjp(&m, &Wrt::Default).unwrap();
    verify(&grad).unwrap_or_else(|e| panic!("{e}\n{}", ferrax_ir::print(&grad)));
    let outs = ferrax_ir::eval_entry(&grad, &[arg(&[6], 1), Array::scalar_f64(1.0)], &Default::default()).unwrap();
    let dx = outs.last().unwrap().to_f64_vec();
    assert_eq!(dx, vec![f64::NEG_INFINITY; 6], "the zero-length scan passes the cotangent through");
}

/// `c <- sin(c + w)` for `length` steps on a 16-wide carry: one carry-sized residual
/// (`cos(c + w)`) per step.
fn long_scan(length: usize, checkpoint: &str) -> String {
    format!(
        r#"
func @f(%w: f64[16], %c0: f64[16]) -> (f64[16]) {{
  %c: f64[16] = scan[body=@step, length={length}, num_consts=1, num_carry=1, checkpoint={checkpoint}](%w, %c0)
  return %c
}}
func @step(%w: f64[16], %c: f64[16]) -> (f64[16]) {{
  %a: f64[16] = add(%c, %w)
  %s: f64[16] = sin(%a) loc("src/model.rs:12:5")
  return %s
}}
"#
    )
}

const CARRY_BYTES: u64 = 16 * 8;

/// The bytes of the saved and of the recomputed residuals, in carries.
fn carries(residuals: &[Residual]) -> (u64, u64) {
    let sum = |recomputed: bool| residuals.iter().filter(|r| r.recomputed == recomputed).map(|r| r.bytes).sum::<u64>();
    (sum(false) / CARRY_BYTES, sum(true) / CARRY_BYTES)
}

#[test]
fn scan_residuals_are_linear_in_the_length() {
    let report = saved_residuals(&module(&long_scan(1000, "none")), &Wrt::Default).unwrap();
    let stacked = report.iter().find(|r| r.ty.shape.as_slice() == [1000, 16]).expect("a residual per step");
    assert_eq!(stacked.loc.as_deref(), Some("src/model.rs:12:5"), "{stacked:?}");
    assert!(stacked.origin.contains("1000 steps"), "{}", stacked.origin);
    // cos(c + w) per step, nothing else.
    assert_eq!(carries(&report), (1000, 0), "{report:#?}");
    let half = saved_residuals(&module(&long_scan(500, "none")), &Wrt::Default).unwrap();
    assert_eq!(carries(&half), (500, 0), "{half:#?}");
}

#[test]
fn checkpointed_scan_keeps_segment_carries() {
    let report = saved_residuals(&module(&long_scan(1000, "32")), &Wrt::Default).unwrap();
    let (saved, recomputed) = carries(&report);
    // The carry entering each of the 31 segments of 32 steps and the 8 remaining
    // steps, and w; the backward pass recomputes the 32 (then 8) steps' residuals.
    assert_eq!(saved, 31 + 1 + 1, "{report:#?}");
    assert_eq!(recomputed, 32 + 8, "{report:#?}");
    let largest = report.iter().filter(|r| r.recomputed).map(|r| r.bytes).max().unwrap();
    assert_eq!(largest / CARRY_BYTES, 32);
    check(&long_scan(40, "8"), &[arg(&[16], 1), arg(&[16], 2)], 1);
}

/// `sum(sin(tanh(w x)))` with the layer in a `remat` region of the given policy (the
/// tanh output is tagged `a`).
fn remat_layer(policy: &str) -> String {
    format!(
        r#"
func @f(%x: f64[8], %w: f64[8,8]) -> (f64[]) {{
  %y: f64[8] = remat[func=@layer, policy="{policy}"](%x, %w)
  %s: f64[] = reduce_sum[axes=[0]](%y)
  return %s
}}
func @layer(%x: f64[8], %w: f64[8,8]) -> (f64[8]) {{
  %h: f64[8] = dot_general[lhs_contract=[1], rhs_contract=[0]](%w, %x)
  %t: f64[8] = tanh(%h)
  %a: f64[8] = name[name="a"](%t)
  %u: f64[8] = sin(%a)
  return %u
}}
"#
    )
}

#[test]
fn remat_gradients() {
    for policy in ["nothing", "dots", "names:a", "names:b,a"] {
        check(&remat_layer(policy), &[arg(&[8], 1), arg(&[8, 8], 2)], 2);
    }
}

/// The types and origins of the saved residuals, sorted.
fn saved(text: &str) -> Vec<String> {
    let report = saved_residuals(&module(text), &Wrt::Default).unwrap();
    let mut saved: Vec<String> =
        report.iter().filter(|r| !r.recomputed).map(|r| format!("{} {}", r.ty, r.origin)).collect();
    saved.sort();
    saved
}

#[test]
fn remat_saves_what_its_policy_says() {
    let inputs = ["f64[8,8] parameter 1 of @f", "f64[8] parameter 0 of @f"];
    assert_eq!(saved(&remat_layer("nothing")), inputs);
    assert_eq!(saved(&remat_layer("dots")), [inputs[0], "f64[8] dot_general output", inputs[1]]);
    assert_eq!(saved(&remat_layer("names:a")), [inputs[0], "f64[8] name output", inputs[1]]);
    assert_eq!(saved(&remat_layer("names:b")), inputs);
    // The backward pass recomputes the rest.
    let report = saved_residuals(&module(&remat_layer("nothing")), &Wrt::Default).unwrap();
    assert!(report.iter().any(|r| r.recomputed && r.origin == "cos output"), "{report:#?}");
    // Without remat, the values themselves are saved.
    let plain = remat_layer("nothing").replace(r#"remat[func=@layer, policy="nothing"]"#, "call[func=@layer]");
    assert!(saved(&plain).contains(&"f64[8] cos output".to_string()), "{:?}", saved(&plain));
}

#[test]
fn remat_in_scan_gradients() {
    let text = r#"
func @f(%w: f64[8,8], %x: f64[8]) -> (f64[8]) {
  %c: f64[8] = scan[body=@step, length=3, num_consts=1, num_carry=1](%w, %x)
  return %c
}
func @step(%w: f64[8,8], %x: f64[8]) -> (f64[8]) {
  %y: f64[8] = remat[func=@layer, policy="dots"](%x, %w)
  return %y
}
"#;
    let text = format!("{text}{}", &remat_layer("")[remat_layer("").find("func @layer").unwrap()..]);
    check(&text, &[arg(&[8, 8], 2), arg(&[8], 1)], 2);
}

/// `(sin(x) * y * scale, k)` where the custom rule's bwd multiplies the true
/// cotangents by `scale` (1: the true derivative).
fn custom(scale: f64) -> String {
    format!(
        r#"
func @f(%x: f64[3], %y: f64[3], %k: i32[]) -> (f64[3], i32[]) {{
  %o: f64[3], %k1: i32[] = custom_vjp[func=@g, fwd=@g_fwd, bwd=@g_bwd](%x, %y, %k)
  %p: f64[3] = mul(%o, %o)
  return %p, %k1
}}
func @g(%x: f64[3], %y: f64[3], %k: i32[]) -> (f64[3], i32[]) {{
  %s: f64[3] = sin(%x)
  %o: f64[3] = mul(%s, %y)
  return %o, %k
}}
func @g_fwd(%x: f64[3], %y: f64[3], %k: i32[]) -> (f64[3], i32[], f64[3], f64[3], f64[3]) {{
  %s: f64[3] = sin(%x)
  %c: f64[3] = cos(%x)
  %o: f64[3] = mul(%s, %y)
  return %o, %k, %c, %s, %y
}}
func @g_bwd(%c: f64[3], %s: f64[3], %y: f64[3], %ct: f64[3], %ck: i32[]) -> (f64[3], f64[3]) {{
  %m: f64[3] = constant[value={scale}]()
  %scaled: f64[3] = mul(%ct, %m)
  %cy: f64[3] = mul(%scaled, %y)
  %dx: f64[3] = mul(%cy, %c)
  %dy: f64[3] = mul(%scaled, %s)
  return %dx, %dy
}}
"#
    )
}

#[test]
fn custom_vjp_gradients() {
    check(&custom(1.0), &[arg(&[3], 1), arg(&[3], 2), Array::scalar_i32(4)], 2);
}

#[test]
fn custom_vjp_rule_is_what_reverse_mode_runs() {
    let args = [arg(&[3], 1), arg(&[3], 2), Array::scalar_i32(4), arg(&[3], 3)];
    let run = |text: &str| {
        let m = vjp(&module(text), &Wrt::Default).unwrap();
        let out = ferrax_ir::eval_entry(&m, &args, &ferrax_ir::EvalOptions::default()).unwrap();
        (out[2].to_f64_vec(), out[3].to_f64_vec())
    };
    let (dx, dy) = run(&custom(1.0));
    let (dx3, dy3) = run(&custom(3.0));
    for (a, b) in dx.iter().chain(&dy).zip(dx3.iter().chain(&dy3)) {
        assert!((3.0 * a - b).abs() < 1e-12, "{a} * 3 vs {b}");
    }
    // The linear Func of linearize still evaluates J·t (func's derivative).
    let m = module(&custom(3.0));
    let lin = linearize(&m, &Wrt::Default).unwrap();
    verify(&lin).unwrap();
    check_grads(&m, &args[..3], 1, Modes::Fwd, Tolerance::default()).unwrap();
}

#[test]
fn custom_vjp_in_scan_gradients() {
    let text = r#"
func @f(%x: f64[3], %ys: f64[4,3]) -> (f64[3]) {
  %k: i32[] = constant[value=1]()
  %c: f64[3] = scan[body=@step, length=4, num_consts=1, num_carry=1](%k, %x, %ys)
  return %c
}
func @step(%k: i32[], %x: f64[3], %y: f64[3]) -> (f64[3]) {
  %o: f64[3], %k1: i32[] = custom_vjp[func=@g, fwd=@g_fwd, bwd=@g_bwd](%x, %y, %k)
  return %o
}
"#;
    let rules = custom(1.0);
    let text = format!("{text}{}", &rules[rules.find("func @g(").unwrap()..]);
    check(&text, &[arg(&[3], 1), arg(&[4, 3], 2)], 2);
}

/// `sin(x)` by a custom rule whose fwd returns `fwd_out` first and whose bwd returns
/// `bwd_outs` (both right with `f64[]` and `%d`).
fn sin_rule(fwd_out: &str, bwd_outs: &str) -> String {
    let fwd_ty = if fwd_out == "%y" { "f64[]" } else { "f32[]" };
    let bwd_tys = vec!["f64[]"; bwd_outs.split(',').count()].join(", ");
    format!(
        r#"
func @f(%x: f64[]) -> (f64[]) {{
  %y: f64[] = custom_vjp[func=@g, fwd=@g_fwd, bwd=@g_bwd](%x)
  return %y
}}
func @g(%x: f64[]) -> (f64[]) {{
  %y: f64[] = sin(%x)
  return %y
}}
func @g_fwd(%x: f64[]) -> ({fwd_ty}, f64[]) {{
  %y: f64[] = sin(%x)
  %z: f32[] = convert[dtype=f32](%y)
  %c: f64[] = cos(%x)
  return {fwd_out}, %c
}}
func @g_bwd(%c: f64[], %ct: f64[]) -> ({bwd_tys}) {{
  %d: f64[] = mul(%ct, %c)
  return {bwd_outs}
}}
"#
    )
}

#[test]
fn custom_vjp_rules_that_do_not_fit_are_errors() {
    check(&sin_rule("%y", "%d"), &[Array::scalar_f64(0.3)], 2);
    let cases = [
        (sin_rule("%z", "%d"), "fwd @g_fwd returns (f32[], f64[]) but must start with the outputs of @g (f64[])"),
        (sin_rule("%y", "%d, %d"), "bwd @g_bwd returns (f64[], f64[]) but must return (f64[])"),
    ];
    for (text, expected) in cases {
        let m = parse(&text).unwrap();
        let message = vjp(&m, &Wrt::Default).unwrap_err().to_string();
        assert!(message.contains("reverse mode through custom_vjp[func=@g, fwd=@g_fwd, bwd=@g_bwd]"), "{message}");
        assert!(message.contains(expected), "{message}");
    }
}

/// Carries of several kinds: an i32 counter, a carry whose tangent comes only from the
/// xs after the first step (its initial value is a constant), a carry that never gets
/// a tangent, and an inner scan in the body.
#[test]
fn scan_carries_of_every_kind() {
    let text = r#"
func @f(%x: f64[2], %xs: f64[3,2]) -> (f64[2], f64[2], f64[2], f64[3]) {
  %z: f64[2] = constant[value=0.5]()
  %k: i32[] = constant[value=0]()
  %a: f64[2], %b: f64[2], %c: f64[2], %n: i32[], %ys: f64[3] = scan[body=@step, length=3, num_carry=4](%x, %z, %z, %k, %xs)
  return %a, %b, %c, %ys
}
func @step(%a: f64[2], %b: f64[2], %c: f64[2], %n: i32[], %x: f64[2]) -> (f64[2], f64[2], f64[2], i32[], f64[]) {
  %one: i32[] = constant[value=1]()
  %n1: i32[] = add(%n, %one)
  %nf: f64[] = convert[dtype=f64](%n)
  %nb: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%nf)
  %a1: f64[2] = mul(%a, %b)
  %b1: f64[2] = add(%x, %a)
  %c1: f64[2] = add(%c, %nb)
  %inner: f64[2], %rows: f64[2,2] = scan[body=@inner, length=2, num_consts=1, num_carry=1](%x, %a1, %rows_in)
  %y: f64[] = reduce_sum[axes=[0]](%inner)
  return %inner, %b1, %c1, %n1, %y
}
func @inner(%x: f64[2], %a: f64[2], %r: f64[2]) -> (f64[2], f64[2]) {
  %s: f64[2] = sin(%a)
  %m: f64[2] = mul(%s, %x)
  %o: f64[2] = add(%m, %r)
  return %o, %m
}
"#;
    let text = text.replace(
        "  %inner: f64[2], %rows",
        "  %rows_in: f64[2,2] = broadcast_in_dim[shape=[2,2], dims=[1]](%b)\n  %inner: f64[2], %rows",
    );
    check(&text, &[arg(&[2], 1), arg(&[3, 2], 2)], 2);
}

/// Zero-length loops, a checkpoint at least the length (no segments), and gradients
/// with respect to some parameters only.
#[test]
fn degenerate_loops_and_partial_wrt() {
    let zero = SCAN.replace("length=5", "length=0").replace("[5,3]", "[0,3]");
    check(&zero, &[arg(&[3], 1), arg(&[3], 2), arg(&[0, 3], 3)], 2);
    for k in [1, 5, 9] {
        let text = SCAN.replace("num_carry=1]", &format!("num_carry=1, checkpoint={k}]"));
        check(&text, &[arg(&[3], 1), arg(&[3], 2), arg(&[5, 3], 3)], 1);
    }
    let m = module(SCAN);
    for wrt in [vec![0], vec![2], vec![1, 2]] {
        let g = vjp(&m, &Wrt::Params(wrt.clone())).unwrap();
        verify(&g).unwrap_or_else(|e| panic!("{wrt:?}: {e}"));
    }
}

/// Forward over reverse: the Hessian-vector product through a scan, a cond and a
/// bounded while, against central differences of the gradient.
#[test]
fn hvp_through_control_flow() {
    let scan_loss = r#"
func @loss(%w: f64[3], %c0: f64[3], %xs: f64[5,3]) -> (f64[]) {
  %c: f64[3], %ys: f64[5,3] = call[func=@f](%w, %c0, %xs)
  %s: f64[] = reduce_sum[axes=[0,1]](%ys)
  return %s
}
"#;
    let while_loss = r#"
func @loss(%x: f64[2], %s: f64[]) -> (f64[]) {
  %x1: f64[2], %s1: f64[] = call[func=@f](%x, %s)
  %t: f64[] = reduce_sum[axes=[0]](%x1)
  %l: f64[] = mul(%t, %s1)
  return %l
}
"#;
    let cases = [
        (format!("{scan_loss}{SCAN}"), vec![arg(&[3], 1), arg(&[3], 2), arg(&[5, 3], 3)]),
        (format!("{while_loss}{}", while_loop(3, "5")), vec![arg(&[2], 1), Array::scalar_f64(0.7)]),
    ];
    for (text, args) in cases {
        let m = module(&text);
        let h = ferrax_transform::hvp(&m, &Wrt::Default).unwrap();
        verify(&h).unwrap();
        let g = ferrax_transform::grad(&m, &Wrt::Default, false).unwrap();
        check_grads(&g, &args, 1, Modes::Both, Tolerance::default()).unwrap();
    }
    let text = r#"
func @f(%x: f64[3], %w: f64[2]) -> (f64[]) {
  %k: i32[] = constant[value=2]()
  %a: f64[3], %b: f64[] = cond[branches=[@zero, @one, @two]](%k, %x, %w)
  %s: f64[] = reduce_sum[axes=[0]](%a)
  %t: f64[] = add(%s, %b)
  return %t
}
"#;
    let text = format!("{text}{}", &COND[COND.find("func @zero").unwrap()..]);
    let m = module(&text);
    let g = ferrax_transform::grad(&m, &Wrt::Default, false).unwrap();
    check_grads(&g, &[arg(&[3], 1), arg(&[2], 2)], 1, Modes::Both, Tolerance::default()).unwrap();
}
