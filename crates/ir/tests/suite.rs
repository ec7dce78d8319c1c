//! The integration tests of `ferrax-ir`, one module per file, linked into one test
//! binary (one link instead of six, which keeps the suite's build time and disk small).
//! Run one file's tests with `cargo test -p ferrax-ir --test suite <file>::`.

mod batch_rules_elementwise_reduce_dot;
mod batch_rules_structural_index;
mod half;
mod jvp_rules;
mod properties;
mod transpose_rules;
