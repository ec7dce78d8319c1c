//! The integration tests of `ferrax-transform`, one module per file, linked into one
//! test binary (one link instead of ten). Run one file's tests with
//! `cargo test -p ferrax-transform --test suite <file>::`.

mod checkpoint;
mod control_ad;
mod cost;
mod hoist_dce;
mod limits_and_guards;
mod opt;
mod snapshots;
mod transpose_cost;
mod vmap;
