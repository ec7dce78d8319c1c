//! Loop-invariant hoisting and dce through structured primitives: shared bodies are
//! cloned (and a clone takes back its original's name once that is unused), callees
//! specialised, dead carries of a scan dropped, the grad of a scan computes its
//! invariant `exp(w)` once, dce returns on modules verify refuses (a scan missing
//! operands, a call cycle, a chain of calls past the nesting limit), and on generated
//! modules (and their jvp and vjp, whose loops have consts) `hoist`, `dce` and `opt`
//! each keep results bit-identical, and `opt` reaches a fixed point (no hoist/dce
//! ping-pong).

use ferrax_ir::array::{Array, Data};
use ferrax_ir::prim::ControlOp;
use ferrax_ir::prim::Prim;
use ferrax_ir::testing::{GenConfig, Rng, random_inputs, random_module};
use ferrax_ir::{EvalOptions, Func, Module, eval_entry, parse, print};
use ferrax_transform::{Wrt, dce, grad, hoist, jvp, opt, vjp};

fn module(text: &str) -> Module {
    let m = parse(text).expect("the test module parses");
    ferrax_ir::verify(&m).expect("the test module verifies");
    m
}

/// Outputs agree bit for bit, except that any two NaNs agree.
fn same_bits(got: &[Array], want: &[Array]) -> bool {
    got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| {
            g.shape() == w.shape()
                && match (g.data(), w.data()) {
                    (Data::F32(a), Data::F32(b)) => {
                        a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
                    }
                    (Data::F64(a), Data::F64(b)) => {
                        a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
                    }
                    (a, b) => a == b,
                }
        })
}

fn run(m: &Module, args: &[Array]) -> Vec<Array> {
    eval_entry(m, args, &EvalOptions::default()).unwrap_or_else(|e| panic!("{e}\n{}", print(m)))
}

#[test]
fn hoisting_clones_a_body_shared_by_two_scans() {
    let m = module(
        "func @f(%u: f64[], %v: f64[], %xs: f64[3]) -> (f64[], f64[]) {
  %z: f64[] = constant[value=0.0]()
  %a: f64[] = scan[body=@step, length=3, num_consts=1, num_carry=1](%u, %z, %xs)
  %b: f64[] = scan[body=@step, length=3, num_consts=1, num_carry=1](%v, %z, %xs)
  return %a, %b
}
func @step(%w: f64[], %c: f64[], %x: f64[]) -> (f64[]) {
  %e: f64[] = exp(%w)
  %m: f64[] = mul(%x, %e)
  %n: f64[] = add(%c, %m)
  return %n
}
",
    );
    let hoisted = hoist(&m);
    ferrax_ir::verify(&hoisted).unwrap_or_else(|e| panic!("{e}\n{}", print(&hoisted)));
    let bodies: Vec<String> = hoisted
        .entry()
        .unwrap()
        .eqns
        .iter()
        .filter_map(|e| match &e.prim {
            Prim::Control(ControlOp::Scan(s)) => Some(s.body.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(bodies, ["step_2", "step"], "{}", print(&hoisted));
    for name in ["step", "step_2"] {
        let body = hoisted.func(name).unwrap();
        assert_eq!(body.params.len(), 4, "{}", print(&hoisted));
        assert!(body.eqns.iter().all(|e| e.prim.name() != "exp"), "{}", print(&hoisted));
    }
    let args = [Array::scalar_f64(0.3), Array::scalar_f64(-1.5), Array::from_f64(&[3], vec![1.0, 2.0, 3.0]).unwrap()];
    assert!(same_bits(&run(&hoisted, &args), &run(&m, &args)));
}

#[test]
fn dce_specialises_a_called_func_to_its_used_result() {
    let m = module(
        "func @f(%x: f32[3], %z: f32[3]) -> (f32[3]) {
  %a: f32[3], %b: f32[3] = call[func=@g](%x, %z)
  return %a
}
func @g(%x: f32[3], %z: f32[3]) -> (f32[3], f32[3]) {
  %s: f32[3] = sin(%x)
  %e: f32[3] = exp(%z)
  return %s, %e
}
",
    );
    let pruned = dce(&m);
    ferrax_ir::verify(&pruned).unwrap_or_else(|e| panic!("{e}\n{}", print(&pruned)));
    let g = pruned.func("g").expect("the callee keeps its name (one caller)");
    assert_eq!((g.params.len(), g.results.len(), g.eqns.len()), (1, 1, 1), "{}", print(&pruned));
    assert_eq!(pruned.entry().unwrap().eqns[0].inputs.len(), 1);
}

#[test]
fn dce_drops_funcs_no_longer_referred_to_but_keeps_roots() {
    // @lin is referred to by nobody (a second entry point, as linearize makes): it stays.
    // @h is referred to only by the dead cond: it goes.
    let m = module(
        "func @f(%p: bool[], %x: f32[]) -> (f32[]) {
  %a: f32[] = cond[branches=[@h, @h]](%p, %x)
  return %x
}
func @lin(%x: f32[]) -> (f32[]) {
  %n: f32[] = neg(%x)
  return %n
}
func @h(%x: f32[]) -> (f32[]) {
  return %x
}
",
    );
    let pruned = dce(&m);
    let names: Vec<&String> = pruned.funcs.keys().collect();
    assert_eq!(names, ["f", "lin"]);
}

#[test]
fn dce_drops_a_dead_carry_of_a_scan_without_ys() {
    // Carry %b is never returned and carry %a never reads it: it goes, with the `exp`
    // that computes it, even though the scan has no ys.
    let m = module(
        "func @f(%u: f64[], %v: f64[]) -> (f64[]) {
  %a: f64[], %b: f64[] = scan[body=@step, length=4, num_carry=2](%u, %v)
  return %a
}
func @step(%a: f64[], %b: f64[]) -> (f64[], f64[]) {
  %s: f64[] = sin(%a)
  %e: f64[] = exp(%b)
  return %s, %e
}
",
    );
    let pruned = dce(&m);
    ferrax_ir::verify(&pruned).unwrap_or_else(|e| panic!("{e}\n{}", print(&pruned)));
    let scan = &pruned.entry().unwrap().eqns[0];
    assert_eq!((scan.inputs.len(), scan.outputs.len()), (1, 1), "{}", print(&pruned));
    let step = pruned.func("step").expect("the body keeps its name (one user)");
    assert_eq!((step.params.len(), step.results.len(), step.eqns.len()), (1, 1, 1), "{}", print(&pruned));
    let args = [Array::scalar_f64(0.7), Array::scalar_f64(-2.0)];
    assert!(same_bits(&run(&pruned, &args), &run(&m, &args)));
}

#[test]
fn a_clone_takes_back_the_name_of_a_body_no_longer_used() {
    // Two scans share @step and each keeps a different carry, so each gets its own
    // specialisation (@step_2, @step_3). The unpruned @step is then used by nobody: the
    // first clone takes its name back, and only that one (the second keeps @step_3).
    let m = module(
        "func @f(%u: f64[], %v: f64[]) -> (f64[], f64[]) {
  %a: f64[], %b: f64[] = scan[body=@step, length=4, num_carry=2](%u, %v)
  %c: f64[], %d: f64[] = scan[body=@step, length=4, num_carry=2](%v, %u)
  return %a, %d
}
func @step(%a: f64[], %b: f64[]) -> (f64[], f64[]) {
  %s: f64[] = sin(%a)
  %e: f64[] = exp(%b)
  return %s, %e
}
",
    );
    let pruned = dce(&m);
    ferrax_ir::verify(&pruned).unwrap_or_else(|e| panic!("{e}\n{}", print(&pruned)));
    let names: Vec<&String> = pruned.funcs.keys().collect();
    assert_eq!(names, ["f", "step", "step_3"], "{}", print(&pruned));
    let bodies: Vec<(String, &'static str)> = pruned
        .entry()
        .unwrap()
        .eqns
        .iter()
        .filter_map(|e| match &e.prim {
            Prim::Control(ControlOp::Scan(s)) => {
                let body = pruned.func(&s.body).unwrap();
                Some((s.body.clone(), body.eqns[0].prim.name()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(bodies, [("step".to_string(), "sin"), ("step_3".to_string(), "exp")], "{}", print(&pruned));
    let args = [Array::scalar_f64(0.7), Array::scalar_f64(-2.0)];
    assert!(same_bits(&run(&pruned, &args), &run(&m, &args)));
}

#[test]
fn dce_leaves_a_scan_with_missing_operands_as_it_was() {
    // num_carry=2 with one operand: verify refuses it. dce must not read past the
    // operands (or the body's params) but keep the equation whole, so the same error
    // comes out of verify afterwards.
    let m = parse(
        "func @f(%u: f64[]) -> (f64[]) {
  %a: f64[], %b: f64[] = scan[body=@step, length=2, num_carry=2](%u)
  return %a
}
func @step(%a: f64[]) -> (f64[], f64[]) {
  %s: f64[] = sin(%a)
  return %s, %s
}
",
    )
    .unwrap();
    let before = ferrax_ir::verify(&m).expect_err("too few operands").to_string();
    let pruned = dce(&m);
    let after = ferrax_ir::verify(&pruned).expect_err("still too few operands").to_string();
    assert_eq!(after, before, "{}", print(&pruned));
    let scan = &pruned.entry().unwrap().eqns[0];
    assert_eq!((scan.inputs.len(), scan.outputs.len()), (1, 2), "{}", print(&pruned));
}

/// Runs `f` on a thread with the default 2 MiB stack (the limits tests' convention: a
/// recursion that would overflow in production overflows here).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(2 << 20).spawn(f).expect("a thread").join().expect("no panic")
}

#[test]
fn dce_of_a_call_cycle_stops_at_the_nesting_limit() {
    // verify refuses a Func that calls itself, but dce must still return on one rather
    // than recurse until the stack overflows: its liveness walk gives up past
    // MAX_NESTING and keeps such a call whole.
    let m = parse("func @f(%x: f64[]) -> (f64[]) {\n  %y: f64[] = call[func=@f](%x)\n  return %y\n}\n").unwrap();
    assert!(ferrax_ir::verify(&m).is_err());
    let pruned = on_small_stack(move || dce(&m));
    let entry = pruned.entry().unwrap();
    assert_eq!((entry.eqns.len(), entry.eqns[0].inputs.len()), (1, 1), "{}", print(&pruned));
}

#[test]
fn dce_of_a_call_chain_past_the_nesting_limit_returns() {
    // 5000 Funcs each calling the next: too deep to verify, and dce must stop both its
    // liveness walk and its rewriting at the limit instead of following the chain down.
    let levels = 5000;
    let mut text = String::new();
    for k in 0..levels - 1 {
        text += &format!(
            "func @f{k}(%x: f64[]) -> (f64[]) {{\n  %y: f64[] = call[func=@f{}](%x)\n  return %y\n}}\n",
            k + 1
        );
    }
    text += &format!("func @f{}(%x: f64[]) -> (f64[]) {{\n  %y: f64[] = sin(%x)\n  return %y\n}}\n", levels - 1);
    let m = parse(&text).unwrap();
    assert!(ferrax_ir::verify(&m).is_err());
    let pruned = on_small_stack(move || dce(&m));
    assert_eq!(pruned.entry().unwrap().eqns.len(), 1, "the entry's call is used");
}

/// How many `exp` evaluations one run of `func` makes: a scan body counts `length`
/// times, a bounded while's `max_iters` times, other bodies once.
fn exp_runs(m: &Module, func: &Func) -> usize {
    func.eqns
        .iter()
        .map(|e| {
            let times = match &e.prim {
                Prim::Unary(_) if e.prim.name() == "exp" => return 1,
                Prim::Control(ControlOp::Scan(s)) => s.length,
                Prim::Control(ControlOp::While { max_iters, .. }) => max_iters.unwrap_or(1),
                _ => 1,
            };
            let inner: usize = e.prim.callees().iter().filter_map(|n| m.func(n)).map(|f| exp_runs(m, f)).sum();
            times * inner
        })
        .sum()
}

#[test]
fn the_grad_of_a_scan_computes_its_invariant_exp_once() {
    let m = module(
        "func @f(%w: f64[3], %c: f64[3], %xs: f64[8,3]) -> (f64[]) {
  %out: f64[3] = scan[body=@step, length=8, num_consts=1, num_carry=1](%w, %c, %xs)
  %s: f64[] = reduce_sum[axes=[0]](%out)
  return %s
}
func @step(%w: f64[3], %c: f64[3], %x: f64[3]) -> (f64[3]) {
  %e: f64[] = reduce_sum[axes=[0]](%w)
  %k: f64[] = exp(%e)
  %kb: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%k)
  %m: f64[3] = mul(%c, %kb)
  %n: f64[3] = add(%m, %x)
  %t: f64[3] = tanh(%n)
  return %t
}
",
    );
    let g = grad(&m, &Wrt::Params(vec![0, 1]), false).unwrap();
    let optimised = opt(&g).unwrap();
    let before = exp_runs(&g, g.entry().unwrap());
    let after = exp_runs(&optimised, optimised.entry().unwrap());
    println!("exp evaluations per run of the grad: {before} before opt, {after} after\n{}", print(&optimised));
    assert!(before >= 8, "the grad evaluates exp in its loops: {before}");
    assert_eq!(after, 1, "{}", print(&optimised));
    let xs = Array::from_f64(&[8, 3], (0..24).map(|i| f64::from(i) * 0.1 - 1.0).collect()).unwrap();
    let args = [
        Array::from_f64(&[3], vec![0.1, -0.2, 0.05]).unwrap(),
        Array::from_f64(&[3], vec![1.0, 0.5, -0.5]).unwrap(),
        xs,
    ];
    assert!(same_bits(&run(&optimised, &args), &run(&g, &args)));
}

/// Whether `m` and `other` give the same bits on `args` (both failing counts as same).
fn agree(m: &Module, other: &Module, args: &[Array]) -> Result<(), String> {
    let options = EvalOptions { fuel: Some(100_000), ..EvalOptions::default() };
    let Ok(want) = eval_entry(m, args, &options) else { return Ok(()) };
    let got = eval_entry(other, args, &options).map_err(|e| format!("fails: {e}"))?;
    if same_bits(&got, &want) { Ok(()) } else { Err(format!("{got:?} vs {want:?}")) }
}

#[test]
fn hoist_dce_and_opt_keep_results_on_generated_modules_and_their_derivatives() {
    let config = GenConfig::from_env();
    let (mut variants, mut hoisted, mut pruned_loops) = (0, 0, 0);
    for seed in 0..400u64 {
        let m = random_module(seed, &config);
        let wrt = Wrt::Default;
        for variant in [Some(m.clone()), jvp(&m, &wrt).ok(), vjp(&m, &wrt).ok()].into_iter().flatten() {
            let entry = variant.entry().unwrap();
            let mut rng = Rng::new(seed ^ 0xD0E);
            let args = random_inputs(entry, &mut rng, true);
            let h = hoist(&variant);
            let d = dce(&variant);
            let o = opt(&variant).unwrap_or_else(|e| panic!("seed {seed}: opt fails: {e}\n{}", print(&variant)));
            for (pass, out) in [("hoist", &h), ("dce", &d), ("opt", &o)] {
                ferrax_ir::verify(out).unwrap_or_else(|e| panic!("seed {seed}: {pass}: {e}\n{}", print(out)));
                agree(&variant, out, &args).unwrap_or_else(|e| {
                    panic!("seed {seed}: {pass} changes results: {e}\n{}\n{}", print(&variant), print(out))
                });
            }
            let again = opt(&o).unwrap_or_else(|e| panic!("seed {seed}: opt of opt fails: {e}"));
            assert_eq!(print(&again), print(&o), "seed {seed}: opt is not at a fixed point");
            variants += 1;
            hoisted += usize::from(print(&h) != print(&variant));
            let loop_outputs = |m: &Module| -> usize {
                m.funcs
                    .values()
                    .flat_map(|f| &f.eqns)
                    .filter(|e| {
                        matches!(
                            e.prim,
                            Prim::Control(ControlOp::Scan(_))
                                | Prim::Control(ControlOp::While { .. })
                                | Prim::Control(ControlOp::Cond { .. })
                        )
                    })
                    .map(|e| e.outputs.len())
                    .sum()
            };
            pruned_loops += usize::from(loop_outputs(&d) < loop_outputs(&variant));
        }
    }
    println!("{variants} modules; hoist changed {hoisted}; dce pruned structured outputs in {pruned_loops}");
    assert!(variants > 800, "only {variants} modules");
    assert!(hoisted >= 20, "hoisting ran on only {hoisted} generated modules");
    assert!(pruned_loops >= 20, "dce pruned structured outputs in only {pruned_loops} generated modules");
}
