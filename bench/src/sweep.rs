//! `ferrax-bench sweep`: how each workload's time grows with its size (W1 and W4 over
//! the batch, W2 and W3 over n), for `bench/sweep`, which runs JAX's side
//! (`bench/jax/sweep.py`, the same programs and sizes), writes
//! `bench/results/scaling.csv` and draws `bench/results/scaling.svg` (`crate::plot`).
//!
//! Each point is a fresh `jit` of the workload's own program on inputs drawn for that
//! size (the sweep checks no results: the main run's gate covers the programs), timed
//! by its median over as many calls as fit in about a quarter of a second (at least 3,
//! at most 200), after 2 warm-up calls. Output: one
//! `scaling<TAB>name/size<TAB>median<TAB>us` line per point.

use crate::Result;
use crate::data::Rng;
use crate::workloads::Program;
use ferrax::{Array, Tensor};
use std::time::{Duration, Instant};

/// One workload swept over its size.
pub struct Series {
    /// The workload's name, as in the main run.
    pub name: &'static str,
    /// Its label (`W1` ...), accepted by `--only`.
    pub id: &'static str,
    /// What the size counts (`batch`, `n`).
    pub size_name: &'static str,
    /// The sizes.
    pub sizes: &'static [usize],
    program: fn() -> Program,
    args: fn(usize) -> Result<Vec<Array>>,
}

/// The arrays of a workload's generated inputs, in order.
fn arrays(named: Result<Vec<(String, Array)>>) -> Result<Vec<Array>> {
    Ok(named?.into_iter().map(|(_, a)| a).collect())
}

/// Every swept workload: W1 batch 1 to 1024, W2 n 10^3 to 10^7, W3 n 10^3 to 10^8
/// (forward and gradient), W4 batch 1 to 4096.
pub fn series() -> Vec<Series> {
    vec![
        Series {
            name: "mlp_grad",
            id: "W1",
            size_name: "batch",
            sizes: &[1, 4, 16, 64, 128, 256, 1024],
            program: crate::w1_mlp::program,
            args: |b| arrays(crate::w1_mlp::sized(b, 784, 512, 10)),
        },
        Series {
            name: "rosenbrock_grad",
            id: "W2",
            size_name: "n",
            sizes: &[1_000, 10_000, 100_000, 1_000_000, 10_000_000],
            program: crate::w2_rosenbrock::grad_program,
            args: |n| Ok(vec![Rng::for_group("rosen").uniform_f64(&[n], -1.5, 1.5)?]),
        },
        Series {
            name: "elementwise_chain",
            id: "W3",
            size_name: "n",
            sizes: &[1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000],
            program: crate::w3_elementwise::forward_program,
            args: |n| arrays(crate::w3_elementwise::sized(n)),
        },
        Series {
            name: "elementwise_chain_grad",
            id: "W3",
            size_name: "n",
            sizes: &[1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000],
            program: crate::w3_elementwise::grad_program,
            args: |n| arrays(crate::w3_elementwise::sized(n)),
        },
        Series {
            name: "per_sample_grads",
            id: "W4",
            size_name: "batch",
            sizes: &[1, 4, 16, 64, 256, 1024, 4096],
            program: crate::w4_per_sample::program,
            args: |b| arrays(crate::w4_per_sample::sized(b, 100, 256)),
        },
    ]
}

/// The series `only` names (by name or label, comma lists allowed); all for none.
pub fn select(only: &[String]) -> Result<Vec<Series>> {
    crate::workloads::pick(series(), only, |s| (s.name, s.id))
}

/// Sweeps the series `only` names, printing one line per point.
pub fn sweep(only: &[String]) -> Result<()> {
    for s in select(only)? {
        for &size in s.sizes {
            let args = (s.args)(size)?;
            let median = time(&s, &args)?;
            println!("scaling\t{}/{}\t{:.3}\tus", s.name, size, median.as_secs_f64() * 1e6);
            eprintln!("{} {}={size}: {:.1} us", s.name, s.size_name, median.as_secs_f64() * 1e6);
        }
    }
    Ok(())
}

/// The median call time of a fresh `jit` of the series' program on `args`.
fn time(s: &Series, args: &[Array]) -> Result<Duration> {
    let f = ferrax::jit((s.program)());
    let args = args.to_vec();
    for _ in 0..2 {
        f.call::<Vec<Array>, Vec<Tensor>>(&args)?;
    }
    let mut times = Vec::new();
    let started = Instant::now();
    while times.len() < 200 && (times.len() < 3 || started.elapsed() < Duration::from_millis(250)) {
        let t = Instant::now();
        f.call::<Vec<Array>, Vec<Tensor>>(&args)?;
        times.push(t.elapsed());
    }
    times.sort_unstable();
    Ok(times[times.len() / 2])
}
