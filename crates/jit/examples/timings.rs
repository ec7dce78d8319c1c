//! Quick timings of the benchmark workloads under the JIT: compile time
//! (opt + fuse + plan + kernels) and the median steady-state call.
//! `cargo run --release -p ferrax-jit --example timings [FILTER]`: only the workloads
//! whose name contains FILTER, or a module read from FILTER when it ends in `.fx`. Environment: `FERRAX_THREADS=n` sets `JitOptions::threads`
//! (default: the library's default), `FERRAX_CALLS=n` times n calls instead of the workload's default, `FERRAX_FUSED=1` prints each fused module (the
//! JIT's schedule) before timing it, `FERRAX_ALL=1` every call's time (µs).

use ferrax_ir::{Array, DType, Module, Type};
use ferrax_jit::{JitOptions, compile};
use ferrax_transform::{Wrt, hvp, value_and_grad};
use std::time::{Duration, Instant};

fn parse(text: &str) -> Module {
    ferrax_ir::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn fill(t: &Type, seed: usize) -> Array {
    let n = t.element_count().unwrap_or(0);
    let wide = std::env::var_os("FERRAX_WIDE").is_some();
    let f = |i: usize| (((i * 31 + seed * 17) % 97) as f64 / 97.0 - 0.5) * if wide { 6.0 } else { 0.2 };
    match t.dtype {
        DType::F32 => Array::from_f32(&t.shape, (0..n).map(|i| f(i) as f32).collect()).unwrap(),
        DType::F64 => Array::from_f64(&t.shape, (0..n).map(f).collect()).unwrap(),
        DType::I32 => Array::from_i32(&t.shape, (0..n).map(|i| i as i32).collect()).unwrap(),
        DType::Bool => Array::from_bool(&t.shape, vec![true; n]).unwrap(),
        DType::BF16 | DType::F16 => {
            let values: Vec<f64> = (0..n).map(f).collect();
            Array::new(t.shape.clone(), ferrax_ir::array::Data::from_f64s(t.dtype, &values)).unwrap()
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn options() -> JitOptions {
    let mut o = JitOptions::default();
    if let Some(n) = std::env::var("FERRAX_THREADS").ok().and_then(|s| s.parse().ok()) {
        o.threads = n;
    }
    o
}

fn selected(name: &str) -> bool {
    std::env::args().nth(1).is_none_or(|f| f.ends_with(".fx") || name.contains(&f))
}

/// CPU time of all this process's threads so far (Linux `schedstat`; zero elsewhere):
/// per call, a measure of the work done that a busy host does not inflate by waiting.
fn cpu_time() -> Duration {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return Duration::ZERO };
    let ns: u64 = tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

fn time(name: &str, module: &Module, calls: usize) {
    if !selected(name) {
        return;
    }
    if std::env::var_os("FERRAX_FUSED").is_some() {
        let fused = ferrax_fuse::fuse(&ferrax_transform::opt(module).unwrap()).unwrap();
        println!("{}", ferrax_ir::print(&fused));
    }
    let calls = std::env::var("FERRAX_CALLS").ok().and_then(|s| s.parse().ok()).unwrap_or(calls);
    let t = Instant::now();
    let exe = compile(module, &options()).unwrap();
    let compile_time = t.elapsed();
    let args: Vec<Array> = exe.param_types().iter().enumerate().map(|(i, t)| fill(t, i)).collect();
    exe.call(&args).unwrap();
    let cpu = cpu_time();
    let runs: Vec<Duration> = (0..calls)
        .map(|_| {
            let t = Instant::now();
            exe.call(&args).unwrap();
            t.elapsed()
        })
        .collect();
    let cpu = (cpu_time().saturating_sub(cpu)) / calls as u32;
    if std::env::var_os("FERRAX_ALL").is_some() {
        println!("{:?}", runs.iter().map(|d| d.as_micros()).collect::<Vec<_>>());
    }
    let best = runs.iter().min().copied().unwrap_or_default();
    println!(
        "{name:<28} compile {compile_time:>10.2?}   call (median of {calls}) {:>10.2?}  min {best:>10.2?}  cpu/call {cpu:>10.2?}",
        median(runs)
    );
}

fn mlp() -> Module {
    parse(
        "func @loss(%x: f32[128,784], %w1: f32[784,512], %w2: f32[512,512], %w3: f32[512,10], %y: f32[128,10]) -> (f32[]) {
  %a1: f32[128,512] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w1)
  %h1: f32[128,512] = tanh(%a1)
  %a2: f32[128,512] = dot_general[lhs_contract=[1], rhs_contract=[0]](%h1, %w2)
  %h2: f32[128,512] = tanh(%a2)
  %z: f32[128,10] = dot_general[lhs_contract=[1], rhs_contract=[0]](%h2, %w3)
  %m: f32[128] = reduce_max[axes=[1]](%z)
  %mb: f32[128,10] = broadcast_in_dim[shape=[128,10], dims=[0]](%m)
  %zc: f32[128,10] = sub(%z, %mb)
  %e: f32[128,10] = exp(%zc)
  %s: f32[128] = reduce_sum[axes=[1]](%e)
  %ls: f32[128] = log(%s)
  %lb: f32[128,10] = broadcast_in_dim[shape=[128,10], dims=[0]](%ls)
  %lsm: f32[128,10] = sub(%zc, %lb)
  %p: f32[128,10] = mul(%y, %lsm)
  %t: f32[] = reduce_sum[axes=[0,1]](%p)
  %k: f32[] = constant[value=-0.0078125]()
  %l: f32[] = mul(%t, %k)
  return %l
}",
    )
}

/// W1 as the benchmark defines it: biases on every layer.
fn mlp_bias() -> Module {
    parse(
        "func @loss(%x: f32[128,784], %w1: f32[784,512], %b1: f32[512], %w2: f32[512,512], %b2: f32[512], %w3: f32[512,10], %b3: f32[10], %y: f32[128,10]) -> (f32[]) {
  %a1: f32[128,512] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %w1)
  %bb1: f32[128,512] = broadcast_in_dim[shape=[128,512], dims=[1]](%b1)
  %c1: f32[128,512] = add(%a1, %bb1)
  %h1: f32[128,512] = tanh(%c1)
  %a2: f32[128,512] = dot_general[lhs_contract=[1], rhs_contract=[0]](%h1, %w2)
  %bb2: f32[128,512] = broadcast_in_dim[shape=[128,512], dims=[1]](%b2)
  %c2: f32[128,512] = add(%a2, %bb2)
  %h2: f32[128,512] = tanh(%c2)
  %a3: f32[128,10] = dot_general[lhs_contract=[1], rhs_contract=[0]](%h2, %w3)
  %bb3: f32[128,10] = broadcast_in_dim[shape=[128,10], dims=[1]](%b3)
  %z: f32[128,10] = add(%a3, %bb3)
  %m: f32[128] = reduce_max[axes=[1]](%z)
  %mb: f32[128,10] = broadcast_in_dim[shape=[128,10], dims=[0]](%m)
  %zc: f32[128,10] = sub(%z, %mb)
  %e: f32[128,10] = exp(%zc)
  %s: f32[128] = reduce_sum[axes=[1]](%e)
  %ls: f32[128] = log(%s)
  %lb: f32[128,10] = broadcast_in_dim[shape=[128,10], dims=[0]](%ls)
  %lsm: f32[128,10] = sub(%zc, %lb)
  %p: f32[128,10] = mul(%y, %lsm)
  %t: f32[] = reduce_sum[axes=[0,1]](%p)
  %k: f32[] = constant[value=-0.0078125]()
  %l: f32[] = mul(%t, %k)
  return %l
}",
    )
}

fn rosenbrock(n: usize) -> Module {
    let m = n - 1;
    parse(&format!(
        "func @rosen(%x: f64[{n}]) -> (f64[]) {{
  %a: f64[{m}] = slice[start=[1], limit=[{n}]](%x)
  %b: f64[{m}] = slice[start=[0], limit=[{m}]](%x)
  %b2: f64[{m}] = mul(%b, %b)
  %d: f64[{m}] = sub(%a, %b2)
  %d2: f64[{m}] = mul(%d, %d)
  %c: f64[] = constant[value=100.0]()
  %cb: f64[{m}] = broadcast_in_dim[shape=[{m}], dims=[]](%c)
  %t1: f64[{m}] = mul(%cb, %d2)
  %one: f64[] = constant[value=1.0]()
  %ob: f64[{m}] = broadcast_in_dim[shape=[{m}], dims=[]](%one)
  %e: f64[{m}] = sub(%ob, %b)
  %e2: f64[{m}] = mul(%e, %e)
  %s: f64[{m}] = add(%t1, %e2)
  %r: f64[] = reduce_sum[axes=[0]](%s)
  return %r
}}"
    ))
}

fn chain(n: usize) -> Module {
    parse(&format!(
        "func @chain(%a: f32[{n}], %b: f32[{n}], %c: f32[{n}]) -> (f32[]) {{
  %ab: f32[{n}] = mul(%a, %b)
  %abc: f32[{n}] = add(%ab, %c)
  %t: f32[{n}] = tanh(%abc)
  %na: f32[{n}] = neg(%a)
  %ea: f32[{n}] = exp(%na)
  %p: f32[{n}] = mul(%t, %ea)
  %bb: f32[{n}] = mul(%b, %b)
  %one: f32[] = constant[value=1.0]()
  %ob: f32[{n}] = broadcast_in_dim[shape=[{n}], dims=[]](%one)
  %den: f32[{n}] = add(%ob, %bb)
  %q: f32[{n}] = div(%p, %den)
  %r: f32[] = reduce_sum[axes=[0]](%q)
  return %r
}}"
    ))
}

fn tanh_chain(layers: usize) -> Module {
    let mut params = vec!["%h0: f32[64]".to_string()];
    let mut body = String::new();
    for i in 0..layers {
        params.push(format!("%w{i}: f32[64,64]"));
        body += &format!(
            "  %a{i}: f32[64] = dot_general[lhs_contract=[0], rhs_contract=[0]](%h{i}, %w{i})\n  %h{}: f32[64] = tanh(%a{i})\n",
            i + 1
        );
    }
    parse(&format!(
        "func @deep({}) -> (f32[]) {{\n{body}  %s: f32[] = reduce_sum[axes=[0]](%h{layers})\n  return %s\n}}",
        params.join(", ")
    ))
}

fn small_mlp() -> Module {
    parse(
        "func @l(%w1: f32[100,256], %w2: f32[256], %x: f32[100], %y: f32[]) -> (f32[]) {
  %a: f32[256] = dot_general[lhs_contract=[0], rhs_contract=[0]](%x, %w1)
  %h: f32[256] = tanh(%a)
  %o: f32[] = dot_general[lhs_contract=[0], rhs_contract=[0]](%h, %w2)
  %d: f32[] = sub(%o, %y)
  %s: f32[] = mul(%d, %d)
  return %s
}",
    )
}

fn main() {
    if let Some(file) = std::env::args().nth(1).filter(|f| f.ends_with(".fx")) {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        time("", &parse(&text), 200);
        if std::env::var_os("FERRAX_DUMP").is_some() {
            let mut o = options();
            o.dump = true;
            println!("{}", compile(&parse(&text), &o).unwrap().dump());
        }
        return;
    }
    time("W1 mlp value_and_grad", &value_and_grad(&mlp(), &Wrt::Params(vec![1, 2, 3]), false).unwrap(), 20);
    time(
        "W1b mlp+bias value_and_grad",
        &value_and_grad(&mlp_bias(), &Wrt::Params(vec![1, 2, 3, 4, 5, 6]), false).unwrap(),
        20,
    );
    let rosen = rosenbrock(1_000_000);
    time("W2 rosenbrock grad", &ferrax_transform::grad(&rosen, &Wrt::Default, false).unwrap(), 10);
    time("W2 rosenbrock hvp", &hvp(&rosen, &Wrt::Default).unwrap(), 10);
    let g = ferrax_transform::grad(&small_mlp(), &Wrt::Params(vec![0, 1]), false).unwrap();
    let per_sample = ferrax_transform::vmap(&g, &[None, None, Some(0), Some(0)], &[0, 0], 256).unwrap();
    time("W4 per-sample grads (256)", &per_sample, 10);
    let c = chain(4_000_000);
    time("W3 chain", &c, 5);
    time("W3 chain value_and_grad", &value_and_grad(&c, &Wrt::Params(vec![0, 1, 2]), false).unwrap(), 5);
    time(
        "W5 dispatch x*2+1 (f32[4])",
        &parse(
            "func @d(%x: f32[4]) -> (f32[4]) {\n  %two: f32[] = constant[value=2.0]()\n  %tb: f32[4] = broadcast_in_dim[shape=[4], dims=[]](%two)\n  %y: f32[4] = mul(%x, %tb)\n  %one: f32[] = constant[value=1.0]()\n  %ob: f32[4] = broadcast_in_dim[shape=[4], dims=[]](%one)\n  %z: f32[4] = add(%y, %ob)\n  return %z\n}",
        ),
        2001,
    );
    if !selected("W6") {
        return;
    }
    let deep = tanh_chain(50);
    let t = Instant::now();
    let g = ferrax_transform::grad(&deep, &Wrt::Default, false).unwrap();
    compile(&g, &JitOptions::default()).unwrap();
    println!("W6 grad of 50-layer chain: transform + compile {:.2?}", t.elapsed());
    let t = Instant::now();
    let h = hvp(&deep, &Wrt::Default).unwrap();
    compile(&h, &JitOptions::default()).unwrap();
    println!("W6 hvp of 50-layer chain: transform + compile {:.2?}", t.elapsed());
}
