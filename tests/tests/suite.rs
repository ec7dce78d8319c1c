//! The cross-crate suites (AD tables, generated programs, differential and fuzz
//! testing, limits, docs), one module per file, linked into one test binary: one link
//! instead of fifteen keeps the suite's build time and disk small. Run one file's tests
//! with `cargo test -p ferrax-tests --test suite <file>::`.

mod support;

mod ad_generated;
mod ad_half;
mod ad_table;
mod cheap_gradient;
mod collectives;
mod concurrency;
mod conv;
mod differential;
mod docs;
mod fusion;
mod fuzz;
mod limits;
mod proptest_fuzz;
mod vmap_table;
