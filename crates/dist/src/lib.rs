//! ferrax-dist: the engines that run a compiled program on several workers, each
//! implementing `ferrax_jit::Communicator` for the collectives of the program.
//!
//! - [`threads`]: the workers are threads of one process ([`ThreadGroup`]); every
//!   collective is one exchange through shared memory, combined in rank order, so the
//!   results are bit-identical to the vmap semantics of the collectives. A worker that
//!   fails (an error or a panic) or does not arrive within the timeout makes every
//!   other worker's collective fail with an error naming it, never hang.
//! - [`mpi`] (cargo feature `mpi`): the workers are the processes of an MPI job
//!   (`MpiWorker`), each collective a non-blocking MPI call polled against a
//!   timeout; a failing, panicking or timed-out rank aborts the job, since OpenMPI
//!   cannot recover from a dead rank and would otherwise hang.
//!
//! `ferrax::pmap` drives an engine: one compiled program, called once per worker on
//! that worker's slice of the inputs.

#[cfg(feature = "mpi")]
pub mod mpi;
pub mod threads;

#[cfg(feature = "mpi")]
pub use mpi::MpiWorker;
pub use threads::{ThreadGroup, ThreadWorker};
