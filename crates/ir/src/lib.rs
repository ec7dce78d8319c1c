//! The ferrax IR: a static, typed SSA language of tensor primitives.
//!
//! Everything else in ferrax produces or consumes it: the tracer emits it, the
//! transforms rewrite it, the JIT compiles it. This crate holds the language itself:
//! [`Type`]s, [`Func`]s and [`Module`]s, the primitive set [`Prim`] with every rule of
//! each primitive grouped by family (`prim/`), the [`Builder`], the text form
//! ([`parse`] and [`print()`]), the verifier ([`verify`]) and the reference interpreter
//! ([`eval`]), which is the executable definition of the IR.
//!
//! Architecture invariant: this crate knows nothing of Cranelift or of tracing.

pub mod attr;
mod builder;
pub mod emit;
mod error;
mod func;
pub mod interp;
pub mod prim;
pub mod spill;
pub mod text;
mod types;
mod verify;

#[cfg(feature = "testing")]
pub mod testing;

pub use attr::AttrValue;
pub use error::{Error, Place};
pub use func::{Eqn, Func, LastUse, Module, Value};
pub use interp::{EvalOptions, eval, eval_entry};
pub use prim::Prim;
pub use text::{PrintOptions, SourceMap, parse, parse_with_spans, print, print_func, print_with};
pub use types::{Type, format_types};

pub use builder::Builder;
pub use emit::Emitter;
pub use ferrax_array as array;
pub use ferrax_array::{Array, DType, Shape};
pub use verify::{MAX_NESTING, verify, verify_func};
