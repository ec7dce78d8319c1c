//! Host arrays inside traces: [`constant`] turns an [`Array`] captured by a closure
//! into a value of the trace.
//!
//! A captured array is a constant, never a variable: transforms do not differentiate
//! it (pass it as an argument for that). One of at most
//! [`INLINE_CONSTANT_LIMIT`](crate::ops::create::INLINE_CONSTANT_LIMIT) elements is
//! written into the IR as a `constant` equation; a larger one becomes an extra
//! parameter of the traced entry, bound to the array at every call (never copied into
//! the IR text).

use crate::Tensor;
use ferrax_ir::Array;

/// The host array `array` as a constant of the current trace (the same as
/// [`Tensor::constant`]).
#[track_caller]
pub fn constant(array: &Array) -> Tensor {
    Tensor::constant(array)
}
