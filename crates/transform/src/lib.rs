//! IR-to-IR transforms (jvp, linearize, transpose, vjp, grad, vmap, and the
//! optimisation passes). Each pass takes a Func of a module and returns a module
//! whose entry is the result; the per-primitive rules live in `ferrax_ir::prim`.
//! This crate starts empty: the passes arrive with their issues.
