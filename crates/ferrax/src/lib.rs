//! ferrax: JAX-style tracing, automatic differentiation and compilation in Rust.
//!
//! This crate is the project's only API boundary. A user writes an ordinary closure
//! over symbolic [`Tensor`]s; [`trace`] records it as an IR module ([`make_ir`] prints
//! it, with the user's source lines), and [`eval`] runs it with the reference
//! interpreter; the transforms (`grad`, `jvp`, `vjp`, `hvp`, `vmap`, Jacobians) work on
//! closures, and [`jit`] compiles any of them to native code with Cranelift.
//! [`transforms`] has every transform as a function of `f` whose result the others
//! take again (`jit(transforms::hvp(f))`, `vmap(transforms::jvp(f))`).
//!
//! ```
//! use ferrax::{DType, Type, make_ir};
//! let ir = make_ir(|[x, y]: [ferrax::Tensor; 2]| (&x + &y) * y.sin(), &[Type::scalar(DType::F32), Type::scalar(DType::F32)]).unwrap();
//! assert!(ir.contains("sin"));
//! ```
//!
//! # Quickstart
//!
//! `grad`, `vmap` and the IR of a gradient (`crates/ferrax/docs/quickstart.rs`, compiled
//! and run as this doctest); `docs/guide.md` is the user guide and
//! `crates/ferrax/examples/` has runnable programs.
#![doc = concat!("```\n", include_str!("../docs/quickstart.rs"), "```")]

mod api;
pub mod autodiff;
pub mod batching;
mod constant;
pub mod control;
pub mod custom;
pub mod implicit;
mod jit;
pub mod lax;
pub mod linalg;
pub mod mixed;
pub mod nn;
pub mod ntk;
pub mod ops;
pub mod optim;
mod pmap;
pub mod random;
pub mod solve;
mod traceable;
mod tracer;
pub mod transforms;
pub mod tree;
mod zero;

pub use api::{Error, Traced, eval, make_ir, trace, trace_with_consts};
#[allow(deprecated)]
pub use autodiff::jvp_apply;
pub use autodiff::{
    CheckpointReport, Grad, GradAux, ValueAndGrad, ValueAndGradAux, grad, hvp, jvp, value_and_grad, vjp,
};
pub use batching::{Hessian, Jacobian, JacobianAux, Vmap, hessian, jacfwd, jacrev, vmap};
pub use constant::constant;
pub use control::{Branch, ScanOptions, cond, fori_loop, scan, scan_with, switch, while_loop};
pub use custom::{CustomJvp, CustomVjp, custom_jvp, custom_vjp};
pub use ferrax_jit::{Communicator, Executable, JitOptions};
pub use implicit::{custom_linear_solve, custom_root};
pub use jit::{Compiled, Jit, Lowered, jit, jit_module, jit_with};
pub use ops::compare::where_;
pub use ops::create::{arange, iota};
pub use ops::index::{Idx, i, s};
pub use ops::operand::Operand;
pub use ops::shape::{concat, stack};
pub use ops::{Axes, Scalar};
pub use pmap::{Pmap, PmapStep, pmap};
pub use traceable::{TraceOnce, Traceable};
pub use tracer::{Tensor, TraceError};
pub use tree::{StructureError, Tree, tree_leaves, tree_map, tree_structure, tree_unflatten, tree_zip_map};

pub use ferrax_dist as dist;
pub use ferrax_ir as ir;
pub use ferrax_ir::{Array, DType, Module, Type};

/// Derives [`Tree`](trait@Tree) for a struct generic over its leaf type; see [`tree`].
#[cfg(feature = "derive")]
pub use ferrax_derive::Tree;

// The README's and the guide's Rust snippets, compiled and run as doctests so that they
// stay true. Only the repository has them (a packaged crate's doctests skip them): the
// cfg comes first, so a build outside doctests never reads the files.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide.md")]
pub struct GuideDoctests;
