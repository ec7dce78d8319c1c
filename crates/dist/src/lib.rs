//! ferrax-dist: the engines that run a compiled program on several workers, each
//! implementing `ferrax_jit::Communicator` for the collectives of the program.
//!
//! - [`threads`]: the workers are threads of one process ([`ThreadGroup`]); every
//!   collective is one exchange through shared memory, combined in rank order, so the
//!   results are bit-identical to the vmap semantics of the collectives; a reduction
//!   copies nothing through the exchange (each worker reduces its share of the
//!   elements straight from the others' buffers into theirs), and a started bucket
//!   of reductions never blocks its worker. A worker that
//!   fails (an error or a panic) or does not arrive within the timeout makes every
//!   other worker's collective fail with an error naming it, never hang.
//! - [`mpi`] (cargo feature `mpi`): the workers are the processes of an MPI job
//!   (`MpiWorker`), each collective a non-blocking MPI call polled against a
//!   timeout; a failing, panicking or timed-out rank aborts the job, since OpenMPI
//!   cannot recover from a dead rank and would otherwise hang.
//!
//! `ferrax::pmap` drives an engine: one compiled program, called once per worker on
//! that worker's slice of the inputs ([`leading_slice`]), the results stacked again
//! ([`stack_leading`]).

#[cfg(feature = "mpi")]
pub mod mpi;
pub mod threads;

#[cfg(feature = "mpi")]
pub use mpi::MpiWorker;
pub use threads::{ThreadGroup, ThreadWorker};

use ferrax_ir::Array;
use ferrax_ir::array::Data;

/// Slice `k` of `a`'s leading axis (a worker's share of an input stacked over the
/// workers).
pub fn leading_slice(a: &Array, k: usize) -> Result<Array, String> {
    let Some(&n) = a.shape().first() else { return Err("a scalar has no leading axis".into()) };
    if k >= n {
        return Err(format!("slice {k} of a leading axis of {n}"));
    }
    let inner: usize = a.shape()[1..].iter().product();
    Array::new(&a.shape()[1..], a.data().gather(k * inner..(k + 1) * inner)).map_err(|e| e.to_string())
}

/// `parts` (of one type, one per worker) stacked along a new leading axis.
pub fn stack_leading(parts: &[&Array]) -> Result<Array, String> {
    let first = parts.first().ok_or("no workers")?;
    let datas: Vec<&Data> = parts.iter().map(|a| a.data()).collect();
    let data = Data::concat(&datas).ok_or("results of different dtypes")?;
    let mut shape = vec![parts.len()];
    shape.extend(first.shape());
    Array::new(shape.as_slice(), data).map_err(|e| e.to_string())
}

/// Runs `exe` on `workers` threads of a [`ThreadGroup`] (collectives waiting at most
/// `timeout`): worker `k` takes slice `k` of every one of `args` (each with a leading
/// axis of `workers`), then `shared` (the same for every worker); each result comes
/// back stacked along a new leading axis. The first failure names its worker.
pub fn run_on_threads(
    exe: &ferrax_jit::Executable,
    args: &[&Array],
    shared: &[Array],
    workers: usize,
    timeout: std::time::Duration,
) -> Result<Vec<Array>, String> {
    use ferrax_jit::Communicator;
    let group = ThreadGroup::new(workers, timeout);
    let results = group.run(|worker| {
        let mut mine: Vec<Array> = args.iter().map(|a| leading_slice(a, worker.rank())).collect::<Result<_, _>>()?;
        mine.extend(shared.iter().cloned());
        exe.call_with(&mine, worker).map_err(|e| e.to_string())
    });
    let per_worker = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    (0..exe.result_types().len())
        .map(|k| stack_leading(&per_worker.iter().map(|outs| &outs[k]).collect::<Vec<_>>()))
        .collect()
}
