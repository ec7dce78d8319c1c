//! ferrax-bench: the side-by-side benchmark harness.
//!
//! The workloads W1-W10 and W12 ([`workloads`]) are written as a user of the `ferrax` crate
//! would write them: Rust closures over [`ferrax::Tensor`]s, differentiated and batched
//! with `grad`/`jvp_apply`/`vmap` and compiled with `ferrax::jit`. [`data`] writes every
//! workload's inputs once as `.npy` files (the same files `bench/jax/bench.py` loads),
//! [`run`] measures compile latency, steady-state call times and buffer bytes, after
//! the correctness gate of [`gate`] has compared the results with JAX's (or, without
//! them, with ferrax's interpreter). [`report`] prints the figures as
//! `workload<TAB>metric<TAB>value<TAB>unit` lines, the format `bench/compare` reads;
//! [`calibrate`] measures the machine's own limits (GEMM FLOP/s, copy and triad
//! bandwidth) that `bench/compare` holds each workload's FLOPs and bytes against.
//!
//! With the feature `candle`, the module `candle` runs the W1 and W3 gradients with candle-core
//! on the same inputs.

pub mod calibrate;
#[cfg(feature = "candle")]
pub mod candle;
pub mod data;
pub mod gate;
pub mod passes;
pub mod plot;
pub mod report;
pub mod run;
pub mod sweep;
pub mod workloads;

mod w10_linalg;
pub mod w11_data_parallel;
mod w12_kernels;
mod w1_mlp;
mod w2_rosenbrock;
mod w3_elementwise;
mod w4_per_sample;
mod w5_dispatch;
mod w6_chain;
mod w7_mixed;
mod w8_cnn;
mod w9_transformer;

use std::fmt;

/// An error of the harness: what failed and where (a file, a workload, an argument).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl Error {
    /// An error with `context` (the place) in front of `message`.
    pub fn at(context: &str, message: impl fmt::Display) -> Error {
        Error(format!("{context}: {message}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<ferrax::Error> for Error {
    fn from(e: ferrax::Error) -> Error {
        Error(e.to_string())
    }
}

impl From<ferrax_ir::Error> for Error {
    fn from(e: ferrax_ir::Error) -> Error {
        Error(e.to_string())
    }
}

impl From<ferrax_ir::array::Error> for Error {
    fn from(e: ferrax_ir::array::Error) -> Error {
        Error(e.to_string())
    }
}

/// The harness's result type.
pub type Result<T> = std::result::Result<T, Error>;
