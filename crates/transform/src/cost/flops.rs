//! Flops of one equation of a non-structured primitive.
//!
//! The weights: an elementwise primitive costs one flop per output element
//! (`clamp` two: a max and a min); a transcendental (`exp`, `log`, `log1p`, `expm1`,
//! `sin`, `cos`, `tan`, `tanh`, `logistic`, `erf`, `pow`, `atan2`) also counts one flop
//! per element, and each of its elements is counted again in
//! [`FuncCost::transcendentals`](super::FuncCost::transcendentals), as XLA's cost
//! analysis does, so a reader can weigh them as the target makes them cost;
//! `integer_pow[y]` costs the multiplications of exponentiation by squaring;
//! `dot_general` costs 2·M·N·K (a multiply and an add per term), `conv_general_dilated`
//! 2·out·window·I (the kernel's taps times its input features per group), `cholesky` n³/3 a
//! matrix and `triangular_solve` m²·n (as 2·out·K with K = n/6 and m/2); reductions, `argmax`,
//! `argmin` and `cumsum` one flop per input element; `scatter_add` one per update
//! element; `random_bits` [`RANDOM_BITS_FLOPS`] per element (the Threefry rounds);
//! `sort` and `top_k` `⌈log2 n⌉` comparisons per element and key (n the sorted axis'
//! length, a comparison sort's count; see [`sort_flops`]);
//! data movement (`broadcast_in_dim`, `reshape`, `transpose`, `rev`, `slice`, `pad`,
//! `concatenate`, `iota`, `constant`, `dynamic_slice`, `dynamic_update_slice`,
//! `gather`, `convert`, `stop_gradient`, `name`) costs none. Structured primitives are
//! costed by their bodies (see `cost.rs`); here they count zero.

use ferrax_ir::prim::{Flops, SortOp};
use ferrax_ir::{Eqn, Func, Type};

pub use ferrax_ir::prim::random::RANDOM_BITS_FLOPS;

/// `(flops, transcendentals)` of `eqn` in `func`, for a non-structured primitive, by
/// its row of the property table ([`ferrax_ir::prim::Props::flops`]).
pub(super) fn eqn_flops(func: &Func, eqn: &Eqn) -> (u64, u64) {
    let elements = |ty: &Type| ty.element_count().unwrap_or(usize::MAX) as u64;
    let out = eqn.outputs.first().map_or(0, |&o| elements(func.ty(o)));
    let input = |k: usize| eqn.inputs.get(k).map_or(0, |&v| elements(func.ty(v)));
    match eqn.prim.props().flops {
        Flops::None | Flops::Bodies => (0, 0),
        Flops::PerOutput(n) => (out.saturating_mul(n), 0),
        Flops::Transcendental => (out, out),
        Flops::IntegerPow(y) => {
            // Exponentiation by squaring: squarings plus the extra multiplications
            // (and a reciprocal for a negative exponent).
            let n = y.unsigned_abs();
            let mults = if n == 0 { 0 } else { u64::from(31 - n.leading_zeros() + n.count_ones() - 1) };
            let recip = u64::from(y < 0);
            (out.saturating_mul((mults + recip).max(1)), 0)
        }
        Flops::Contraction => {
            let rhs = eqn.inputs.get(1).map(|&v| func.ty(v));
            let k = eqn.inputs.first().map_or(0, |&lhs| eqn.prim.contracted_size(func.ty(lhs), rhs));
            (out.saturating_mul(k).saturating_mul(2), 0)
        }
        Flops::PerInputElement(k) => (input(k), 0),
    }
}

/// Flops of a `sort` or `top_k`: `⌈log2 n⌉` comparisons per element of each key
/// operand (`n` the length of the sorted axis; at least one per element).
pub(super) fn sort_flops(func: &Func, eqn: &Eqn, op: SortOp) -> u64 {
    let Some(first) = eqn.inputs.first().map(|&v| func.ty(v)) else { return 0 };
    let elements = first.element_count().unwrap_or(usize::MAX) as u64;
    let (axis, keys) = match op {
        SortOp::Sort { dimension, is_stable: _, num_keys } => (dimension, num_keys),
        SortOp::TopK { k: _ } => (first.rank().saturating_sub(1), 1),
    };
    let n = first.shape.get(axis).copied().unwrap_or(1).max(1) as u64;
    let depth = u64::from(64 - (n - 1).leading_zeros()).max(1);
    elements.saturating_mul(depth).saturating_mul(keys as u64)
}
