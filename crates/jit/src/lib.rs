//! Cranelift lowering of fused kernels and calling compiled code. Empty until the
//! JIT issue lands; until then the interpreter of `ferrax_ir` is the only backend.
//!
//! `math`: the transcendental kernels (exp, log, tanh, sin, pow, ...) emitted as vectorisable Cranelift IR.

mod math;
