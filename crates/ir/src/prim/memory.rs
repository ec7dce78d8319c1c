//! Where a value lives between the forward and the backward pass: `offload` and
//! `reload`.
//!
//! Both are the identity on their operand's value and type. What they change is where
//! the value is kept: `offload(x)` writes `x` to the run's spill file and gives a value
//! that occupies no memory, `reload(h)` reads it back. Reverse mode emits them for a
//! `remat[policy="offload"]` region (each residual offloaded right after the forward
//! pass computes it, reloaded where the backward pass first reads it), so that the
//! region's residuals are out of memory in between; they are also valid anywhere else.
//!
//! - The interpreter writes the operand of `offload` to a spill file in
//!   `EvalOptions::spill_dir` and keeps only its place in the file; any equation that
//!   reads the offloaded value (usually `reload`) reads it back first. The file is
//!   created at the first `offload` of a run and removed when the run ends, whether it
//!   succeeds or fails.
//! - The JIT does the same with its own steps where the offloaded value is read only by
//!   `reload`s of the same Func and is not a result; elsewhere both are copies.
//! - jvp: the tangent goes the same way (`offload` of the tangent); transpose: the
//!   cotangent passes through unchanged (both are linear identities); batching: the
//!   batch axis stays where it is.
//! - Bits are written and read back unchanged, so results are bit-identical to a run
//!   without them.

use super::batch::Batched;
use super::props::{Class, Props};
use crate::{Emitter, Prim, Type, Value};

/// The memory family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryOp {
    /// `offload(x)`: `x`, kept in the spill file instead of memory.
    Offload,
    /// `reload(h)`: an offloaded value back in memory.
    Reload,
}

impl Prim {
    /// `offload`: its operand, kept in the spill file until a `reload` reads it.
    pub fn offload() -> Prim {
        Prim::Memory(MemoryOp::Offload)
    }

    /// Whether this is an `offload` (the cost model, the memory planners and the
    /// residual report treat its result as out of memory).
    pub fn is_offload(&self) -> bool {
        *self == Prim::Memory(MemoryOp::Offload)
    }
}

impl MemoryOp {
    /// The op's name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            MemoryOp::Offload => "offload",
            MemoryOp::Reload => "reload",
        }
    }

    /// The op named `name` (neither has attributes).
    pub(crate) fn blank(name: &str) -> Option<MemoryOp> {
        match name {
            "offload" => Some(MemoryOp::Offload),
            "reload" => Some(MemoryOp::Reload),
            _ => None,
        }
    }
}

/// The type rule: one operand of any type, returned as it is.
pub(crate) fn infer(op: MemoryOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    super::unary::infer_identity(op.name(), inputs)
}

/// The jvp rule: the tangent moves like the primal (a symbolic zero stays one).
pub(crate) fn jvp(em: &mut Emitter, op: MemoryOp, tangents: &[Option<Value>]) -> Result<Vec<Option<Value>>, String> {
    match tangents {
        [Some(t)] => Ok(vec![Some(em.op(op, &[*t])?)]),
        [None] => Ok(vec![None]),
        _ => Err(super::arity(1, tangents.len())),
    }
}

/// The transpose rule: both are the identity, so the cotangent passes through.
pub(crate) fn transpose(op: MemoryOp, cts: &[Option<Value>]) -> Result<Vec<Option<Value>>, String> {
    match op {
        MemoryOp::Offload | MemoryOp::Reload => Ok(cts.to_vec()),
    }
}

/// The batching rule: the op on the batched operand, whose batch axis stays.
pub(crate) fn batch(
    em: &mut Emitter,
    op: MemoryOp,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    match (inputs, dims) {
        ([x], [d]) => Ok((vec![em.op(op, &[*x])?], vec![*d])),
        _ => Err(format!("{}: {}", op.name(), super::arity(1, inputs.len()))),
    }
}

/// The property-table row: a launch of its own (never fused: it does I/O), no flops.
pub(crate) fn props(op: MemoryOp) -> Props {
    match op {
        MemoryOp::Offload | MemoryOp::Reload => Props { identity: true, ..Props::movement(Class::Launch) },
    }
}
