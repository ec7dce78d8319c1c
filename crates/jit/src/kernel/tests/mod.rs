//! Tests of the kernel compiler: every kernel-able primitive, view and reduction against the
//! reference interpreter (bit for bit in precise-math mode without fma), edge shapes, the
//! vector path (also on a baseline SSE2 target), and generated kernels.

mod carry;
mod chunked;
mod masks;
mod ops;
mod order;
mod outer;
mod random;
mod reduce;
mod simd;
mod support;
mod tiles;
mod vector_edges;
mod views;
