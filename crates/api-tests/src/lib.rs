//! Tests of the `ferrax` API from the outside, as a user's crate uses it: they depend on
//! `ferrax` alone (no internal crate, no test helper), so every call they make is one a
//! user can make. `tests/compose.rs` checks transforms composed in many orders against
//! closed forms, `tests/misuse.rs` that mistakes are errors naming the caller's line.
