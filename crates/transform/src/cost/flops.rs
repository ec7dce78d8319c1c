//! Flops of one equation of a non-structured primitive.
//!
//! The weights: an elementwise primitive costs one flop per output element
//! (`clamp` two: a max and a min); a transcendental (`exp`, `log`, `log1p`, `expm1`,
//! `sin`, `cos`, `tan`, `tanh`, `logistic`, `erf`, `pow`, `atan2`) also counts one flop
//! per element, and each of its elements is counted again in
//! [`FuncCost::transcendentals`](super::FuncCost::transcendentals), as XLA's cost
//! analysis does, so a reader can weigh them as the target makes them cost;
//! `integer_pow[y]` costs the multiplications of exponentiation by squaring;
//! `dot_general` costs 2·M·N·K (a multiply and an add per term); reductions, `argmax`,
//! `argmin` and `cumsum` one flop per input element; `scatter_add` one per update
//! element; `random_bits` [`RANDOM_BITS_FLOPS`] per element (the Threefry rounds);
//! data movement (`broadcast_in_dim`, `reshape`, `transpose`, `rev`, `slice`, `pad`,
//! `concatenate`, `iota`, `constant`, `dynamic_slice`, `dynamic_update_slice`,
//! `gather`, `convert`, `stop_gradient`, `name`) costs none. Structured primitives are
//! costed by their bodies (see `cost.rs`); here they count zero.

use ferrax_ir::prim::{Prim, UnaryOp};
use ferrax_ir::{Eqn, Func, Type};

/// Flops charged per element of `random_bits` (20 Threefry-2x32 rounds of an add, a
/// rotate and a xor, shared by two 32-bit outputs, rounded).
pub const RANDOM_BITS_FLOPS: u64 = 20;

/// `(flops, transcendentals)` of `eqn` in `func`, for a non-structured primitive.
pub(super) fn eqn_flops(func: &Func, eqn: &Eqn) -> (u64, u64) {
    let elements = |ty: &Type| ty.element_count().unwrap_or(usize::MAX) as u64;
    let out = eqn.outputs.first().map_or(0, |&o| elements(func.ty(o)));
    let input = |k: usize| eqn.inputs.get(k).map_or(0, |&v| elements(func.ty(v)));
    match &eqn.prim {
        Prim::Unary(op) => match op {
            UnaryOp::Exp
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Expm1
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Tan
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Erf => (out, out),
            UnaryOp::Neg
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Abs
            | UnaryOp::Sign
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Round
            | UnaryOp::Not
            | UnaryOp::IsFinite => (out, 0),
        },
        Prim::Binary(op) => match op {
            ferrax_ir::prim::BinaryOp::Pow | ferrax_ir::prim::BinaryOp::Atan2 => (out, out),
            ferrax_ir::prim::BinaryOp::Add
            | ferrax_ir::prim::BinaryOp::Sub
            | ferrax_ir::prim::BinaryOp::Mul
            | ferrax_ir::prim::BinaryOp::Div
            | ferrax_ir::prim::BinaryOp::Rem
            | ferrax_ir::prim::BinaryOp::Max
            | ferrax_ir::prim::BinaryOp::Min
            | ferrax_ir::prim::BinaryOp::And
            | ferrax_ir::prim::BinaryOp::Or => (out, 0),
        },
        Prim::IntegerPow { y } => {
            // Exponentiation by squaring: squarings plus the extra multiplications
            // (and a reciprocal for a negative exponent).
            let n = y.unsigned_abs();
            let mults = if n == 0 { 0 } else { u64::from(31 - n.leading_zeros() + n.count_ones() - 1) };
            let recip = u64::from(*y < 0);
            (out.saturating_mul((mults + recip).max(1)), 0)
        }
        Prim::Compare(_) | Prim::Select => (out, 0),
        Prim::Clamp => (out.saturating_mul(2), 0),
        Prim::DotGeneral(d) => {
            let lhs = eqn.inputs.first().map(|&v| func.ty(v));
            let k: u64 = lhs
                .map_or(0, |t| d.lhs_contract.iter().map(|&a| t.shape.get(a).copied().unwrap_or(0) as u64).product());
            (out.saturating_mul(k).saturating_mul(2), 0)
        }
        Prim::Reduce { .. } | Prim::ArgReduce { .. } | Prim::Cumsum { .. } => (input(0), 0),
        Prim::ScatterAdd { .. } => (input(2), 0),
        Prim::RandomBits { .. } => (out.saturating_mul(RANDOM_BITS_FLOPS), 0),
        Prim::Convert { .. }
        | Prim::StopGradient
        | Prim::Name { .. }
        | Prim::BroadcastInDim { .. }
        | Prim::Reshape { .. }
        | Prim::Transpose { .. }
        | Prim::Rev { .. }
        | Prim::Slice { .. }
        | Prim::Pad { .. }
        | Prim::Concatenate { .. }
        | Prim::Iota { .. }
        | Prim::Constant { .. }
        | Prim::DynamicSlice { .. }
        | Prim::DynamicUpdateSlice
        | Prim::Gather { .. } => (0, 0),
        Prim::Call { .. }
        | Prim::Cond { .. }
        | Prim::While { .. }
        | Prim::Scan(_)
        | Prim::CustomJvp { .. }
        | Prim::CustomVjp { .. }
        | Prim::Remat { .. } => (0, 0),
    }
}
