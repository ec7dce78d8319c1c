//! The integration tests of `ferrax-api-tests`, one module per file, linked into one test
//! binary (one link instead of five, which keeps the suite's build time and disk small).
//! Run one file's tests with `cargo test -p ferrax-api-tests --test suite <file>::`.

mod compose;
mod half;
mod literals;
mod misuse;
mod transforms;
