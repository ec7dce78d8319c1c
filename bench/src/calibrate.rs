//! The machine's own limits, measured in the same run as the workloads, so that each
//! workload's time can be read as a fraction of what this host can do at all:
//!
//! - GEMM FLOP/s: one large square product by faer (the GEMM the JIT calls), f32 and
//!   f64, on 1 thread (`Par::Seq`) and on every core (`Par::rayon`), best of a few
//!   repetitions (a GEMM this size runs at its steady rate; the best filters out a
//!   neighbour's burst);
//! - memory bandwidth: STREAM's copy (`a[i] = b[i]`) and triad (`a[i] = b[i] + s*c[i]`)
//!   over f64 arrays far larger than the caches, on 1 thread and on every core (each
//!   thread its own contiguous part), counted as STREAM counts them: the bytes read
//!   and written by the loop, without the cache's write-allocate reads.
//!
//! [`calibrate`] prints them as figure lines of the pseudo-workload `machine`
//! (`gemm_f64_t2  GFLOP/s`, `triad_t1  GB/s`, ...), which `bench/compare` holds each
//! workload's FLOPs and bytes (from `ferrax_transform::cost`, printed by `run`) against.

use crate::report::figure;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use std::hint::black_box;
use std::time::Instant;

/// Side of the square GEMM: large enough for faer's steady rate (2n³ = 17 GFLOP in
/// f64), small enough to take well under a second per repetition.
const GEMM_N: usize = 2048;
/// Elements of each bandwidth array: 32 Mi f64 = 256 MiB, far beyond any L3 here.
const STREAM_LEN: usize = 32 << 20;
/// Repetitions of each measurement; the best counts.
const REPS: usize = 3;

/// The measured limits, for callers that use them directly.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// `(dtype, threads, GFLOP/s)` of the GEMM.
    pub gemm: Vec<(&'static str, usize, f64)>,
    /// `(loop, threads, GB/s)`: `copy` and `triad`.
    pub bandwidth: Vec<(&'static str, usize, f64)>,
}

/// Measures and prints the limits (`quick`: a smaller GEMM and arrays, for tests).
pub fn calibrate(quick: bool) -> Limits {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = vec![1];
    if cores > 1 {
        threads.push(cores);
    }
    let (n, len) = if quick { (128, 1 << 16) } else { (GEMM_N, STREAM_LEN) };
    let mut limits = Limits::default();
    for &t in &threads {
        let f64_rate = gemm_rate::<f64>(n, t);
        let f32_rate = gemm_rate::<f32>(n, t);
        figure("machine", &format!("gemm_f64_t{t}"), f64_rate, "GFLOP/s");
        figure("machine", &format!("gemm_f32_t{t}"), f32_rate, "GFLOP/s");
        limits.gemm.push(("f64", t, f64_rate));
        limits.gemm.push(("f32", t, f32_rate));
    }
    let mut a = vec![0.0f64; len];
    let b = vec![1.0f64; len];
    let c = vec![2.0f64; len];
    for &t in &threads {
        let copy = stream(t, &mut a, &b, None);
        let triad = stream(t, &mut a, &b, Some(&c));
        figure("machine", &format!("copy_t{t}"), copy, "GB/s");
        figure("machine", &format!("triad_t{t}"), triad, "GB/s");
        limits.bandwidth.push(("copy", t, copy));
        limits.bandwidth.push(("triad", t, triad));
    }
    limits
}

/// GFLOP/s of `n x n` times `n x n` in `T` on `threads` threads (best of [`REPS`]).
fn gemm_rate<T: faer::traits::ComplexField + From<i8>>(n: usize, threads: usize) -> f64 {
    let a = Mat::<T>::from_fn(n, n, |i, j| T::from(((i * 7 + j * 3) % 5) as i8 - 2));
    let b = Mat::<T>::from_fn(n, n, |i, j| T::from(((i * 5 + j) % 7) as i8 - 3));
    let mut c = Mat::<T>::zeros(n, n);
    let par = if threads > 1 { Par::rayon(threads) } else { Par::Seq };
    let mut best = f64::INFINITY;
    // One untimed product first: page faults and faer's packing buffers.
    for rep in 0..=REPS {
        let start = Instant::now();
        matmul(c.as_mut(), Accum::Replace, a.as_ref(), b.as_ref(), T::from(1), par);
        let took = start.elapsed().as_secs_f64();
        if rep > 0 {
            best = best.min(took);
        }
        black_box(&c);
    }
    2.0 * (n as f64).powi(3) / best / 1e9
}

/// GB/s of one STREAM loop on `threads` threads, each writing its own contiguous part
/// of `a`: copy (`a = b`, 16 bytes an element) without `c`, triad (`a = b + 3c`, 24
/// bytes) with it. Zipped slices, so that the loops vectorise like the kernels they
/// stand for.
fn stream(threads: usize, a: &mut [f64], b: &[f64], c: Option<&[f64]>) -> f64 {
    let len = a.len();
    let chunk = len.div_ceil(threads).max(1);
    let mut best = f64::INFINITY;
    for rep in 0..=REPS {
        let start = Instant::now();
        std::thread::scope(|s| {
            for (k, part) in a.chunks_mut(chunk).enumerate() {
                let range = k * chunk..k * chunk + part.len();
                let b = &b[range.clone()];
                let c = c.map(|c| &c[range]);
                s.spawn(move || match c {
                    None => part.iter_mut().zip(b).for_each(|(x, y)| *x = *y),
                    Some(c) => part.iter_mut().zip(b.iter().zip(c)).for_each(|(x, (y, z))| *x = y + 3.0 * z),
                });
            }
        });
        let took = start.elapsed().as_secs_f64();
        if rep > 0 {
            best = best.min(took);
        }
        black_box(&a);
    }
    let bytes = if c.is_some() { 24.0 } else { 16.0 };
    bytes * len as f64 / best / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_calibration_reports_positive_finite_limits() {
        let limits = calibrate(true);
        assert!(limits.gemm.len() >= 2 && limits.bandwidth.len() >= 2);
        for (_, _, rate) in limits.gemm.iter().chain(&limits.bandwidth) {
            assert!(rate.is_finite() && *rate > 0.0, "{limits:?}");
        }
    }
}
