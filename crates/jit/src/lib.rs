//! The JIT: compiles a module (a model, its gradient, a vmapped version, ...) into an
//! [`Executable`] following the schedule of the fusion pass (`ferrax_fuse::fuse`):
//! kernels compiled to native code by Cranelift (`kernel`, with the transcendental
//! kernels of `math`), `dot_general` by faer (`gemm`), `cond`/`while`/`scan` run natively
//! over body programs, opaque primitives, all over a liveness-planned workspace (`exec`).
//! [`JitCache`] keeps executables by (module, input types).

mod api;
mod cache;
pub mod comm;
mod conv;
mod exec;
mod factor;
mod gemm;
pub mod isa;
mod kernel;
mod legalize;
mod math;
pub mod policy;
mod pool;

pub use api::{ArgRef, Executable, JitOptions, OutRef, compile, compile_func};
pub use cache::{CacheStats, JitCache, Miss};
pub use comm::{Communicator, Reduce, ReducePart, Ticket, reduce_in_rank_order};
pub use isa::{VectorIsa, vector_isa};
