//! The error type of the IR crate: every error names its place.

use std::fmt;

/// Where in a module something went wrong.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Place {
    /// The Func's name (without `@`).
    pub func: String,
    /// The equation's index in the Func, if the error is in one.
    pub eqn: Option<usize>,
    /// The primitive's name, if the error is in an equation.
    pub prim: Option<String>,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in @{}", self.func)?;
        if let Some(eqn) = self.eqn {
            write!(f, ", equation {eqn}")?;
        }
        if let Some(prim) = &self.prim {
            write!(f, " ({prim})")?;
        }
        Ok(())
    }
}

/// An error from parsing, verifying or evaluating IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Malformed text, at a 1-based line and column.
    Parse {
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        col: usize,
        /// What is wrong.
        message: String,
    },
    /// A module that breaks a rule of the IR.
    Verify {
        /// Where.
        place: Place,
        /// What is wrong, with both sides of a mismatch.
        message: String,
    },
    /// A failure while running a module (bad arguments, budget, fuel).
    Eval {
        /// Where.
        place: Place,
        /// What is wrong.
        message: String,
    },
    /// A transform that cannot be applied (a missing rule, reverse mode through an
    /// unbounded loop, a bad `wrt`).
    Transform {
        /// Where.
        place: Place,
        /// What is wrong.
        message: String,
    },
    /// A host-data error (sizes, budget, `.npy`).
    Array(ferrax_array::Error),
}

impl Error {
    /// A verifier error in `func`, optionally at an equation.
    pub fn verify(place: Place, message: impl Into<String>) -> Error {
        Error::Verify { place, message: message.into() }
    }

    /// A transform error at `place`.
    pub fn transform(place: Place, message: impl Into<String>) -> Error {
        Error::Transform { place, message: message.into() }
    }

    /// An evaluation error at `place`.
    pub fn eval(place: Place, message: impl Into<String>) -> Error {
        Error::Eval { place, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse { line, col, message } => write!(f, "{line}:{col}: {message}"),
            Error::Verify { place, message } | Error::Eval { place, message } | Error::Transform { place, message } => {
                write!(f, "{place}: {message}")
            }
            Error::Array(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<ferrax_array::Error> for Error {
    fn from(e: ferrax_array::Error) -> Error {
        Error::Array(e)
    }
}
