//! Element types.

use std::fmt;

/// The element type of an array or IR value.
///
/// Float types are differentiable; `I32` and `Bool` never carry tangents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// Boolean, one byte per element.
    Bool,
    /// 32-bit two's-complement integer; arithmetic wraps.
    I32,
    /// bfloat16: binary32's sign and 8 exponent bits with 7 fraction bits (the top
    /// half of an f32). Arithmetic computes in f32 and rounds each result once.
    BF16,
    /// IEEE-754 binary16 (5 exponent, 10 fraction bits). Arithmetic computes in f32
    /// and rounds each result once.
    F16,
    /// IEEE-754 binary32.
    F32,
    /// IEEE-754 binary64.
    F64,
}

impl DType {
    /// Every dtype: `bool`, `i32`, then the floats from narrowest to widest.
    pub const ALL: [DType; 6] = [DType::Bool, DType::I32, DType::BF16, DType::F16, DType::F32, DType::F64];

    /// Bytes per element.
    pub fn size_bytes(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::BF16 | DType::F16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::F64 => 8,
        }
    }

    /// True for the floating-point (differentiable) dtypes.
    pub fn is_float(self) -> bool {
        matches!(self, DType::BF16 | DType::F16 | DType::F32 | DType::F64)
    }

    /// True for the 16-bit floats, which compute in f32 and round each result.
    pub fn is_half(self) -> bool {
        matches!(self, DType::BF16 | DType::F16)
    }

    /// The dtype arithmetic on this one computes in: f32 for the 16-bit floats,
    /// itself otherwise.
    pub fn compute(self) -> DType {
        if self.is_half() { DType::F32 } else { self }
    }

    /// True for `i32`.
    pub fn is_int(self) -> bool {
        self == DType::I32
    }

    /// The name used in the IR text form (`bf16`, `f16`, `f32`, `f64`, `i32`, `bool`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "i32",
            DType::BF16 => "bf16",
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// Parses an IR dtype name.
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
