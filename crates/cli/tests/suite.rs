//! The integration tests of `ferrax-cli`, one module per file, linked into one test
//! binary (one link instead of five, which keeps the suite's build time and disk small).
//! Run one file's tests with `cargo test -p ferrax-cli --test suite <file>::`.

mod cli;
mod cli_fuzz;
mod cost_cli;
mod fuse;
mod limits;
