//! The reference interpreter: the executable definition of the IR, and the oracle
//! every transform, the fuser and the JIT are tested against.
//!
//! [`eval`] runs one Func of a [`Module`] on host [`Array`]s, equation by equation, in
//! the order written. Each primitive family's evaluation rule lives beside its type
//! rule in `prim/` (`eval_*` functions); this module holds the driver and the
//! structured primitives:
//!
//! - `call`, `custom_jvp`, `custom_vjp` and `remat` run their `func` (the custom rules
//!   and the remat policy only matter to transforms);
//! - `offload` writes its operand to the run's spill file ([`crate::spill`]) and keeps
//!   only its place there; an equation reading the offloaded value (`reload`) reads it
//!   back. The file is removed when the run ends, also on error;
//! - `cond` runs the branch picked by an i32 index clamped to `[0, n-1]`, or by a bool
//!   (true → branch 1, false → branch 0);
//! - `while` calls `cond`, then `body` while it holds; with `max_iters=N` it stops
//!   after at most N iterations;
//! - `scan` calls its body once per leading index of the `xs` (from the last to the
//!   first when `reverse`), threading the carry; output t of the body becomes slice t
//!   of each `ys`, whatever the direction; `checkpoint` does not change results.
//!
//! Limits, so that no module can crash or hang the process:
//!
//! - The [`Budget`] bounds the bytes of all live buffers: the arguments, and every
//!   buffer the run creates while it is alive. Before an equation runs, the bytes of
//!   its results are computed from their declared types with overflow-checked
//!   arithmetic and checked against the budget; an excess is an error naming the
//!   equation. Values are dropped after their last use, and shared (not copied) when
//!   passed to a callee or returned.
//! - Fuel: when [`EvalOptions::fuel`] is set, every iteration of a `while` or `scan`
//!   consumes one unit; running out is an error naming the loop.
//! - Calls nest at most [`MAX_CALL_DEPTH`] deep.
//! - Every error is an [`Error::Eval`] naming the Func, the equation and the primitive;
//!   a malformed (unverified) module gives an error, not a panic.

mod loops;
mod release;
mod run;
mod value;

#[cfg(test)]
mod tests;

use crate::{Error, Module, Place};
use ferrax_array::{Array, Budget};

/// How deep calls into Funcs may nest (the entry counts as depth 1).
pub const MAX_CALL_DEPTH: usize = 256;

/// The limits of one run.
#[derive(Clone, Debug, Default)]
pub struct EvalOptions {
    /// Bounds the bytes of all live buffers, arguments included (default: half of
    /// physical memory).
    pub budget: Budget,
    /// The most loop iterations (`while` and `scan` steps, all loops together) the run
    /// may take; `None` for no limit.
    pub fuel: Option<u64>,
    /// Where `offload` writes the run's spill file (created if missing; the file is
    /// removed when the run ends). `None`: `$FERRAX_SPILL_DIR`, else the system's
    /// temporary directory ([`crate::spill::spill_dir`]).
    pub spill_dir: Option<std::path::PathBuf>,
}

/// Runs the Func `func` of `module` on `args` and returns its results.
///
/// The arguments must match the Func's parameter types exactly; an error names the
/// argument (counted from 0): `argument 1 of @f: expected f32[2,3], got f64[2,3]`. The
/// module should have passed the verifier; an ill-formed one gives an error, not a panic.
pub fn eval(module: &Module, func: &str, args: &[Array], options: &EvalOptions) -> Result<Vec<Array>, Error> {
    run::Interp::new(module, options).run(func, args)
}

/// Runs the entry of `module` (its first Func) on `args`; see [`eval`].
pub fn eval_entry(module: &Module, args: &[Array], options: &EvalOptions) -> Result<Vec<Array>, Error> {
    let (name, _) = module
        .funcs
        .get_index(0)
        .ok_or_else(|| Error::eval(Place::default(), "the module has no Funcs, so it has no entry to run"))?;
    eval(module, name, args, options)
}
