//! IR-to-IR transforms: forward mode ([`jvp`]), reverse mode ([`linearize`],
//! [`transpose`], [`vjp`], [`grad`], [`value_and_grad`]), their composition [`hvp`],
//! and the clean-up passes.
//!
//! The clean-up passes never change a result, bit for bit (NaN payloads aside; no pass
//! reassociates floating-point arithmetic, and no option to do so exists: the declared
//! reassociation is none):
//!
//! - [`dce`]: drops equations whose outputs are unused, and the unused parts of
//!   structured primitives: `scan` ys and dead carries (a dependency fixpoint), `while`
//!   carries neither the cond nor a kept carry reads, `cond` outputs (from every
//!   branch), `call` results (the callee is specialised), then operands no body reads;
//!   bodies recursively; Funcs no longer referred to go.
//! - [`hoist`]: moves loop-invariant equations out of `scan` bodies (they read only
//!   consts) and `while` bodies and conds (they read only carries the body returns
//!   unchanged), into the enclosing Func, recursively through nested loops.
//! - [`inline_calls`]: replaces each `call` by its callee's equations.
//! - [`cse`]: merges equations with the same primitive, attributes and inputs
//!   (constants by value bits; structured primitives too, all primitives being pure).
//! - [`fold`]: evaluates equations on constants with the reference interpreter when the
//!   result has at most [`FOLD_LIMIT`] elements, and elementwise equations on splat
//!   constants at any size; uniform results stay splats.
//! - [`simplify`]: exact algebraic rewrites (`x*1`, `x+(-0.0)`, `x-0.0`, `x/1`,
//!   `neg(neg x)`, reshape/transpose/exact convert chains, `select` on a constant
//!   predicate, `broadcast_in_dim` of a splat); the module docs list each rule and the
//!   ones deliberately left out (`0*x`, `x+0.0`).
//! - [`merge_identical_funcs`]: sends references to a Func the same as an earlier
//!   one (name aside) to that one; the JIT runs it on fused modules, so identical
//!   kernels compile once.
//! - [`opt`]: `inline_calls`, then `fold`, `simplify`, `hoist`, `cse` and `dce`
//!   repeated to a fixed point (at most [`MAX_ROUNDS`] rounds); the result is verified.
//!   The corpus `ir/opt` shows each rewrite, and the ones that must not happen.
//!
//! Naming (a project decision): the clean-up passes keep Func names. The
//! `@<name>_<pass>` naming of `ir/README.md` is for passes that change what a Func computes or its signature;
//! the clean-up passes return the same program, so the entry (and every root: a Func
//! no equation refers to) keeps its name and signature. A body whose signature a
//! clean-up pass changes keeps its name when one equation uses it, and is cloned as
//! `@<name>_2` (the next free suffix) when several do, so each user stays consistent.
//!
//! Every differentiating or batching pass takes a module, transforms its entry (the
//! first Func), and returns a new module whose entry is the result, named
//! `@<name>_<pass>`, followed by the Funcs it refers to. The per-primitive rules live beside each primitive in
//! `ferrax_ir::prim` (`jvp`, `transpose`); this crate holds the drivers that run them:
//! symbolic zeros (`None` tangents and cotangents) are never materialised except at the
//! boundaries (results, loop carries), and cotangents of a value used several times
//! accumulate with `add`.
//!
//! Reverse mode is transpose ∘ linearize ∘ jvp: no primitive has a hand-written VJP.
//! It goes through control flow: `scan` (with `checkpoint=K`), `cond`, `while` bounded
//! by `max_iters`, `remat` regions with their policies and `custom_vjp`'s rules (see
//! `partial/`); [`saved_residuals`] reports what the backward pass keeps.

pub mod check;
mod checkpoint;
mod cost;
mod cse;
mod custom;
mod dce;
mod dot;
mod equality;
mod fold;
mod hoist;
mod inline;
mod jac;
mod jvp;
mod linear;
mod opt;
mod partial;
mod residuals;
mod simplify;
mod vjp;
mod vmap;
mod wrt;

pub use check::{Modes, Tolerance, check_grads};
pub use checkpoint::{CheckpointReport, MAX_RELAX, grad_with_budget, value_and_grad_with_budget};
pub use cost::{
    Cost, FuncCost, RANDOM_BITS_FLOPS, cost, cost_with_residuals, offloaded_bytes_by_dtype, peak_live_bytes,
    residual_bytes_by_dtype,
};
pub use cse::{cse, cse_func};
pub use dce::dce;
pub use dot::dot;
pub use equality::merge_identical_funcs;
pub use fold::{FOLD_LIMIT, fold};
pub use hoist::hoist;
pub use inline::inline_calls;
pub use jac::{hessian, jacfwd, jacrev};
pub use jvp::jvp;
pub use linear::{linearize, transpose};
pub use opt::{MAX_ROUNDS, opt};
pub use residuals::{Residual, saved_residuals};
pub use simplify::simplify;
pub use vjp::{grad, hvp, value_and_grad, vjp};
pub use vmap::{vmap, vmap_named};
pub use wrt::Wrt;

use ferrax_ir::{Error, Func, Module, Place};

/// A transform error in `func`.
pub(crate) fn error(func: &str, message: impl Into<String>) -> Error {
    Error::transform(Place { func: func.to_string(), eqn: None, prim: None }, message)
}

/// The entry of `module`, or an error.
pub(crate) fn entry(module: &Module) -> Result<&Func, Error> {
    module.entry().ok_or_else(|| error("", "the module has no Func to transform"))
}

/// A module holding `entry` first, then every Func of `pool` it refers to,
/// transitively, in first-reference order.
pub(crate) fn assemble(mut entry: Func, pool: &Module) -> Module {
    // A transformed entry keeps the axis names the original declares (its bodies'
    // collectives may rely on them), unless the pass declared its own.
    if entry.attr("axis_names").is_none()
        && let Some(original) = pool.entry()
    {
        entry.set_axis_names(&original.axis_names());
    }
    let mut module = Module::new();
    let mut queue: Vec<String> = Vec::new();
    let collect = |func: &Func, queue: &mut Vec<String>| {
        for eqn in &func.eqns {
            queue.extend(eqn.prim.callees().into_iter().map(String::from));
        }
    };
    collect(&entry, &mut queue);
    let entry_name = entry.name.clone();
    module.push(entry);
    let mut next = 0;
    while next < queue.len() {
        let name = queue[next].clone();
        next += 1;
        if name == entry_name || module.funcs.contains_key(&name) {
            continue;
        }
        if let Some(func) = pool.func(&name) {
            collect(func, &mut queue);
            module.push(func.clone());
        }
    }
    module
}

/// A Func name not used in `module`: `base`, else `base_2`, `base_3`, ...
pub(crate) fn fresh_name(module: &Module, base: &str) -> String {
    if !module.funcs.contains_key(base) {
        return base.to_string();
    }
    (2..).map(|i| format!("{base}_{i}")).find(|n| !module.funcs.contains_key(n)).unwrap_or_default()
}
