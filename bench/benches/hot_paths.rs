//! Criterion micro-benchmarks of the paths the JIT's developers tune:
//! `cargo bench -p ferrax-bench` (a few minutes on the whole).
//!
//! - `kernel`: one fused elementwise kernel, `a*b + tanh(c)` over 1M f32;
//! - `gemm`: a jitted 512x512 by 512x512 f32 `dot_general`;
//! - `dispatch`: a tiny jitted function (`x*2 + 1` on f32[4]) through `Jit::call` and
//!   through `Executable::call_raw`;
//! - `trace`: tracing the W1 MLP's value-and-gradient closure;
//! - `transform`: each pass on the MLP loss module (784-512-512-10): jvp, grad (vjp),
//!   vmap, opt, fuse;
//! - `compile`: `ferrax_jit::compile` of the W1 gradient module.
//!
//! Executables are called through `call_raw` on preallocated buffers, so that the
//! figures are the compiled code's, not the copies of `Jit::call`.

use criterion::{Criterion, criterion_group, criterion_main};
use ferrax::nn::cross_entropy;
use ferrax::{Array, DType, Module, Tensor, Type};
use ferrax_bench::workloads::select;
use ferrax_jit::{ArgRef, JitOptions, OutRef};
use ferrax_transform::Wrt;
use std::hint::black_box;
use std::time::Duration;

fn config() -> Criterion {
    Criterion::default()
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(300))
        .sample_size(20)
}

fn f32s(n: usize, seed: u32) -> Vec<f32> {
    (0..n).map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 2000) as f32 / 1000.0 - 1.0).collect()
}

fn types(shapes: &[&[usize]]) -> Vec<Type> {
    shapes.iter().map(|s| Type::new(DType::F32, s)).collect()
}

/// The MLP types: x, y, then W1, b1, W2, b2, W3, b3.
fn mlp_types() -> Vec<Type> {
    types(&[&[128, 784], &[128, 10], &[784, 512], &[512], &[512, 512], &[512], &[512, 10], &[10]])
}

/// The MLP loss as a module (the input of the transform benchmarks).
fn mlp_loss_module() -> Module {
    ferrax::trace(
        |a: Vec<Tensor>| {
            let p = &a[2..];
            let h1 = (a[0].matmul(&p[0]) + &p[1]).tanh();
            let h2 = (h1.matmul(&p[2]) + &p[3]).tanh();
            cross_entropy(&(h2.matmul(&p[4]) + &p[5]), &a[1])
        },
        &mlp_types(),
    )
    .expect("the MLP loss traces")
}

fn kernel(c: &mut Criterion) {
    let n = 1 << 20;
    let module = ferrax::trace(|v: Vec<Tensor>| &v[0] * &v[1] + v[2].tanh(), &types(&[&[n], &[n], &[n]])).unwrap();
    let exe = ferrax::jit_module(&module).unwrap();
    let (a, b, x) = (f32s(n, 1), f32s(n, 2), f32s(n, 3));
    let mut out = vec![0.0f32; n];
    c.bench_function("kernel/a*b+tanh(c) 1M f32", |bench| {
        bench.iter(|| {
            let args = [ArgRef::F32(&a), ArgRef::F32(&b), ArgRef::F32(&x)];
            exe.call_raw(&args, &mut [OutRef::F32(&mut out)]).unwrap();
            black_box(out[0])
        })
    });
}

fn gemm(c: &mut Criterion) {
    let module = ferrax::trace(|v: Vec<Tensor>| v[0].matmul(&v[1]), &types(&[&[512, 512], &[512, 512]])).unwrap();
    let exe = ferrax::jit_module(&module).unwrap();
    let (a, b) = (f32s(512 * 512, 4), f32s(512 * 512, 5));
    let mut out = vec![0.0f32; 512 * 512];
    c.bench_function("gemm/512x512x512 f32", |bench| {
        bench.iter(|| {
            exe.call_raw(&[ArgRef::F32(&a), ArgRef::F32(&b)], &mut [OutRef::F32(&mut out)]).unwrap();
            black_box(out[0])
        })
    });
}

fn dispatch(c: &mut Criterion) {
    let f = ferrax::jit(|x: Tensor| x * 2.0f32 + 1.0f32);
    let x = Array::from(vec![1.0f32, 2.0, 3.0, 4.0]);
    c.bench_function("dispatch/Jit::call f32[4]", |bench| {
        bench.iter(|| black_box(f.call::<Array, Tensor>(&x).unwrap()))
    });
    let module = ferrax::trace(|x: Tensor| x * 2.0f32 + 1.0f32, &Type::new(DType::F32, &[4])).unwrap();
    let exe = ferrax::jit_module(&module).unwrap();
    let xs = [1.0f32, 2.0, 3.0, 4.0];
    let mut out = [0.0f32; 4];
    c.bench_function("dispatch/call_raw f32[4]", |bench| {
        bench.iter(|| {
            exe.call_raw(&[ArgRef::F32(&xs)], &mut [OutRef::F32(&mut out)]).unwrap();
            black_box(out[0])
        })
    });
}

fn trace(c: &mut Criterion) {
    let w = select(&["mlp_grad".to_string()]).unwrap().remove(0);
    let types = mlp_types();
    c.bench_function("trace/mlp value_and_grad", |bench| {
        bench.iter(|| black_box(ferrax::trace((w.program)(), &types).unwrap()))
    });
}

fn transform(c: &mut Criterion) {
    let module = mlp_loss_module();
    let params = Wrt::Params((2..8).collect());
    let mut group = c.benchmark_group("transform");
    group.bench_function("jvp", |b| b.iter(|| black_box(ferrax_transform::jvp(&module, &params).unwrap())));
    group.bench_function("grad", |b| b.iter(|| black_box(ferrax_transform::grad(&module, &params, false).unwrap())));
    let in_axes = [Some(0), Some(0), None, None, None, None, None, None];
    group.bench_function("vmap", |b| b.iter(|| black_box(ferrax_transform::vmap(&module, &in_axes, &[0], 4).unwrap())));
    let gradient = ferrax_transform::grad(&module, &params, false).unwrap();
    group.bench_function("opt", |b| b.iter(|| black_box(ferrax_transform::opt(&gradient).unwrap())));
    let optimized = ferrax_transform::opt(&gradient).unwrap();
    group.bench_function("fuse", |b| b.iter(|| black_box(ferrax_fuse::fuse(&optimized).unwrap())));
    group.finish();
}

fn compile(c: &mut Criterion) {
    let w = select(&["mlp_grad".to_string()]).unwrap().remove(0);
    let module = ferrax::trace((w.program)(), &mlp_types()).unwrap();
    let options = JitOptions::default();
    c.bench_function("compile/mlp value_and_grad", |bench| {
        bench.iter(|| black_box(ferrax_jit::compile(&module, &options).unwrap()))
    });
}

criterion_group! {
    name = hot_paths;
    config = config();
    targets = kernel, gemm, dispatch, trace, transform, compile
}
criterion_main!(hot_paths);
