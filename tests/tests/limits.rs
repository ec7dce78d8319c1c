//! The limits, probed one by one in the interpreter, the passes
//! and the JIT: nesting depth (run on threads with the default 2 MiB stack, so a
//! recursion that would overflow in production overflows here), the module-size cap
//! of growing passes, the allocation budget checked before allocating, fuel for
//! loops, argument checks on every compiled call, and clamped indices in `gather`,
//! `dynamic_slice`, `dynamic_update_slice` and `scatter_add` in both backends.

use crate::support::{no_panic, same_bits};
use ferrax_ir::{Array, EvalOptions, MAX_NESTING, Module, eval_entry, parse, verify};
use ferrax_jit::{ArgRef, JitOptions, OutRef, compile};
use ferrax_transform::{Wrt, grad, inline_calls, jvp, opt, vjp, vmap};

/// Runs `f` on a thread with the default 2 MiB stack and returns its result.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .unwrap_or_else(|_| panic!("the thread panicked"))
}

/// `levels` Funcs, each running the next inside a structured primitive (call, cond,
/// while with max_iters, scan, remat in turn); the innermost computes `sin`.
fn nested(levels: usize) -> String {
    let mut text = String::new();
    for k in 0..levels - 1 {
        let next = k + 1;
        let body = match k % 5 {
            0 => format!("  %y: f64[] = call[func=@f{next}](%x)\n"),
            1 => format!(
                "  %p: bool[] = constant[value=true]()\n  %y: f64[] = cond[branches=[@f{next}, @f{next}]](%p, %x)\n"
            ),
            2 => format!(
                "  %z: i32[] = constant[value=0]()\n  %y: f64[], %i: i32[] = while[cond=@c, body=@w{k}, max_iters=1](%x, %z)\n"
            ),
            3 => format!(
                "  %xs: f64[1] = broadcast_in_dim[shape=[1], dims=[]](%x)\n  %y: f64[], %ys: f64[1] = scan[body=@s{k}, length=1, num_consts=0, num_carry=1](%x, %xs)\n"
            ),
            _ => format!("  %y: f64[] = remat[func=@f{next}, policy=\"nothing\"](%x)\n"),
        };
        text += &format!("func @f{k}(%x: f64[]) -> (f64[]) {{\n{body}  return %y\n}}\n");
        if k % 5 == 2 {
            text += &format!(
                "func @w{k}(%x: f64[], %i: i32[]) -> (f64[], i32[]) {{\n  %y: f64[] = call[func=@f{next}](%x)\n  %one: i32[] = constant[value=1]()\n  %j: i32[] = add(%i, %one)\n  return %y, %j\n}}\n"
            );
        }
        if k % 5 == 3 {
            text += &format!(
                "func @s{k}(%c: f64[], %x: f64[]) -> (f64[], f64[]) {{\n  %y: f64[] = call[func=@f{next}](%c)\n  return %y, %x\n}}\n"
            );
        }
    }
    text += "func @c(%x: f64[], %i: i32[]) -> (bool[]) {\n  %two: i32[] = constant[value=2]()\n  %p: bool[] = lt(%i, %two)\n  return %p\n}\n";
    text += &format!("func @f{}(%x: f64[]) -> (f64[]) {{\n  %y: f64[] = sin(%x)\n  return %y\n}}\n", levels - 1);
    text
}

/// The deepest nesting the verifier accepts, found by bisection, and what is done with it.
#[test]
fn deep_nesting_is_an_error_or_works_never_a_stack_overflow() {
    on_small_stack(|| {
        // Past the limit: every entry point says so.
        for levels in [MAX_NESTING + 40, 5000] {
            let text = nested(levels);
            let module = parse(&text).expect("nesting of Funcs is flat text");
            let err = verify(&module).expect_err("too deep").to_string();
            assert!(err.contains("nest"), "{err}");
            // Passes and backends given the unverified module fail cleanly too.
            let _ = jvp(&module, &Wrt::Default);
            let _ = vjp(&module, &Wrt::Default);
            let _ = vmap(&module, &[Some(0)], &[0], 2);
            let _ = opt(&module);
            let _ = inline_calls(&module);
            let _ = ferrax_fuse::fuse(&module);
            let _ = eval_entry(&module, &[Array::scalar_f64(0.5)], &EvalOptions::default());
            let _ = compile(&module, &JitOptions::default());
        }
    });
}

#[test]
fn nesting_at_the_limit_runs_everywhere_on_a_small_stack() {
    on_small_stack(|| {
        // The deepest module the verifier accepts.
        let (mut lo, mut hi) = (2, MAX_NESTING + 40);
        while lo + 1 < hi {
            let mid = (lo + hi) / 2;
            if verify(&parse(&nested(mid)).unwrap()).is_ok() { lo = mid } else { hi = mid }
        }
        assert!(lo >= MAX_NESTING / 2, "only {lo} levels verify");
        let module = parse(&nested(lo)).unwrap();
        let x = [Array::scalar_f64(0.5)];
        let want = eval_entry(&module, &x, &EvalOptions::default()).expect("runs");
        assert_eq!(want[0].as_f64().unwrap()[0], 0.5f64.sin());
        let exe = compile(&module, &JitOptions::default()).expect("compiles");
        same_bits(&exe.call(&x).expect("runs"), &want).expect("same");
        for (what, t) in [
            ("jvp", jvp(&module, &Wrt::Default)),
            ("grad", grad(&module, &Wrt::Default, false)),
            ("vmap", vmap(&module, &[Some(0)], &[0], 2)),
            ("opt", opt(&module)),
            ("inline", inline_calls(&module)),
            ("fuse", ferrax_fuse::fuse(&module)),
        ] {
            // A transform may add a level (vjp's backward bodies); then it must say so.
            match t {
                Ok(t) => verify(&t).unwrap_or_else(|e| panic!("{what}: {e}")),
                Err(e) => assert!(e.to_string().contains("nest"), "{what}: {e}"),
            }
        }
    });
}

/// Deeply nested brackets in the text (a constant's value, a type) are an error.
#[test]
fn deeply_nested_text_is_an_error() {
    on_small_stack(|| {
        for n in [300, 100_000] {
            let open = "[".repeat(n);
            let close = "]".repeat(n);
            let text =
                format!("func @f() -> (f32[]) {{\n  %y: f32[] = constant[value={open}1.0{close}]()\n  return %y\n}}\n");
            assert!(parse(&text).is_err());
            let parens = format!("func @f() -> ({}f32[]{}) {{\n  return\n}}\n", "(".repeat(n), ")".repeat(n));
            assert!(parse(&parens).is_err());
        }
    });
}

/// `@g0(x) = sin x`, `@gk(x) = g(k-1)(g(k-1)(x))`: inlining doubles at every level.
fn doubling(levels: usize) -> Module {
    let mut text = String::new();
    for k in (1..=levels).rev() {
        text += &format!(
            "func @g{k}(%x: f64[2]) -> (f64[2]) {{\n  %a: f64[2] = call[func=@g{}](%x)\n  %b: f64[2] = call[func=@g{}](%a)\n  return %b\n}}\n",
            k - 1,
            k - 1
        );
    }
    text += "func @g0(%x: f64[2]) -> (f64[2]) {\n  %y: f64[2] = sin(%x)\n  return %y\n}\n";
    parse(&text).unwrap()
}

/// A scan of length 2^21 around a body of a few equations (unrolling it would pass the cap).
fn long_scan() -> Module {
    parse(
        "func @f(%x: f64[2]) -> (f64[2]) {
  %xs: f64[2097152] = iota[dtype=f64, shape=[2097152], dim=0]()
  %y: f64[2], %ys: f64[2097152] = scan[body=@b, length=2097152, num_consts=0, num_carry=1](%x, %xs)
  return %y
}
func @b(%c: f64[2], %x: f64[]) -> (f64[2], f64[]) {
  %s: f64[2] = sin(%c)
  return %s, %x
}
",
    )
    .unwrap()
}

#[test]
fn growing_passes_stop_at_the_module_size_cap() {
    on_small_stack(|| {
        let big = doubling(21);
        let results = [
            ("inline", inline_calls(&big)),
            ("vjp", vjp(&big, &Wrt::Default)),
            ("jvp then inline", jvp(&big, &Wrt::Default).and_then(|m| inline_calls(&m))),
            ("vmap then inline", vmap(&big, &[Some(0)], &[0], 3).and_then(|m| inline_calls(&m))),
            ("opt", opt(&big)),
            ("fuse", ferrax_fuse::fuse(&big)),
        ];
        for (what, r) in results {
            match r {
                // Passes that keep the calls stay small.
                Ok(m) => {
                    let n: usize = m.funcs.values().map(|f| f.eqns.len()).sum();
                    assert!(n <= 1_000_000, "{what}: {n} equations");
                }
                Err(e) => assert!(e.to_string().contains("1000000 equations"), "{what}: {e}"),
            }
        }
        for (what, r) in [
            ("opt of a long scan", opt(&long_scan())),
            ("grad of a long scan", grad(&long_scan(), &Wrt::Default, false)),
        ] {
            if let Ok(m) = r {
                let n: usize = m.funcs.values().map(|f| f.eqns.len()).sum();
                assert!(n <= 1_000_000, "{what}: {n} equations");
            }
        }
    });
}

#[test]
fn the_allocation_budget_is_checked_before_allocating() {
    // Intermediates far past any memory: an error from both backends, not an abort.
    let huge = parse(
        "func @f(%x: f32[]) -> (f32[]) {
  %b: f32[65536,65536,16] = broadcast_in_dim[shape=[65536,65536,16], dims=[]](%x)
  %e: f32[65536,65536,16] = exp(%b)
  %c: f32[65536,65536,16] = cumsum[axis=2](%e)
  %s: f32[] = reduce_sum[axes=[0,1,2]](%c)
  return %s
}
",
    )
    .unwrap();
    let x = [Array::scalar_f32(1.0)];
    let small = EvalOptions { budget: ferrax_ir::array::Budget::new(1 << 20), fuel: None, ..Default::default() };
    let err = eval_entry(&huge, &x, &small).expect_err("over budget").to_string();
    assert!(err.contains("budget"), "{err}");
    let options = JitOptions { max_bytes: Some(1 << 20), ..JitOptions::default() };
    match compile(&huge, &options) {
        Ok(exe) => {
            let err = exe.call(&x).expect_err("over budget").to_string();
            assert!(err.contains("budget"), "{err}");
        }
        Err(e) => assert!(e.to_string().contains("budget") || e.to_string().contains("large"), "{e}"),
    }
    // Results and params too large for memory: compile or call errors.
    let big_io = parse(
        "func @f(%x: f32[]) -> (f32[4000000000]) {
  %b: f32[4000000000] = broadcast_in_dim[shape=[4000000000], dims=[]](%x)
  return %b
}
",
    )
    .unwrap();
    if let Ok(exe) = compile(&big_io, &options) {
        assert!(exe.call(&x).is_err());
    }
    assert!(eval_entry(&big_io, &x, &small).is_err());
    // An opaque op (dot_general, random_bits, sort-like cumsum) past the budget.
    let opaque = parse(
        "func @f(%x: f32[2048,2048]) -> (f32[2048,2048]) {
  %d: f32[2048,2048] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %x)
  return %d
}
",
    )
    .unwrap();
    let x = [Array::from_f32(&[2048, 2048], vec![0.0; 2048 * 2048]).unwrap()];
    let tight = JitOptions { max_bytes: Some(20 << 20), ..JitOptions::default() };
    let err = compile(&opaque, &tight).and_then(|e| e.call(&x)).expect_err("args + result are 32 MiB").to_string();
    assert!(err.contains("budget"), "{err}");
}

#[test]
fn fuel_stops_an_endless_loop_in_both_backends() {
    let forever = parse(
        "func @f(%x: f32[]) -> (f32[]) {
  %y: f32[] = while[cond=@c, body=@b](%x)
  return %y
}
func @c(%x: f32[]) -> (bool[]) {
  %t: bool[] = constant[value=true]()
  return %t
}
func @b(%x: f32[]) -> (f32[]) {
  %y: f32[] = sin(%x)
  return %y
}
",
    )
    .unwrap();
    let x = [Array::scalar_f32(1.0)];
    let err = eval_entry(&forever, &x, &EvalOptions { fuel: Some(1000), ..EvalOptions::default() }).unwrap_err();
    assert!(err.to_string().contains("fuel"), "{err}");
    let exe = compile(&forever, &JitOptions { fuel: Some(1000), ..JitOptions::default() }).unwrap();
    let err = exe.call(&x).unwrap_err();
    assert!(err.to_string().contains("fuel"), "{err}");
    // The fuel is per call: a second call fails the same way, and a vmapped loop too.
    assert!(exe.call(&x).unwrap_err().to_string().contains("fuel"));
    let batched = vmap(&forever, &[Some(0)], &[0], 4).unwrap();
    let exe = compile(&batched, &JitOptions { fuel: Some(1000), ..JitOptions::default() }).unwrap();
    let xs = [Array::from_f32(&[4], vec![1.0; 4]).unwrap()];
    assert!(exe.call(&xs).unwrap_err().to_string().contains("fuel"));
}

#[test]
fn every_compiled_call_checks_its_arguments() {
    let m = parse(
        "func @f(%x: f32[2,3], %n: i32[]) -> (f32[3]) {\n  %s: f32[3] = reduce_sum[axes=[0]](%x)\n  return %s\n}\n",
    )
    .unwrap();
    let exe = compile(&m, &JitOptions::default()).unwrap();
    let x = Array::from_f32(&[2, 3], vec![1.0; 6]).unwrap();
    let n = Array::scalar_i32(1);
    assert!(exe.call(&[x.clone(), n.clone()]).is_ok());
    for (args, says) in [
        (vec![x.clone()], "argument"),
        (vec![x.clone(), n.clone(), n.clone()], "argument"),
        (vec![Array::from_f32(&[3, 2], vec![1.0; 6]).unwrap(), n.clone()], "argument 0"),
        (vec![Array::from_f64(&[2, 3], vec![1.0; 6]).unwrap(), n.clone()], "argument 0"),
        (vec![x.clone(), Array::scalar_f32(1.0)], "argument 1"),
        (vec![x.clone(), Array::from_i32(&[1], vec![1]).unwrap()], "argument 1"),
    ] {
        let err = no_panic(|| exe.call(&args)).expect("no panic").expect_err("bad arguments").to_string();
        assert!(err.contains(says), "{err}");
    }
    let mut out = [0f32; 3];
    let ones = [1f32; 6];
    assert!(exe.call_raw(&[ArgRef::F32(&ones), ArgRef::I32(&[1])], &mut [OutRef::F32(&mut out)]).is_ok());
    assert_eq!(out, [2.0; 3]);
    let bad: [(Vec<ArgRef<'_>>, usize); 4] = [
        (vec![ArgRef::F32(&ones[..5]), ArgRef::I32(&[1])], 1),
        (vec![ArgRef::F32(&ones), ArgRef::F32(&[1.0])], 1),
        (vec![ArgRef::F32(&ones)], 1),
        (vec![ArgRef::F32(&ones), ArgRef::I32(&[1])], 0),
    ];
    for (args, n_outs) in bad {
        let mut small = [0f32; 2];
        let mut outs: Vec<OutRef<'_>> = if n_outs == 1 { vec![OutRef::F32(&mut out)] } else { vec![] };
        assert!(exe.call_raw(&args, &mut outs).is_err());
        assert!(exe.call_raw(&[ArgRef::F32(&ones), ArgRef::I32(&[1])], &mut [OutRef::F32(&mut small)]).is_err());
    }
}

/// Out-of-range indices (negative, past the end, i32::MIN/MAX) are clamped the same
/// way by the interpreter and the JIT, and as the spec says.
#[test]
fn indices_are_clamped_in_both_backends() {
    let m = parse(
        "func @f(%x: f32[5,3], %i: i32[], %j: i32[], %idx: i32[4]) -> (f32[2,2], f32[5,3], f32[4,3], f32[5,3]) {
  %d: f32[2,2] = dynamic_slice[sizes=[2,2]](%x, %i, %j)
  %u: f32[2,2] = constant[value=-1.0]()
  %w: f32[5,3] = dynamic_update_slice(%x, %u, %i, %j)
  %g: f32[4,3] = gather[axis=0, batch_dims=0](%x, %idx)
  %s: f32[5,3] = scatter_add[axis=0, batch_dims=0](%x, %idx, %g)
  return %d, %w, %g, %s
}
",
    )
    .unwrap();
    verify(&m).unwrap();
    let exe = compile(&m, &JitOptions::default()).unwrap();
    let x = Array::from_f32(&[5, 3], (0..15).map(|v| v as f32).collect()).unwrap();
    for (i, j) in [(-1, -1), (4, 2), (i32::MAX, i32::MIN), (i32::MIN, i32::MAX), (3, 1)] {
        let idx = Array::from_i32(&[4], vec![i, j, -7, 9]).unwrap();
        let args = [x.clone(), Array::scalar_i32(i), Array::scalar_i32(j), idx];
        let want = eval_entry(&m, &args, &EvalOptions::default()).unwrap();
        let got = exe.call(&args).unwrap();
        same_bits(&got, &want).unwrap_or_else(|e| panic!("({i}, {j}): {e}"));
        // dynamic_slice: the start is clamped into [0, 5-2] x [0, 3-2].
        let (ci, cj) = (i.clamp(0, 3) as usize, j.clamp(0, 1) as usize);
        let d = want[0].as_f32().unwrap();
        assert_eq!(
            d,
            [(ci * 3 + cj) as f32, (ci * 3 + cj + 1) as f32, (ci * 3 + cj + 3) as f32, (ci * 3 + cj + 4) as f32]
        );
        // gather: each index is clamped into [0, 4].
        let g = want[2].as_f32().unwrap();
        for (k, &raw) in [i, j, -7, 9].iter().enumerate() {
            let row = raw.clamp(0, 4) as usize;
            assert_eq!(&g[k * 3..k * 3 + 3], &[row as f32 * 3.0, row as f32 * 3.0 + 1.0, row as f32 * 3.0 + 2.0]);
        }
    }
}

/// A chain where every value has two consumers: `a_{i+1} = sin(a_i)`,
/// `t_{i+1} = add(t_i, a_i)` (`steps` steps, 2·steps + 1 equations).
fn two_consumer_chain(steps: usize) -> Module {
    let mut text = String::from("func @f(%a0: f32[8]) -> (f32[8]) {\n  %t0: f32[8] = sin(%a0)\n");
    for i in 0..steps {
        text += &format!("  %a{}: f32[8] = sin(%a{i})\n  %t{}: f32[8] = add(%t{i}, %a{i})\n", i + 1, i + 1);
    }
    text += &format!("  return %t{steps}\n}}\n");
    parse(&text).expect("the chain parses")
}

/// Fusion's planner does work linear in the program: 4× the equations, at most ~4×
/// the candidates judged and graph nodes and edges visited. (Its cycle check searched
/// everything a group reaches, which on this chain is the whole rest of the program:
/// 10,000 steps took 1.7 s, 30,000 took 27 s, and the JIT timed out.)
#[test]
fn the_fusion_planner_is_linear_in_the_program() {
    let (small, large) = (two_consumer_chain(1500), two_consumer_chain(6000));
    let w_small = ferrax_fuse::planner_work(&small).expect("fuses");
    let w_large = ferrax_fuse::planner_work(&large).expect("fuses");
    assert!(w_small >= 3000, "the planner judges every equation at least once: {w_small}");
    let ratio = w_large as f64 / w_small as f64;
    assert!(ratio < 4.6, "4x the equations, {ratio:.2}x the planner's work ({w_small} -> {w_large})");
    // The fused chain still computes the same thing.
    let fused = ferrax_fuse::fuse(&small).expect("fuses");
    let x = Array::from_f32(&[8], (0..8).map(|i| i as f32 / 8.0).collect()).expect("an array");
    let want = eval_entry(&small, std::slice::from_ref(&x), &EvalOptions::default()).expect("runs");
    let got = eval_entry(&fused, &[x], &EvalOptions::default()).expect("fused runs");
    same_bits(&got, &want).expect("the fused chain agrees bit for bit");
}

/// `n` scalar outputs, each `sin(x · k)` of one scalar parameter.
fn many_outputs(n: usize) -> Module {
    let mut text = String::from("func @f(%x: f32[]) -> (");
    text += &vec!["f32[]"; n].join(", ");
    text += ") {\n";
    for k in 0..n {
        text += &format!(
            "  %c{k}: f32[] = constant[value={k}.0]()\n  %m{k}: f32[] = mul(%x, %c{k})\n  %y{k}: f32[] = sin(%m{k})\n"
        );
    }
    text += &format!("  return {}\n}}\n", (0..n).map(|k| format!("%y{k}")).collect::<Vec<_>>().join(", "));
    parse(&text).expect("parses")
}

/// Jacobians grow as outputs × the size of the vjp: 3,000 scalar outputs took 19 s and
/// then aborted on a failed allocation. They are refused before building, naming the
/// estimate and the limit; small ones still build.
#[test]
fn jacobians_past_the_limits_are_refused_before_building() {
    let big = many_outputs(3000);
    let start = std::time::Instant::now();
    for (what, r) in [
        ("jacrev", ferrax_transform::jacrev(&big, &Wrt::Default)),
        ("hessian", ferrax_transform::hessian(&big, &Wrt::Default)),
    ] {
        let e = r.expect_err(what).to_string();
        assert!(e.contains("past the limit of 1000000 equations") && e.contains("3000 copies"), "{what}: {e}");
        assert!(!e.contains('\n'), "{what}: one line: {e}");
    }
    // jacfwd over 3,000 scalar parameters is the same quadratic the other way round.
    let mut text = String::from("func @g(");
    text += &(0..3000).map(|k| format!("%x{k}: f32[]")).collect::<Vec<_>>().join(", ");
    text += ") -> (f32[]) {\n  %s0: f32[] = sin(%x0)\n";
    for k in 1..3000 {
        text += &format!("  %s{k}: f32[] = add(%s{}, %x{k})\n", k - 1);
    }
    text += "  return %s2999\n}\n";
    let wide = parse(&text).expect("parses");
    let all = Wrt::Params((0..3000).collect());
    let e = ferrax_transform::jacfwd(&wide, &all).expect_err("jacfwd").to_string();
    assert!(e.contains("past the limit of 1000000 equations"), "jacfwd: {e}");
    // Bytes: the Jacobian of f32[200000] -> f32[200000] takes 160 GB.
    let square = parse("func @h(%x: f32[200000]) -> (f32[200000]) {\n  %y: f32[200000] = sin(%x)\n  return %y\n}\n")
        .expect("parses");
    for (what, r) in [
        ("jacfwd", ferrax_transform::jacfwd(&square, &Wrt::Default)),
        ("jacrev", ferrax_transform::jacrev(&square, &Wrt::Default)),
    ] {
        let e = r.expect_err(what).to_string();
        assert!(e.contains("over the allocation budget of"), "{what}: {e}");
    }
    assert!(start.elapsed().as_secs() < 20, "refused quickly: {:?}", start.elapsed());
    // Below the limits they build and agree with each other.
    let small = many_outputs(20);
    let x = [Array::scalar_f32(0.3)];
    let rev = ferrax_transform::jacrev(&small, &Wrt::Default).expect("jacrev of 20 outputs");
    let fwd = ferrax_transform::jacfwd(&small, &Wrt::Default).expect("jacfwd of 20 outputs");
    let (r, f) = (
        eval_entry(&rev, &x, &EvalOptions::default()).expect("runs"),
        eval_entry(&fwd, &x, &EvalOptions::default()).expect("runs"),
    );
    assert_eq!(r.len(), 20);
    for (k, (a, b)) in r.iter().zip(&f).enumerate() {
        let want = (k as f32) * (0.3 * k as f32).cos();
        for v in [a, b] {
            let got = v.to_f64_vec()[0] as f32;
            assert!((got - want).abs() <= 1e-4 * want.abs().max(1.0), "output {k}: {got} vs {want}");
        }
    }
}

/// A `dot_general` with an empty operand whose other axes are huge (a fuzz find: the
/// JIT's GEMM plan listed the offsets of 4·10^9 rows of no elements and the allocation
/// aborted the process): the interpreter and the JIT give the empty or all-zero result.
#[test]
fn products_of_empty_operands_with_huge_axes_are_zero_or_empty() {
    let cases = [
        ("f32[2,0,4000000000]", "f32[3]", "f32[2,0,4000000000,3]", "[]", "[]"),
        ("f32[0,4000000000]", "f32[4000000000,0]", "f32[0,0]", "[1]", "[0]"),
        ("f32[3,0]", "f32[0,2]", "f32[3,2]", "[1]", "[0]"),
    ];
    for (a, b, out, lc, rc) in cases {
        let text = format!(
            "func @f(%a: {a}, %b: {b}) -> ({out}) {{\n  %c: {out} = dot_general[lhs_contract={lc}, \
             rhs_contract={rc}](%a, %b)\n  return %c\n}}\n"
        );
        let m = parse(&text).unwrap();
        verify(&m).unwrap();
        let ty = |s: &str| ferrax_ir::parse(&format!("func @t(%x: {s}) -> ({s}) {{\n  return %x\n}}\n")).unwrap();
        let zeros = |s: &str| {
            let t = ty(s).entry().unwrap().param_types()[0].clone();
            Array::zeros(t.dtype, &t.shape, &Default::default()).unwrap()
        };
        let args = [zeros(a), zeros(b)];
        let want = eval_entry(&m, &args, &EvalOptions::default()).unwrap();
        assert!(want[0].to_f64_vec().iter().all(|&x| x == 0.0), "{text}");
        let got = compile(&m, &JitOptions::default()).unwrap().call(&args).unwrap();
        same_bits(&got, &want).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

/// A contraction over more indices than the GEMM plan lists (a fuzz find: compiling
/// allocated 32 GB of offsets for a declared 2^32-element axis group) is a compile
/// error naming it, not an abort.
#[test]
fn a_gemm_too_large_to_plan_is_a_compile_error() {
    let text = "func @f(%a: f32[1,300000000], %b: f32[300000000,1]) -> (f32[1,1]) {
  %c: f32[1,1] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  return %c
}
";
    let m = parse(text).unwrap();
    let err = compile(&m, &JitOptions::default()).err().expect("refused").to_string();
    assert!(err.contains("too many to plan") && err.contains("f32[1,300000000]"), "{err}");
}
