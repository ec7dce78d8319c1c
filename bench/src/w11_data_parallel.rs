//! W11 `data_parallel`: W1's step (value and gradient of the 784-512-512-10 MLP's mean
//! cross-entropy over a global batch of 128, f32) on 2 workers of one thread each,
//! each on 64 rows, the loss and gradients averaged by `pmean` (`ferrax::pmap` on the
//! threads engine), against 1 worker of one thread on the whole batch (`jit`).
//!
//! Figures: `data_parallel` `call_*` (2 workers: worker 0's time per step, the workers
//! stepping together), `data_parallel_1w` `call_*` (1 worker), and
//! `data_parallel` `scaling_efficiency` = t(1 worker) / (2 · t(2 workers)), 1.0 being a
//! perfect halving; `allreduce_share`, the share of worker 0's step spent in its
//! collectives (waiting for the other worker and writing its shares of the reductions);
//! `data_parallel_blocking` `call_*`, the same step with every collective blocking where
//! the program has it (`JitOptions::overlap_collectives` off), and `hidden_allreduce`,
//! the part of that schedule's collective time the overlapped one (reductions started
//! as the backward pass produces each gradient, in buckets) no longer spends in them.
//! Before any time, the 2-worker loss and gradients are
//! checked against the 1-worker ones. JAX's side (`bench/jax/bench.py`, in a child
//! process with 2 host devices of one thread) is `shard_map` of the same step with
//! `pmean`, checked equal to its 1-device step.

use crate::data::Inputs;
use crate::gate::{Tolerance, compare};
use crate::report::{Stats, call_figures, figure};
use crate::w1_mlp::{STEMS, logits};
use crate::workloads::{Workload, load};
use crate::{Error, Result};
use ferrax::nn::cross_entropy;
use ferrax::{Array, Communicator, JitOptions, Tensor, grad, lax};
use std::time::{Duration, Instant};

/// The workers of W11.
const WORKERS: usize = 2;

/// One thread per worker, on both sides of the comparison.
fn one_thread() -> JitOptions {
    JitOptions { threads: 1, ..Default::default() }
}

/// Rows `k·len ..` of `a`'s leading axis.
fn rows(a: &Array, k: usize, len: usize) -> Result<Array> {
    let inner: usize = a.shape()[1..].iter().product();
    let values = a.data().gather(k * len * inner..(k + 1) * len * inner);
    let mut shape = a.shape().to_vec();
    shape[0] = len;
    Ok(Array::new(shape.as_slice(), values)?)
}

/// The loss and the gradients, averaged over the workers when `axis` is bound.
fn step(args: Vec<Tensor>, parallel: bool) -> Vec<Tensor> {
    let (x, y) = (&args[0], &args[1]);
    let params = args[2..].to_vec();
    let loss = |p: Vec<Tensor>| cross_entropy(&logits(&p, x), y);
    let value = loss(params.clone());
    let grads = grad(loss).apply(&params);
    let all = std::iter::once(value).chain(grads);
    if parallel { all.map(|t| lax::pmean(&t, &["i"])).collect() } else { all.collect() }
}

/// Runs W11 (its inputs are W1's) and prints its figures; false when the 2-worker
/// results differ from the 1-worker ones.
pub fn run(inputs: &mut Inputs, calls: Option<usize>) -> Result<bool> {
    let args = load(inputs, &STEMS)?;
    let batch = args[0].shape()[0];
    if batch % WORKERS != 0 {
        return Err(Error::at("data_parallel", format!("batch {batch} does not split over {WORKERS} workers")));
    }
    let shard = batch / WORKERS;
    let calls = calls.unwrap_or(100).max(1);
    let warmup = Workload::warmup(calls);

    // One worker, one thread, the whole batch.
    let single = ferrax::jit_with(|a: Vec<Tensor>| step(a, false), one_thread());
    let reference: Vec<Array> = single.call(&args)?;
    let mut one = Vec::with_capacity(calls);
    for k in 0..warmup + calls {
        let start = Instant::now();
        single.call::<Vec<Array>, Vec<Tensor>>(&args)?;
        if k >= warmup {
            one.push(start.elapsed());
        }
    }

    // Two workers of one thread, 64 rows each: the reductions overlapped with the
    // backward pass (the default), and blocking where the program has them.
    let per_worker = |rank: usize| -> Result<Vec<Array>> {
        let mut mine = vec![rows(&args[0], rank, shard)?, rows(&args[1], rank, shard)?];
        mine.extend(args[2..].iter().cloned());
        Ok(mine)
    };
    let (got, two, in_collectives) = two_workers(&per_worker, true, warmup, calls)?;
    let (_, blocking, blocked) = two_workers(&per_worker, false, warmup, calls)?;

    // The gate: the mean of the shards' mean loss and gradients is the batch's.
    for (k, (g, r)) in got.iter().zip(&reference).enumerate() {
        let c = compare(g, r, Tolerance::reduction(r.dtype()));
        if !c.passed() {
            eprintln!("data_parallel: FAILED the gate against 1 worker: result {k}: {c}");
            eprintln!("data_parallel: no times reported");
            return Ok(false);
        }
    }
    eprintln!("data_parallel: gate against 1 worker: ok");
    let total: Duration = two.iter().sum();
    let stats = |t: &[Duration]| Stats::of(t).ok_or_else(|| Error::at("data_parallel", "no calls"));
    let (one, two, blocking) = (stats(&one)?, stats(&two)?, stats(&blocking)?);
    call_figures("data_parallel", "call", &two);
    call_figures("data_parallel_blocking", "call", &blocking);
    call_figures("data_parallel_1w", "call", &one);
    let efficiency = one.median.as_secs_f64() / (WORKERS as f64 * two.median.as_secs_f64());
    figure("data_parallel", "scaling_efficiency", efficiency, "ratio");
    // The share of a step its worker spends in collectives (waiting for the others and
    // writing its shares of the reductions included), and how much of the blocking
    // schedule's collective time the overlapped one no longer spends there.
    let share = in_collectives.as_secs_f64() / total.as_secs_f64().max(1e-12);
    figure("data_parallel", "allreduce_share", share, "ratio");
    let hidden = 1.0 - in_collectives.as_secs_f64() / blocked.as_secs_f64().max(1e-12);
    figure("data_parallel", "hidden_allreduce", hidden.clamp(0.0, 1.0), "ratio");
    Ok(true)
}

/// What worker 0 of a 2-worker step reports: its first results, its step times and its
/// time in collectives over the timed calls; with the reductions `overlapped` or not.
fn two_workers(
    per_worker: &(dyn Fn(usize) -> Result<Vec<Array>> + Sync),
    overlapped: bool,
    warmup: usize,
    calls: usize,
) -> Result<(Vec<Array>, Vec<Duration>, Duration)> {
    let options = JitOptions { overlap_collectives: overlapped, ..one_thread() };
    let example = per_worker(0)?;
    let pstep = ferrax::pmap(|a: Vec<Tensor>| step(a, true), "i").jit_options(options).lower(&example, WORKERS)?;
    let group = ferrax_dist::ThreadGroup::new(WORKERS, Duration::from_secs(120));
    type Worker = (Vec<Array>, Vec<Duration>, Duration);
    let results = group.run(|worker| -> std::result::Result<Worker, String> {
        let mine = per_worker(worker.rank()).map_err(|e| e.to_string())?;
        let first: Vec<Array> = pstep.call_on(worker, &mine).map_err(|e| e.to_string())?;
        let mut times = Vec::with_capacity(calls);
        let mut in_collectives = Duration::ZERO;
        for k in 0..warmup + calls {
            let (start, before) = (Instant::now(), worker.collective_time());
            pstep.call_on(worker, &mine).map_err(|e| e.to_string())?;
            if k >= warmup {
                times.push(start.elapsed());
                in_collectives += worker.collective_time() - before;
            }
        }
        Ok((first, times, in_collectives))
    });
    let mut results = results.into_iter();
    let first = results.next().ok_or_else(|| Error::at("data_parallel", "no worker"))?.map_err(Error)?;
    for r in results {
        r.map_err(Error)?;
    }
    Ok(first)
}
