//! Value types: a dtype and a static shape.

use ferrax_array::{DType, Shape, format_dims};
use std::fmt;

/// The static type of an IR value: `f32[128,784]`, `i32[]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Type {
    /// Element type.
    pub dtype: DType,
    /// Static shape; empty for a scalar.
    pub shape: Shape,
}

impl Type {
    /// A type from a dtype and shape.
    pub fn new(dtype: DType, shape: &[usize]) -> Type {
        Type { dtype, shape: shape.into() }
    }

    /// A rank-0 type.
    pub fn scalar(dtype: DType) -> Type {
        Type { dtype, shape: Shape::new() }
    }

    /// Number of axes.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The same shape with another dtype.
    pub fn with_dtype(&self, dtype: DType) -> Type {
        Type { dtype, shape: self.shape.clone() }
    }

    /// Number of elements, or `None` if it overflows.
    pub fn element_count(&self) -> Option<usize> {
        ferrax_array::element_count(&self.shape).ok()
    }

    /// Bytes of a buffer of this type, overflow-checked.
    pub fn byte_size(&self) -> Result<u64, ferrax_array::Error> {
        ferrax_array::byte_size(self.dtype, &self.shape)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.dtype, format_dims(&self.shape))
    }
}

/// Formats a list of types as `(f32[2], i32[])`.
pub fn format_types(types: &[Type]) -> String {
    let parts: Vec<String> = types.iter().map(Type::to_string).collect();
    format!("({})", parts.join(", "))
}
