//! The error type of host-data operations.

use std::fmt;

/// What went wrong creating, reading or sizing an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The element count or byte size of a shape overflows `u64`.
    Overflow {
        /// The shape, as printed in a type (`2147483648,2147483648,8`).
        dims: String,
    },
    /// Allocating would take the live bytes past the budget.
    OverBudget {
        /// What was being allocated.
        what: String,
        /// Bytes that would be live.
        bytes: u64,
        /// The budget.
        max_bytes: u64,
    },
    /// Data length and shape disagree.
    LengthMismatch {
        /// Elements the shape implies.
        expected: usize,
        /// Elements given.
        actual: usize,
    },
    /// A malformed or unsupported `.npy` file.
    Npy(String),
    /// A malformed or unsupported `.npz` archive (the entry is named when known).
    Npz(String),
    /// An I/O failure, with the path.
    Io(String),
    /// Arguments no array can be made from (a zero step of `arange`, say).
    Invalid(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Overflow { dims } => write!(f, "shape [{dims}] is too large: its byte size overflows"),
            Error::OverBudget { what, bytes, max_bytes } => {
                write!(f, "{what} needs {bytes} live bytes, over the allocation budget of {max_bytes} bytes")
            }
            Error::LengthMismatch { expected, actual } => {
                write!(f, "data has {actual} elements but the shape needs {expected}")
            }
            Error::Npy(msg) => write!(f, "bad .npy data: {msg}"),
            Error::Npz(msg) => write!(f, "bad .npz archive: {msg}"),
            Error::Io(msg) | Error::Invalid(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Error {}
