//! ferrax-dist: the engines that run a compiled program on several workers, each
//! implementing `ferrax_jit::Communicator` for the collectives of the program.
//!
//! - [`threads`]: the workers are threads of one process ([`ThreadGroup`]); every
//!   collective is one exchange through shared memory, combined in rank order, so the
//!   results are bit-identical to the vmap semantics of the collectives. A worker that
//!   fails (an error or a panic) or does not arrive within the timeout makes every
//!   other worker's collective fail with an error naming it, never hang.
//!
//! `ferrax::pmap` drives an engine: one compiled program, called once per worker on
//! that worker's slice of the inputs.

pub mod threads;

pub use threads::{ThreadGroup, ThreadWorker};
