//! Cranelift lowering of fused kernels and calling compiled code.
//!
//! `kernel`: one kernel Func (`[kind="fusion"]`) to one Cranelift function (compute-at-index, SIMD).
//! `math`: the transcendental kernels (exp, log, tanh, sin, pow, ...) emitted as vectorisable Cranelift IR.

mod kernel;
mod math;
