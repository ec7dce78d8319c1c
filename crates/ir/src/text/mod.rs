//! The text form of the IR (DESIGN section 2.1): parsing and canonical printing.
//!
//! [`parse`] reads a module and checks its syntax, names and attributes (types are
//! the verifier's business); [`parse_with_spans`] also returns a [`SourceMap`] that
//! maps a Func and equation index back to a line and column. [`print`] writes the
//! canonical form, in which values are renumbered `%0..` in definition order and
//! floats are shortest round-trip, so `print(parse(print(m)))` equals `print(m)`.

mod lexer;
mod parser;
mod printer;

pub use parser::{MAX_NESTING, SourceMap, parse, parse_with_spans};
pub use printer::{PrintOptions, print, print_func, print_with};
