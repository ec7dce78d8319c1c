//! The public API: argument checks, the zero-copy path, the cache, the budget,
//! concurrency, control flow and every `dot_general` layout, against the interpreter.

use ferrax_ir::{Array, EvalOptions, Module};
use ferrax_jit::{ArgRef, JitCache, JitOptions, Miss, OutRef, compile, policy};
use std::sync::Arc;

fn module(text: &str) -> Module {
    ferrax_ir::parse(text).unwrap()
}

fn f32s(shape: &[usize], seed: u32) -> Array {
    let n: usize = shape.iter().product();
    Array::from_f32(shape, (0..n).map(|i| ((i as u32 * 7 + seed * 13) % 17) as f32 * 0.25 - 2.0).collect()).unwrap()
}

const AXPY: &str = "func @axpy(%a: f32[], %x: f32[3], %y: f32[3]) -> (f32[3]) {
  %b: f32[3] = broadcast_in_dim[shape=[3], dims=[]](%a)
  %m: f32[3] = mul(%b, %x)
  %r: f32[3] = add(%m, %y)
  return %r
}";

#[test]
fn a_call_checks_arity_dtypes_and_shapes() {
    let exe = compile(&module(AXPY), &JitOptions::default()).unwrap();
    let good = [Array::scalar_f32(2.0), f32s(&[3], 1), f32s(&[3], 2)];
    let out = exe.call(&good).unwrap();
    let want = ferrax_ir::eval_entry(&module(AXPY), &good, &EvalOptions::default()).unwrap();
    policy::agree(&want, &out, true).unwrap();

    let e = exe.call(&good[..2]).unwrap_err().to_string();
    assert!(e.contains("takes 3 arguments") && e.contains("got 2"), "{e}");
    let e = exe.call(&[Array::scalar_f64(2.0), f32s(&[3], 1), f32s(&[3], 2)]).unwrap_err().to_string();
    assert!(e.contains("argument 0 of @axpy: expected f32[], got f64[]"), "{e}");
    let e = exe.call(&[Array::scalar_f32(2.0), f32s(&[4], 1), f32s(&[3], 2)]).unwrap_err().to_string();
    assert!(e.contains("argument 1 of @axpy: expected f32[3], got f32[4]"), "{e}");
}

#[test]
fn the_zero_copy_path_writes_into_the_callers_buffers() {
    let exe = compile(&module(AXPY), &JitOptions::default()).unwrap();
    let (a, x, y) = ([2.0f32], [1.0f32, 2.0, 3.0], [10.0f32, 20.0, 30.0]);
    let mut out = [0.0f32; 3];
    exe.call_raw(&[ArgRef::F32(&a), ArgRef::F32(&x), ArgRef::F32(&y)], &mut [OutRef::F32(&mut out)]).unwrap();
    assert_eq!(out, [12.0, 24.0, 36.0]);
    let e = exe.call_raw(&[ArgRef::F32(&a), ArgRef::I32(&[1, 2, 3]), ArgRef::F32(&y)], &mut [OutRef::F32(&mut out)]);
    assert!(e.unwrap_err().to_string().contains("argument 1 of @axpy: expected f32[3], got 3 i32 elements"));
    let mut short = [0.0f32; 2];
    let e = exe.call_raw(&[ArgRef::F32(&a), ArgRef::F32(&x), ArgRef::F32(&y)], &mut [OutRef::F32(&mut short)]);
    assert!(e.unwrap_err().to_string().contains("result 0 of @axpy"));
}

#[test]
fn the_cache_compiles_once_per_types_and_says_why_it_missed() {
    let cache = JitCache::new(2, JitOptions::default());
    let m = module(AXPY);
    let first = cache.get(&m).unwrap();
    let second = cache.get(&m).unwrap();
    assert!(Arc::ptr_eq(&first, &second), "a second lookup with the same types compiles nothing");
    let wider = module(&AXPY.replace("f32[3]", "f32[5]").replace("shape=[3]", "shape=[5]"));
    cache.get(&wider).unwrap();
    let other = module(&AXPY.replace("add(%m, %y)", "sub(%m, %y)"));
    cache.get(&other).unwrap();
    let stats = cache.stats();
    assert_eq!(stats.hits, 1);
    assert_eq!(stats.evictions, 1);
    assert_eq!(stats.misses.len(), 3);
    assert_eq!(stats.misses[0], Miss::NewModule);
    assert_eq!(stats.misses[1].to_string(), "argument 1 changed from f32[3] to f32[5]");
    assert_eq!(stats.misses[2].to_string(), "argument 1 changed from f32[5] to f32[3]");
    assert_eq!(cache.len(), 2);
}

#[test]
fn eight_threads_match_sequential_calls() {
    let text = "func @f(%x: f32[64,32], %w: f32[32,16]) -> (f32[64,16]) {
  %y: f32[64,16] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w)
  %t: f32[64,16] = tanh(%y)
  return %t
}";
    let exe = Arc::new(compile(&module(text), &JitOptions::default()).unwrap());
    let inputs: Vec<Vec<Array>> = (0..8).map(|s| vec![f32s(&[64, 32], s), f32s(&[32, 16], s + 100)]).collect();
    let sequential: Vec<Vec<Array>> = inputs.iter().map(|a| exe.call(a).unwrap()).collect();
    let threads: Vec<_> = inputs
        .into_iter()
        .map(|a| {
            let exe = exe.clone();
            std::thread::spawn(move || (0..20).map(|_| exe.call(&a).unwrap()).collect::<Vec<_>>())
        })
        .collect();
    for (t, want) in threads.into_iter().zip(&sequential) {
        for got in t.join().unwrap() {
            policy::agree(want, &got, true).unwrap();
        }
    }
}

#[test]
fn the_budget_is_an_error_not_an_abort() {
    let text = "func @f(%x: f32[1000]) -> (f32[1000]) {
  %y: f32[1000] = exp(%x)
  %z: f32[1000] = mul(%y, %y)
  return %z
}";
    let exe = compile(&module(text), &JitOptions { max_bytes: Some(7000), ..JitOptions::default() }).unwrap();
    let e = exe.call(&[f32s(&[1000], 0)]).unwrap_err().to_string();
    assert!(e.contains("the workspace of @f"), "{e}");
    let roomy = compile(&module(text), &JitOptions { max_bytes: Some(1 << 20), ..JitOptions::default() }).unwrap();
    assert!(roomy.call(&[f32s(&[1000], 0)]).is_ok());
}

#[test]
fn dead_buffers_are_reused() {
    // Four f32[1024] temporaries in a chain: at most two are live at once.
    let text = "func @f(%x: f32[1024]) -> (f32[1024]) {
  %a: f32[1024] = neg(%x)
  %b: f32[1024] = abs(%a)
  %c: f32[1024] = neg(%b)
  %d: f32[1024] = abs(%c)
  %e: f32[1024] = neg(%d)
  return %e
}";
    let exe = compile(&module(text), &JitOptions::default()).unwrap();
    assert!(exe.workspace_bytes() <= 3 * 4096, "workspace {} bytes", exe.workspace_bytes());
}

fn both(text: &str, args: &[Array]) {
    let m = module(text);
    let want = ferrax_ir::eval_entry(&m, args, &EvalOptions::default()).unwrap();
    let got = compile(&m, &JitOptions::default()).unwrap().call(args).unwrap();
    policy::agree(&want, &got, policy::inexact_ops(&m).is_empty()).unwrap();
}

#[test]
fn control_flow_runs_natively() {
    let scan = "func @main(%c: f32[], %xs: f32[5,3]) -> (f32[], f32[5,3], f32[], f32[5,3]) {
  %s: f32[], %ys: f32[5,3] = scan[body=@acc, length=5, num_carry=1](%c, %xs)
  %r: f32[], %rs: f32[5,3] = scan[body=@acc, length=5, num_carry=1, reverse=true](%c, %xs)
  return %s, %ys, %r, %rs
}
func @acc(%c: f32[], %x: f32[3]) -> (f32[], f32[3]) {
  %t: f32[] = reduce_sum[axes=[0]](%x)
  %n: f32[] = add(%c, %t)
  %b: f32[3] = broadcast_in_dim[shape=[3], dims=[]](%n)
  %y: f32[3] = mul(%b, %x)
  return %n, %y
}";
    both(scan, &[Array::scalar_f32(0.5), f32s(&[5, 3], 3)]);
    let wh = "func @main(%n: i32[]) -> (i32[], i32[], i32[], i32[]) {
  %z: i32[] = constant[value=0]()
  %i: i32[], %s: i32[] = while[cond=@below, body=@inc](%z, %n)
  %j: i32[], %t: i32[] = while[cond=@below, body=@inc, max_iters=3](%z, %n)
  return %i, %s, %j, %t
}
func @below(%i: i32[], %n: i32[]) -> (bool[]) {
  %b: bool[] = lt(%i, %n)
  return %b
}
func @inc(%i: i32[], %n: i32[]) -> (i32[], i32[]) {
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  return %j, %n
}";
    both(wh, &[Array::scalar_i32(7)]);
    let cond = "func @main(%k: i32[], %x: f32[2]) -> (f32[2]) {
  %y: f32[2] = cond[branches=[@neg, @same]](%k, %x)
  return %y
}
func @neg(%x: f32[2]) -> (f32[2]) {
  %y: f32[2] = neg(%x)
  return %y
}
func @same(%x: f32[2]) -> (f32[2]) {
  return %x
}";
    for k in [-3, 0, 1, 9] {
        both(cond, &[Array::scalar_i32(k), f32s(&[2], 1)]);
    }
}

#[test]
fn fuel_bounds_loops() {
    let text = "func @main(%x: i32[]) -> (i32[]) {
  %y: i32[] = while[cond=@always, body=@id](%x)
  return %y
}
func @always(%x: i32[]) -> (bool[]) {
  %t: bool[] = constant[value=true]()
  return %t
}
func @id(%x: i32[]) -> (i32[]) {
  return %x
}";
    let exe = compile(&module(text), &JitOptions { fuel: Some(100), ..JitOptions::default() }).unwrap();
    let e = exe.call(&[Array::scalar_i32(1)]).unwrap_err().to_string();
    assert!(e.contains("out of fuel") && e.contains("while"), "{e}");
}

#[test]
fn every_dot_general_layout_matches_the_interpreter() {
    // (lhs shape, rhs shape, lhs_contract, rhs_contract, lhs_batch, rhs_batch)
    type Case =
        (&'static [usize], &'static [usize], &'static [usize], &'static [usize], &'static [usize], &'static [usize]);
    let cases: [Case; 9] = [
        (&[4, 3], &[3, 5], &[1], &[0], &[], &[]),
        (&[3, 4], &[3, 5], &[0], &[0], &[], &[]),
        (&[4, 3], &[5, 3], &[1], &[1], &[], &[]),
        (&[3, 4], &[5, 3], &[0], &[1], &[], &[]),
        (&[2, 4, 3], &[2, 3, 5], &[2], &[1], &[0], &[0]),
        (&[4, 2, 3], &[3, 5, 2], &[2], &[0], &[1], &[2]),
        (&[2, 3, 4], &[3, 2, 5], &[0, 1], &[1, 0], &[], &[]),
        (&[0, 3], &[3, 5], &[1], &[0], &[], &[]),
        (&[4, 0], &[0, 5], &[1], &[0], &[], &[]),
    ];
    let list = |v: &[usize]| v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ");
    for (ls, rs, lc, rc, lb, rb) in cases {
        for dt in ["f32", "f64", "i32"] {
            let dims = ferrax_ir::prim::linalg::DotDims {
                lhs_contract: lc.to_vec(),
                rhs_contract: rc.to_vec(),
                lhs_batch: lb.to_vec(),
                rhs_batch: rb.to_vec(),
                preferred: None,
            };
            let batch: Vec<usize> = lb.iter().map(|&a| ls[a]).collect();
            let mut out: Vec<usize> = batch;
            out.extend(dims.lhs_free(ls.len()).iter().map(|&a| ls[a]));
            out.extend(dims.rhs_free(rs.len()).iter().map(|&a| rs[a]));
            let text = format!(
                "func @d(%x: {dt}[{}], %y: {dt}[{}]) -> ({dt}[{}]) {{\n  %z: {dt}[{}] = dot_general[lhs_contract=[{}], rhs_contract=[{}], lhs_batch=[{}], rhs_batch=[{}]](%x, %y)\n  return %z\n}}",
                list(ls),
                list(rs),
                list(&out),
                list(&out),
                list(lc),
                list(rc),
                list(lb),
                list(rb)
            );
            let m = module(&text);
            let f = m.entry().unwrap();
            let mut rng = ferrax_ir::testing::Rng::new(5);
            let args = ferrax_ir::testing::random_inputs(f, &mut rng, false);
            let want = ferrax_ir::eval_entry(&m, &args, &EvalOptions::default()).unwrap();
            let got = compile(&m, &JitOptions::default()).unwrap().call(&args).unwrap();
            policy::agree_for(&m, &f.name, &args, &want, &got).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }
}

#[test]
fn native_opaque_ops_are_bit_identical_to_the_interpreter() {
    let text = "func @main(%x: f32[3,4], %u: f32[2,2], %i: i32[], %j: i32[], %k: i32[6]) -> (f32[3,4], f32[3,4], f32[3,4], i32[6]) {
  %a: f32[3,4] = cumsum[axis=1](%x)
  %b: f32[3,4] = cumsum[axis=0, reverse=true](%x)
  %c: f32[3,4] = dynamic_update_slice(%x, %u, %i, %j)
  %d: i32[6] = cumsum[axis=0](%k)
  return %a, %b, %c, %d
}";
    let m = module(text);
    let k = Array::from_i32(&[6], vec![i32::MAX, 1, -5, 7, i32::MIN, 3]).unwrap();
    let x = Array::from_f32(&[3, 4], vec![1e8, 1.0, -1e8, 0.1, -0.0, 0.3, 0.7, -2.5, 3.0, 1e-7, 1.5, -0.0]).unwrap();
    for (i, j) in [(0, 0), (1, 2), (-4, 9), (7, -1)] {
        let args = [x.clone(), f32s(&[2, 2], 4), Array::scalar_i32(i), Array::scalar_i32(j), k.clone()];
        let want = ferrax_ir::eval_entry(&m, &args, &EvalOptions::default()).unwrap();
        let got = compile(&m, &JitOptions::default()).unwrap().call(&args).unwrap();
        policy::agree(&want, &got, true).unwrap();
    }
}

/// Launches above the split threshold run on several threads: the same results as one
/// thread (elementwise kernels bit for bit; a parallel GEMM within the policy).
#[test]
fn split_launches_match_one_thread() {
    let text = "func @f(%a: f32[2048,1024], %b: f32[2048,1024]) -> (f32[2048,1024]) {
  %c: f32[2048,1024] = mul(%a, %b)
  %d: f32[2048,1024] = tanh(%c)
  %e: f32[2048,1024] = add(%d, %a)
  return %e
}
";
    let m = module(text);
    let args = [f32s(&[2048, 1024], 1), f32s(&[2048, 1024], 2)];
    let one = compile(&m, &JitOptions { threads: 1, ..Default::default() }).unwrap();
    let two = compile(&m, &JitOptions { threads: 2, ..Default::default() }).unwrap();
    assert_eq!(one.call(&args).unwrap(), two.call(&args).unwrap());

    let gemm = "func @g(%a: f32[384,384], %b: f32[384,384]) -> (f32[384,384]) {
  %c: f32[384,384] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  return %c
}
";
    let m = module(gemm);
    let args = [f32s(&[384, 384], 3), f32s(&[384, 384], 4)];
    let one = compile(&m, &JitOptions { threads: 1, ..Default::default() }).unwrap().call(&args).unwrap();
    let two = compile(&m, &JitOptions { threads: 2, ..Default::default() }).unwrap().call(&args).unwrap();
    policy::agree(&one, &two, false).unwrap();
    let want = ferrax_ir::eval(&m, "g", &args, &EvalOptions::default()).unwrap();
    policy::agree(&want, &two, false).unwrap();
}

/// A large full reduction (W3's shape: a value and a gradient from one kernel) is cut into
/// fixed chunks reduced on the pool: the same bits with 1, 2 or 3 threads, and within the
/// policy of the interpreter.
#[test]
fn full_reductions_are_the_same_whatever_the_threads() {
    let n = 200_003;
    let text = format!(
        "func @f(%a: f32[{n}], %b: f32[{n}]) -> (f32[], f32[{n}]) {{
  %c: f32[{n}] = mul(%a, %b)
  %d: f32[{n}] = tanh(%c)
  %e: f32[{n}] = mul(%d, %a)
  %s: f32[] = reduce_sum[axes=[0]](%e)
  %t: f32[{n}] = mul(%d, %b)
  return %s, %t
}}
"
    );
    let m = module(&text);
    let args = [f32s(&[n], 5), f32s(&[n], 6)];
    let runs: Vec<Vec<Array>> = [1, 2, 3]
        .iter()
        .map(|&threads| compile(&m, &JitOptions { threads, ..Default::default() }).unwrap().call(&args).unwrap())
        .collect();
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
    // The interpreter's sequential f32 sum of 200,003 terms is itself off by ~7e-5
    // (relative): compare with the same module evaluated in f64, rounded to f32.
    let m64 = module(&text.replace("f32", "f64"));
    let args64: Vec<Array> = args
        .iter()
        .map(|a| Array::from_f64(&[n], a.as_f32().unwrap().iter().map(|&x| f64::from(x)).collect()).unwrap())
        .collect();
    let want64 = ferrax_ir::eval(&m64, "f", &args64, &EvalOptions::default()).unwrap();
    let want: Vec<Array> = want64
        .iter()
        .map(|a| Array::from_f32(a.shape(), a.as_f64().unwrap().iter().map(|&x| x as f32).collect()).unwrap())
        .collect();
    policy::agree_for(&m, "f", &args, &want, &runs[0]).unwrap();
}

/// An elementwise kernel writes its result over an input that dies there: the GEMM's
/// result and the kernel's share one 64-byte buffer (the last GEMM writes the caller's
/// result buffer).
#[test]
fn elementwise_kernels_run_in_place() {
    let text = "func @f(%a: f32[4,4], %b: f32[4,4]) -> (f32[4,4]) {
  %c: f32[4,4] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  %d: f32[4,4] = tanh(%c)
  %e: f32[4,4] = mul(%d, %d)
  %f: f32[4,4] = dot_general[lhs_contract=[1], rhs_contract=[0]](%e, %b)
  return %f
}
";
    let m = module(text);
    let exe = compile(&m, &JitOptions::default()).unwrap();
    assert_eq!(exe.workspace_bytes(), 64, "the kernel reuses the GEMM's buffer");
    let args = [f32s(&[4, 4], 1), f32s(&[4, 4], 2)];
    let want = ferrax_ir::eval(&m, "f", &args, &EvalOptions::default()).unwrap();
    policy::agree(&want, &exe.call(&args).unwrap(), false).unwrap();
}

/// A temporary that dies before a result is written lives in that result's buffer;
/// a result copied in after the last step (a parameter returned) lends its buffer for
/// the whole call; a buffer of narrower elements is not lent to wider ones; a kernel
/// may write a result over a temporary it reads at the same index.
#[test]
fn temporaries_borrow_result_buffers_not_yet_written() {
    // `(%a, %b[, %x]) -> (%e[, ret])` through the temporaries %c and %d.
    let chain = |ty: &str, extra: &str, ret: &str, ret_ty: &str| {
        format!(
            "func @f(%a: {ty}[16,16], %b: {ty}[16,16]{extra}) -> ({ty}[16,16]{ret_ty}) {{
  %c: {ty}[16,16] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  %d: {ty}[16,16] = dot_general[lhs_contract=[1], rhs_contract=[0]](%c, %b)
  %e: {ty}[16,16] = dot_general[lhs_contract=[1], rhs_contract=[0]](%d, %b)
  return %e{ret}
}}"
        )
    };
    let f64s = |seed: u32| {
        let x = f32s(&[16, 16], seed);
        Array::from_f64(&[16, 16], x.as_f32().unwrap().iter().map(|&v| f64::from(v)).collect()).unwrap()
    };
    let cases = [
        // %c dies before %e is written: in its buffer; %d is read while %e is written.
        (chain("f32", "", "", ""), vec![f32s(&[16, 16], 1), f32s(&[16, 16], 2)], 1024),
        // The returned parameter's buffer is written last: it holds %d.
        (chain("f32", "", ", %a", ", f32[16,16]"), vec![f32s(&[16, 16], 1), f32s(&[16, 16], 2)], 0),
        // f64 temporaries: not in the f32 parameter's buffer (4-byte aligned).
        (chain("f64", ", %x: f32[16,16]", ", %x", ", f32[16,16]"), vec![f64s(1), f64s(2), f32s(&[16, 16], 3)], 2048),
    ];
    // An elementwise kernel turning a temporary into a result in place: the temporary
    // lives in the result's buffer from the start.
    let tanh = "func @f(%a: f32[16,16], %b: f32[16,16]) -> (f32[16,16]) {
  %c: f32[16,16] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %b)
  %d: f32[16,16] = tanh(%c)
  return %d
}";
    let cases = cases.into_iter().chain([(tanh.to_string(), vec![f32s(&[16, 16], 1), f32s(&[16, 16], 2)], 0)]);
    for (text, args, workspace) in cases {
        let m = module(&text);
        let exe = compile(&m, &JitOptions::default()).unwrap();
        assert_eq!(exe.workspace_bytes(), workspace, "{text}");
        let want = ferrax_ir::eval(&m, "f", &args, &EvalOptions::default()).unwrap();
        policy::agree(&want, &exe.call(&args).unwrap(), false).unwrap();
    }
}

/// A `while` carry the body returns unchanged is read where it already is, and when
/// nothing reads the loop's result for it, that result has no buffer at all: a solver's
/// matrix costs no workspace.
#[test]
fn an_unused_unchanged_loop_carry_takes_no_buffer() {
    let text = |ret: &str, ty: &str| {
        format!(
            "func @f(%m: f32[64,64], %v: f32[64]) -> ({ty}) {{
  %i0: i32[] = constant[value=0]()
  %r: f32[64], %mm: f32[64,64], %i: i32[] = while[cond=@c, body=@b](%v, %m, %i0)
  return {ret}
}}
func @c(%v: f32[64], %m: f32[64,64], %i: i32[]) -> (bool[]) {{
  %n: i32[] = constant[value=3]()
  %p: bool[] = lt(%i, %n)
  return %p
}}
func @b(%v: f32[64], %m: f32[64,64], %i: i32[]) -> (f32[64], f32[64,64], i32[]) {{
  %w: f32[64] = dot_general[lhs_contract=[1], rhs_contract=[0]](%m, %v)
  %one: i32[] = constant[value=1]()
  %j: i32[] = add(%i, %one)
  return %w, %m, %j
}}"
        )
    };
    let args = [f32s(&[64, 64], 1), f32s(&[64], 2)];
    for (ret, ty, unused) in [("%r", "f32[64]", true), ("%r, %mm", "f32[64], f32[64,64]", false)] {
        let m = module(&text(ret, ty));
        let exe = compile(&m, &JitOptions::default()).unwrap();
        if unused {
            assert!(exe.workspace_bytes() < 64 * 64 * 4, "workspace {} bytes", exe.workspace_bytes());
        }
        let want = ferrax_ir::eval(&m, "f", &args, &EvalOptions::default()).unwrap();
        policy::agree(&want, &exe.call(&args).unwrap(), false).unwrap();
    }
}

/// Steps computing a result write the caller's result buffer directly: a one-kernel
/// program needs no workspace, and results returned twice or passed through are copied.
#[test]
fn results_are_written_in_place() {
    let text = "func @f(%x: f32[1000], %y: f32[1000]) -> (f32[1000], f32[1000], f32[1000], f32[]) {
  %a: f32[1000] = exp(%x)
  %b: f32[1000] = mul(%a, %y)
  %s: f32[] = reduce_sum[axes=[0]](%b)
  return %b, %y, %b, %s
}";
    let m = module(text);
    let exe = compile(&m, &JitOptions::default()).unwrap();
    assert_eq!(exe.workspace_bytes(), 0, "results live in the caller's buffers");
    let args = [f32s(&[1000], 1), f32s(&[1000], 2)];
    let want = ferrax_ir::eval(&m, "f", &args, &EvalOptions::default()).unwrap();
    policy::agree(&want, &exe.call(&args).unwrap(), false).unwrap();
    let mut outs = [vec![0f32; 1000], vec![0f32; 1000], vec![0f32; 1000], vec![0f32; 1]];
    let [o0, o1, o2, o3] = &mut outs;
    let (x, y) = (args[0].as_f32().unwrap(), args[1].as_f32().unwrap());
    exe.call_raw(
        &[ArgRef::F32(x), ArgRef::F32(y)],
        &mut [OutRef::F32(o0), OutRef::F32(o1), OutRef::F32(o2), OutRef::F32(o3)],
    )
    .unwrap();
    let got: Vec<Array> =
        outs.iter().zip(exe.result_types()).map(|(o, t)| Array::from_f32(&t.shape, o.clone()).unwrap()).collect();
    policy::agree(&want, &got, false).unwrap();
}

/// Float sums follow the interpreter's blocked pairwise order with the default options
/// (fast math, fma) on every thread count: a chunked full reduction of 45,000 terms and
/// row sums of 1,100 give the interpreter's bits with 1, 2 and 3 threads, and 2×10^7 f32
/// ones (a broadcast scalar) sum to exactly 2×10^7, where a left fold stops at 2^24.
#[test]
fn float_sums_are_the_interpreters_bits_whatever_the_threads() {
    let text = "func @f(%a: f32[45000], %b: f32[64,1100]) -> (f32[], f32[64]) {
  %c: f32[45000] = mul(%a, %a)
  %s: f32[] = reduce_sum[axes=[0]](%c)
  %d: f32[64,1100] = mul(%b, %b)
  %t: f32[64] = reduce_sum[axes=[1]](%d)
  return %s, %t
}
";
    let m = module(text);
    // Full-mantissa values (the multiples of 1/4 of `f32s` would sum exactly in any order).
    let wavy = |shape: &[usize], seed: f32| {
        let n: usize = shape.iter().product();
        Array::from_f32(shape, (0..n).map(|i| (i as f32 * 0.618_034 + seed).sin() * 3.7).collect()).unwrap()
    };
    let args = [wavy(&[45_000], 0.5), wavy(&[64, 1100], 1.5)];
    let want = ferrax_ir::eval(&m, "f", &args, &EvalOptions::default()).unwrap();
    let ones = "func @g(%c: f32[]) -> (f32[]) {
  %o: f32[20000000] = broadcast_in_dim[shape=[20000000], dims=[]](%c)
  %s: f32[] = reduce_sum[axes=[0]](%o)
  return %s
}
";
    let g = module(ones);
    for threads in [1, 2, 3] {
        let options = JitOptions { threads, ..Default::default() };
        assert_eq!(compile(&m, &options).unwrap().call(&args).unwrap(), want, "{threads} threads");
        let got = compile(&g, &options).unwrap().call(&[Array::scalar_f32(1.0)]).unwrap();
        assert_eq!(got, [Array::scalar_f32(2e7)], "{threads} threads");
    }
}

/// A `while` whose body returns a carry unchanged (a matrix the loop reads, as vmap's
/// guard `select(p, m, stop_gradient(m))` leaves it) keeps that carry in one buffer:
/// no spare copy, no per-iteration copy, and the guard compiles to nothing.
#[test]
fn loop_invariant_carries_are_neither_copied_nor_guarded() {
    let text = "func @f(%m: f32[256,256], %v: f32[256]) -> (f32[256,256], f32[256]) {
  %mm: f32[256,256], %w: f32[256] = while[cond=@c, body=@b, max_iters=5](%m, %v)
  return %mm, %w
}
func @c(%m: f32[256,256], %v: f32[256]) -> (bool[]) {
  %t: bool[] = constant[value=true]()
  return %t
}
func @b(%m: f32[256,256], %v: f32[256]) -> (f32[256,256], f32[256]) {
  %run: bool[256,256] = constant[value=true]()
  %g: f32[256,256] = stop_gradient(%m)
  %s: f32[256,256] = select(%run, %m, %g)
  %y: f32[256] = dot_general[lhs_contract=[1], rhs_contract=[0]](%s, %v)
  %k: f32[256] = constant[value=0.01]()
  %z: f32[256] = mul(%y, %k)
  return %m, %z
}";
    let exe = compile(&module(text), &JitOptions::default()).unwrap();
    assert!(exe.workspace_bytes() < 256 * 256 * 4, "workspace {} bytes", exe.workspace_bytes());
    both(text, &[f32s(&[256, 256], 3), f32s(&[256], 4)]);
    // The same loop with its copy of the matrix unread: the loop reads the argument in
    // place and never copies it.
    let unread = text
        .replace("-> (f32[256,256], f32[256]) {\n  %mm", "-> (f32[256]) {\n  %mm")
        .replace("return %mm, %w", "return %w");
    assert_ne!(unread, text);
    both(&unread, &[f32s(&[256, 256], 3), f32s(&[256], 4)]);
}

#[test]
fn the_profile_times_each_step_only_when_asked() {
    let text = "func @mlp(%x: f32[4,6], %w: f32[6,5], %b: f32[5]) -> (f32[4,5]) {
  %y: f32[4,5] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w)
  %bb: f32[4,5] = broadcast_in_dim[shape=[4,5], dims=[1]](%b)
  %z: f32[4,5] = add(%y, %bb)
  %t: f32[4,5] = tanh(%z)
  return %t
}";
    let args = [f32s(&[4, 6], 1), f32s(&[6, 5], 2), f32s(&[5], 3)];
    let off = compile(&module(text), &JitOptions { profile: false, ..JitOptions::default() }).unwrap();
    off.call(&args).unwrap();
    assert!(off.profile().is_none());
    let on = compile(&module(text), &JitOptions { profile: true, ..JitOptions::default() }).unwrap();
    assert_eq!(on.call(&args).unwrap(), off.call(&args).unwrap());
    on.call(&args).unwrap();
    let report = on.profile().unwrap();
    assert!(report.starts_with("ferrax profile of @mlp: 2 calls"), "{report}");
    // One row per step, each run twice: the product with its shape, the fused kernel.
    let rows: Vec<&str> = report.lines().skip(2).collect();
    assert_eq!(rows.len(), 2, "{report}");
    assert!(rows.iter().all(|r| r.split_whitespace().nth(2) == Some("2")), "{report}");
    assert!(rows.iter().any(|r| r.contains("@mlp eqn 0") && r.contains("gemm F32 1x4x5x6")), "{report}");
    assert!(rows.iter().any(|r| r.contains("kernel @")), "{report}");
}
