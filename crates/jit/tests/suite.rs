//! The integration tests of `ferrax-jit`, one module per file, linked into one test
//! binary (one link instead of two, which keeps the suite's build time and disk small).
//! Run one file's tests with `cargo test -p ferrax-jit --test suite <file>::`.

mod api;
mod corpus;
