//! The optimisation pipeline: [`inline_calls`](crate::inline_calls), then
//! [`fold`](crate::fold), [`simplify`](crate::simplify), [`hoist`](crate::hoist),
//! [`cse`](crate::cse) and [`dce`](crate::dce) repeated until the module stops
//! changing (at most [`MAX_ROUNDS`] rounds). No pass reassociates arithmetic, so the
//! optimised module gives bit-identical results (NaN payloads aside). The entry keeps
//! its name (the clean-up passes never change its signature): the result is the same
//! program, smaller. Loop bodies keep theirs too unless a body shared by several loops
//! had to be cloned (`@b_2`).
//!
//! `hoist` runs after `simplify`, so constants a body folds to stay visible to `fold`
//! and `simplify` (they are copied out, not hoisted), and before `cse`, so work hoisted
//! out of two loops merges in the enclosing Func.

use ferrax_ir::{Error, Module};

/// The most rounds of fold + simplify + hoist + cse + dce that [`opt`] runs.
pub const MAX_ROUNDS: usize = 16;

/// The optimised module: its entry first, then the Funcs it still refers to; verified.
pub fn opt(module: &Module) -> Result<Module, Error> {
    let mut current = crate::inline_calls(module)?;
    for _ in 0..MAX_ROUNDS {
        let next = crate::dce(&crate::cse(&crate::hoist(&crate::simplify(&crate::fold(&current)?))));
        // Structural sameness, not `==`: a NaN constant is never `==` to itself.
        if crate::equality::same_module(&next, &current) {
            break;
        }
        current = next;
    }
    let entry = crate::entry(&current)?.clone();
    let out = crate::assemble(entry, &current);
    ferrax_ir::verify(&out)?;
    Ok(out)
}
