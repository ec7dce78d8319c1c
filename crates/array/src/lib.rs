//! Host data beneath everything in ferrax.
//!
//! This crate knows nothing of the IR: it holds the element types ([`DType`], with the
//! 16-bit floats [`bf16`] and [`f16`] and their conversions to and from f32), static
//! shapes ([`Shape`]), the contiguous C-order host buffer ([`Array`]) with its
//! constructors (`from_vec`, `scalar`, `full`, `ones`, `arange`, `linspace`, generic
//! over the [`Element`] types) and approximate equality for tests, NumPy `.npy`
//! reading and writing ([`npy`]) and `.npz` archives ([`npz`]), NumPy-style printing
//! (`Display`) and conversions from vectors and slices, and the allocation budget ([`Budget`]) that keeps any
//! input from allocating past a limit. The IR crate builds its types
//! from these; the interpreter, the JIT and the CLI all exchange `Array`s.

mod array;
mod budget;
mod construct;
mod display;
mod dtype;
mod error;
mod half16;
pub mod npy;
pub mod npz;

pub use array::{Array, Data, format_f32, format_f64, format_half};
pub use budget::{Budget, FOOTPRINT_MARGIN, Limits, byte_size, default_limits, element_count};
pub use construct::{Element, Float, Number};
pub use dtype::DType;
pub use error::Error;
pub use half::{bf16, f16};
pub use half16::{bf16_bits_from_f32_bits, bf16_from_f64, f16_from_f64, f32_round_to_odd};

/// A static shape: one size per axis, outermost first. A scalar has no axes.
pub type Shape = smallvec::SmallVec<[usize; 4]>;

/// Formats a shape the way the IR prints it inside a type: `128,784` (no brackets).
pub fn format_dims(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    parts.join(",")
}
