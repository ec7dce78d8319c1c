//! Reductions over the workers started early and finished late (the JIT's default,
//! `JitOptions::overlap_collectives`): the same bits as the blocking schedule and as
//! the vmap semantics, and a worker that fails with a bucket in flight ends every
//! worker's call with an error instead of a hang or a write into freed memory.

use ferrax::{Array, DType, JitOptions, Tensor, grad, lax, vmap, while_loop};
use std::time::Duration;

fn options(overlap: bool) -> JitOptions {
    JitOptions { overlap_collectives: overlap, threads: 1, ..Default::default() }
}

/// A data-parallel step in miniature: the loss of a two-layer model on this worker's
/// rows and its gradients, each averaged over the workers.
fn step(args: Vec<Tensor>) -> Vec<Tensor> {
    let (x, w1, w2) = (&args[0], &args[1], &args[2]);
    let loss = |p: Vec<Tensor>| x.matmul(&p[0]).tanh().matmul(&p[1]).powi(2).mean_all();
    let params = vec![w1.clone(), w2.clone()];
    let value = loss(params.clone());
    let grads = grad(loss).apply(&params);
    std::iter::once(value).chain(grads).map(|t| lax::pmean(&t, &["i"])).collect()
}

/// `n·shape` values that make sums depend on their order (magnitudes over 1.1^40).
fn values(n: usize, shape: &[usize], seed: f64, spread: bool) -> Array {
    let len: usize = n * shape.iter().product::<usize>();
    let scale = |v: usize| if spread { 1.1f64.powi((v % 40) as i32) } else { 1.0 };
    let data = (0..len).map(|v| (v as f64 * 0.731 + seed).sin() * scale(v)).collect();
    let mut full = vec![n];
    full.extend(shape);
    Array::from_f64(&full, data).unwrap()
}

#[test]
fn overlapped_reductions_give_the_bits_of_blocking_ones_and_of_vmap() {
    for n in [1, 2, 3, 4] {
        for dtype in [DType::F64, DType::F32] {
            let cast = |a: Array| ferrax::eval(|t: Tensor| t.astype(dtype), &a).unwrap();
            // w1 of 40·1000 f64 (320 kB): several buckets' worth over the parameters.
            let x = cast(values(n, &[5, 40], 0.3, false));
            let w1 = cast(values(n, &[40, 1000], 1.1, false));
            let w2 = cast(values(n, &[1000, 3], 2.7, false));
            let args = vec![x, w1, w2];
            let on: Vec<Array> = ferrax::pmap(step, "i").jit_options(options(true)).call(&args).unwrap();
            let off: Vec<Array> = ferrax::pmap(step, "i").jit_options(options(false)).call(&args).unwrap();
            let by_vmap: Vec<Array> = vmap(step).axis_name("i").call(&args).unwrap();
            for (k, ((a, b), c)) in on.iter().zip(&off).zip(&by_vmap).enumerate() {
                assert_eq!(a.to_f64_vec(), b.to_f64_vec(), "n {n} {dtype} result {k}: overlapped vs blocking");
                // The compiled step and the interpreter's agree to rounding (their GEMMs
                // sum in different orders); the reductions over the workers add none.
                for (p, q) in a.to_f64_vec().into_iter().zip(c.to_f64_vec()) {
                    let tol = if dtype == DType::F32 { 1e-4 } else { 1e-12 };
                    assert!((p - q).abs() <= tol * (1.0 + q.abs()), "n {n} {dtype} result {k}: {p} vs vmap {q}");
                }
            }
        }
    }
}

#[test]
fn overlapped_pmean_of_16_bit_floats_rounds_the_sum_then_the_mean() {
    for dtype in [DType::BF16, DType::F16] {
        for n in [2, 3] {
            let x = ferrax::eval(|t: Tensor| t.astype(dtype), &values(n, &[700_000], 0.9, true)).unwrap();
            let f = |x: Tensor| (lax::pmean(&x, &["i"]), lax::psum(&(&x * 2.0), &["i"]));
            let on: (Array, Array) = ferrax::pmap(f, "i").jit_options(options(true)).call(&x).unwrap();
            let by_vmap: (Array, Array) = vmap(f).axis_name("i").call(&x).unwrap();
            assert_eq!(on.0.to_f64_vec(), by_vmap.0.to_f64_vec(), "{dtype} n {n}: pmean");
            assert_eq!(on.1.to_f64_vec(), by_vmap.1.to_f64_vec(), "{dtype} n {n}: psum");
        }
    }
}

#[test]
fn a_worker_failing_with_a_bucket_in_flight_fails_every_worker() {
    use ferrax::Communicator;
    use ferrax_dist::ThreadGroup;
    // The pmean of 1.2 MB fills a bucket and starts at once; then worker 1's loop never
    // ends (1 squared stays 1) and runs out of fuel, with the bucket started and the
    // psum after the loop still ahead of worker 0.
    let f = |(x, y): (Tensor, Tensor)| {
        let mean = lax::pmean(&x, &["i"]);
        let big = while_loop(|y: Tensor| y.is_finite(), |y: Tensor| &y * &y, &y, None);
        (mean, lax::psum(&big, &["i"]))
    };
    let jit = JitOptions { fuel: Some(50), ..options(true) };
    let x = Array::from_f32(&[300_000], vec![1.5; 300_000]).unwrap();
    let example = (x.clone(), Array::scalar_f32(2.0));
    let step = ferrax::pmap(f, "i").jit_options(jit).timeout(Duration::from_secs(20)).lower(&example, 2).unwrap();
    // Either worker late: worker 1 fails before worker 0 starts the bucket, or after
    // both have started it (and perhaps written their shares).
    for late in [0, 1] {
        let group = ThreadGroup::new(2, Duration::from_secs(20));
        let started = std::time::Instant::now();
        let results = group.run(|w| {
            if w.rank() == late {
                std::thread::sleep(Duration::from_millis(100));
            }
            let y = Array::scalar_f32(if w.rank() == 0 { 2.0 } else { 1.0 });
            step.call_on(w, &(x.clone(), y)).map_err(|e| e.to_string())
        });
        assert!(started.elapsed() < Duration::from_secs(15), "the workers waited for the timeout");
        let e1 = results[1].as_ref().unwrap_err();
        assert!(e1.contains("out of fuel"), "{e1}");
        let e0 = results[0].as_ref().unwrap_err();
        assert!(e0.contains("worker 1") && e0.contains("out of fuel"), "late {late}: {e0}");
    }
}
