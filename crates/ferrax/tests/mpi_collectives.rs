//! The MPI engine against the vmap semantics (run by `mpirun -np N`, N >= 1; not a
//! libtest harness, since MPI initialises once per process): every rank computes the
//! stacked inputs of all ranks (drawn from the rank index), runs `pmap` as its rank of
//! the job, and checks its result bit for bit against its slice of
//! `vmap(f).axis_name("i")` on the stacked inputs, for values and for gradients
//! through the collectives. A mismatch aborts the job with a message naming the rank.
//!
//!     mpirun --allow-run-as-root --oversubscribe --timeout 120 -np 3 \
//!         target/debug/deps/mpi_collectives-*

use ferrax::dist::MpiWorker;
use ferrax::{Array, Communicator, Tensor, grad, lax, vmap};
use std::time::Duration;

/// Every collective at once (the threads engine's test's function), `ppermute` shifting
/// each rank's value to the next but the last's.
fn mixed(x: Tensor, n: usize) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor) {
    let k = lax::axis_index("i").astype(ferrax::DType::F64);
    let sum = lax::psum(&(&x * &k), &["i"]);
    let top = &lax::pmax(&x, &["i"]) - &lax::pmin(&x, &["i"]) + lax::pmean(&x, &["i"]);
    let gathered = lax::all_gather(&x, "i", 1, false);
    let scattered = lax::psum_scatter(&lax::all_gather(&x, "i", 0, true), "i", 0, true);
    let shift: Vec<(usize, usize)> = (1..n).map(|k| (k - 1, k)).collect();
    let shifted = lax::ppermute(&x, "i", &shift);
    let swapped = lax::all_to_all(&lax::all_gather(&x, "i", 0, true), "i", 0, 1);
    (sum, top, gathered, scattered, shifted, swapped)
}

fn loss(x: Tensor, n: usize) -> Tensor {
    let (a, b, c, d, e, f) = mixed(x, n);
    a.sum_all() + b.sin().sum_all() + c.sum_all() * 0.5 + d.sum_all() + e.powi(2).sum_all() + f.sum_all()
}

/// Slice `k` of the leading axis.
fn slice(a: &Array, k: usize) -> Array {
    let inner: usize = a.shape()[1..].iter().product();
    let values = a.to_f64_vec()[k * inner..(k + 1) * inner].to_vec();
    Array::from_f64(&a.shape()[1..], values).expect("a slice")
}

fn main() {
    let worker = MpiWorker::init(Duration::from_secs(60)).expect("MPI initialises once");
    let (rank, n) = (worker.rank(), worker.size());
    let check = |what: &str, got: &Array, want: &Array| {
        if got.shape() != want.shape() || got.to_f64_vec() != want.to_f64_vec() {
            worker.fail(&format!(
                "{what}: {:?} {:?} differs from the vmap form's {:?} {:?}",
                got.shape(),
                got.to_f64_vec(),
                want.shape(),
                want.to_f64_vec()
            ));
        }
    };
    let stacked = Array::from_f64(&[n, 2, 2], (0..n * 4).map(|v| v as f64 * 0.37 - 1.1).collect()).expect("inputs");
    let mine = slice(&stacked, rank);
    type Six = (Array, Array, Array, Array, Array, Array);
    let f = move |x: Tensor| mixed(x, n);
    let on_mpi: Six = ferrax::pmap(f, "i").call_on(&worker, &mine).unwrap_or_else(|e| worker.fail(&e.to_string()));
    let by_vmap: Six = vmap(f).axis_name("i").call(&stacked).unwrap_or_else(|e| worker.fail(&e.to_string()));
    let got = [&on_mpi.0, &on_mpi.1, &on_mpi.2, &on_mpi.3, &on_mpi.4, &on_mpi.5];
    let want = [&by_vmap.0, &by_vmap.1, &by_vmap.2, &by_vmap.3, &by_vmap.4, &by_vmap.5];
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        check(&format!("result {k}"), g, &slice(w, rank));
    }
    // Gradients: compiled once, called twice (a loop of steps reuses the executable).
    let g = move |x: Tensor| loss(x, n);
    let step = ferrax::pmap(grad(g), "i").lower(&mine, n).unwrap_or_else(|e| worker.fail(&e.to_string()));
    let by_vmap: Array = vmap(grad(g)).axis_name("i").call(&stacked).unwrap_or_else(|e| worker.fail(&e.to_string()));
    for round in 0..2 {
        let g: Array = step.call_on(&worker, &mine).unwrap_or_else(|e| worker.fail(&e.to_string()));
        let want = slice(&by_vmap, rank);
        let close = g.to_f64_vec().iter().zip(want.to_f64_vec()).all(|(a, b)| (a - b).abs() <= 1e-12 * (1.0 + b.abs()));
        if !close {
            worker.fail(&format!("gradient round {round}: {:?} vs {:?}", g.to_f64_vec(), want.to_f64_vec()));
        }
    }
    // A data-parallel step whose gradients fill buckets (2.4 MB and small ones): the
    // overlapped schedule (started as produced, finished at the end) against the
    // blocking one, bit for bit.
    let w = Array::from_f64(&[300, 1000], (0..300_000).map(|v| ((v * (rank + 3)) as f64 * 0.013).sin()).collect())
        .expect("weights");
    let b = Array::from_f64(&[1000], (0..1000).map(|v| v as f64 * 1e-3 - 0.4).collect()).expect("bias");
    let dp = |(w, b): (Tensor, Tensor)| {
        let loss = |(w, b): (Tensor, Tensor)| (w.sum([0]) * 1e-2 + &b).tanh().powi(2).sum_all();
        let (gw, gb) = grad(loss).apply(&(w, b));
        (lax::pmean(&gw, &["i"]), lax::pmean(&gb, &["i"]))
    };
    let mut outs = Vec::new();
    for overlap in [true, false] {
        let options = ferrax::JitOptions { overlap_collectives: overlap, ..Default::default() };
        let step = ferrax::pmap(dp, "i").jit_options(options);
        let out: (Array, Array) =
            step.call_on(&worker, &(w.clone(), b.clone())).unwrap_or_else(|e| worker.fail(&e.to_string()));
        outs.push(out);
    }
    check("overlapped pmean of a 2.4 MB gradient", &outs[0].0, &outs[1].0);
    check("overlapped pmean of a bias gradient", &outs[0].1, &outs[1].1);
    println!("mpi_collectives: rank {rank} of {n}: ok");
}
