//! Host data beneath everything in ferrax.
//!
//! This crate knows nothing of the IR: it holds the element types ([`DType`]), static
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
pub mod npy;
pub mod npz;

pub use array::{Array, Data, format_f32, format_f64};
pub use budget::{Budget, FOOTPRINT_MARGIN, Limits, byte_size, default_limits, element_count};
pub use construct::{Element, Float, Number};
pub use dtype::DType;
pub use error::Error;

/// A static shape: one size per axis, outermost first. A scalar has no axes.
pub type Shape = smallvec::SmallVec<[usize; 4]>;

/// Formats a shape the way the IR prints it inside a type: `128,784` (no brackets).
pub fn format_dims(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    parts.join(",")
}
