//! ferrax: JAX-style tracing, automatic differentiation and compilation in Rust.
//!
//! This crate is the project's only API boundary. For now it re-exports the IR
//! (types, text form, verifier, interpreter); tracing and the transforms follow.

pub use ferrax_ir as ir;
pub use ferrax_ir::{Array, DType, Module, Type};
