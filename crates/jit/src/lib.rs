//! The JIT: compiles a module (a model, its gradient, a vmapped version, ...) into an
//! [`Executable`] following the schedule of the fusion pass: kernels, `dot_general`
//! by faer (`gemm`), `cond`/`while`/`scan` run natively over body programs, opaque
//! primitives, all over a liveness-planned workspace (`exec`). [`JitCache`] keeps
//! executables by (module, input types).
//!
//! Until the kernel code generator and the fusion pass are merged, two private
//! stand-ins take their places: `fuse_standin` (one kernel per kernel-able equation)
//! and `kernel_standin` (runs a kernel Func with the reference interpreter).

mod api;
mod cache;
mod exec;
mod fuse_standin;
mod gemm;
mod kernel_standin;
pub mod policy;

pub use api::{ArgRef, Executable, JitOptions, OutRef, compile, compile_func};
pub use cache::{CacheStats, JitCache, Miss};
