//! The integration tests of the `ferrax` crate, one module per file, linked into one
//! test binary: one link instead of thirty keeps the suite's build time and disk small.
//! Run one file's tests with `cargo test -p ferrax --test suite <file>::`. `tree` (needs
//! the `derive` feature) and the MPI tests (run under mpirun) stay binaries of their own.

mod autodiff;
mod checkpoint;
mod collectives;
mod control;
mod conv_jax;
mod custom;
mod examples;
mod guide_graph;
mod implicit;
mod jit;
mod linalg;
mod linalg_jax;
mod linalg_lu;
mod mixed;
mod mlp;
mod nn;
mod nn_layers;
mod ntk;
mod offload;
mod ops;
mod optim;
mod overlap;
mod random;
mod snapshot_example;
mod solve;
mod trace;
mod vmap;
mod window;
mod window_jax;
