//! The integration tests of `ferrax-filetest`, one module per file, linked into one test
//! binary (one link instead of three, which keeps the suite's build time and disk small).
//! Run one file's tests with `cargo test -p ferrax-filetest --test suite <file>::`.

mod corpus;
mod fuse;
mod jax_fixture;
