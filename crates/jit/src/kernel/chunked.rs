//! Two-stage full reductions: a kernel whose every axis is reduced has an outer loop of
//! extent 1, so it could not be split across threads. When it is large, its reduced range
//! is cut into fixed chunks along its first non-trivial reduced axis instead, and the
//! kernel is compiled in two phases behind the usual ABI:
//!
//! - `start >= 0`: the outer loop runs chunks `[start, end)` of `[0, count)`; chunk `c`
//!   reduces its slice with the ordered reduction loop ([`super::ordered`], vector slots),
//!   writes its S_in results at their indices, and stores its partial result at element
//!   `c` of a scratch buffer passed as one more buffer pointer after the results;
//! - `start < 0`: the partials are combined pairwise (split at the largest power of two
//!   below the count, unrolled: the count is known when compiling) and the epilogue (the
//!   values depending on the reduction's result) is computed and stored once.
//!
//! The chunks are chosen from the shape only ([`chunking`]), never from the number of
//! threads, so the result has the same bits whatever the split of the chunks among
//! threads. Every chunk but the last holds a power of two of the cut level's items (blocks
//! of `BLOCK` elements when the cut axis is the last reduced one, indices of the axis
//! otherwise), starting at a multiple of that power: it is one complete subtree of the
//! pairwise order, and the last chunk is the rest of the tree's right edge. So the chunked
//! result is the interpreter's (`ferrax_ir::prim::sum_order`) bit for bit, float sums and
//! products included, with its error bound.

use super::analysis::{Plan, RedKind};
use super::lower::{Lower, mem};
use super::ordered::Slots;
use super::{KernelOptions, vector};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value as Cv};
use ferrax_ir::DType;
use ferrax_ir::prim::ReduceOp;
use ferrax_ir::prim::sum_order::{self, BLOCK};
use ferrax_ir::{Error, Func};

/// The fewest elements of one chunk: a chunk is 10–100 µs of work, far above the pool's
/// hand-off cost.
pub(crate) const MIN_CHUNK: usize = 1 << 14;

/// The most chunks (the scratch buffer of partials holds this many 8-byte elements).
pub(crate) const MAX_CHUNKS: usize = 256;

/// How a full reduction is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chunking {
    /// The position, among the reduced axes, of the axis cut into chunks.
    pub axis: usize,
    /// That axis' extent.
    pub extent: i64,
    /// Steps of that axis per chunk (the last chunk may be shorter).
    pub step: i64,
    /// The number of chunks, `⌈extent / step⌉` (at least 2).
    pub count: i64,
}

/// The chunking of `func` if it is a large full reduction (`reduce_*` over every axis)
/// that runs the vector reduction loop; `None` otherwise (the one-phase kernel).
pub(crate) fn chunking(func: &Func, plan: &Plan, opts: &KernelOptions, sse41: bool) -> Option<Chunking> {
    let red = plan.reduction.as_ref()?;
    if !opts.simd || !matches!(red.kind, RedKind::Reduce(_)) || !red.kept().is_empty() || red.axes.is_empty() {
        return None;
    }
    vector::reduce_lanes(func, plan, sse41)?;
    let n: usize = red.in_shape.iter().product();
    if n < 2 * MIN_CHUNK {
        return None;
    }
    let axis = red.axes.iter().position(|&a| red.in_shape[a] > 1)?;
    let extent = red.in_shape[red.axes[axis]];
    let target = MIN_CHUNK.max(n.div_ceil(MAX_CHUNKS));
    // The items of the cut level: blocks of the last reduced axis, else its indices; a
    // chunk is a power of two of them, so it is a complete subtree of the pairwise order.
    let (item, unit) = if axis == red.axes.len() - 1 { (BLOCK, BLOCK) } else { (1, n / extent) };
    let step = target.div_ceil(unit).next_power_of_two() * item;
    let count = extent.div_ceil(step);
    (count >= 2).then_some(Chunking { axis, extent: extent as i64, step: step as i64, count: count as i64 })
}

/// The pairwise combination of `parts` (at least one) with `op`: split at the largest
/// power of two below the count, as the interpreter's order does.
fn pairwise(lw: &mut Lower<'_, '_>, op: ReduceOp, dtype: DType, parts: &[Cv]) -> Cv {
    if parts.len() == 1 {
        return parts[0];
    }
    let (a, b) = parts.split_at(sum_order::pairwise_split(parts.len()));
    let x = pairwise(lw, op, dtype, a);
    let y = pairwise(lw, op, dtype, b);
    lw.combine(op, dtype, x, y)
}

impl Lower<'_, '_> {
    /// The two phases of a chunked full reduction (module docs); `partials` is the scratch
    /// buffer's pointer.
    pub(super) fn emit_chunked(&mut self, start: Cv, end: Cv, partials: Cv, ch: Chunking) -> Result<(), Error> {
        let Some(red) = self.plan.reduction.clone() else {
            return Err(self.err(None, "a chunked kernel needs a reduction"));
        };
        let RedKind::Reduce(op) = red.kind else {
            return Err(self.err(Some(red.eqn), "a chunked kernel needs a reduce_*"));
        };
        let dtype = self.func.ty(red.input).dtype;
        let ty = super::ops::cl_type(dtype);
        let (work, combine, done) = (self.fb.create_block(), self.fb.create_block(), self.fb.create_block());
        let second = self.fb.ins().icmp_imm_s(IntCC::SignedLessThan, start, 0);
        self.fb.ins().brif(second, combine, &[], work, &[]);

        self.fb.switch_to_block(work);
        self.fb.seal_block(work);
        let (lo, hi) = self.clamp_range(start, end, ch.count);
        let l = self.open_loop(lo, hi, 1);
        let a = self.fb.ins().imul_imm_s(l.iv, ch.step);
        let b = self.fb.ins().iadd_imm_s(a, ch.step);
        let extent = self.i64c(ch.extent);
        let b = self.fb.ins().smin(b, extent);
        let inner: Vec<usize> = red.axes.iter().map(|&x| red.in_shape[x]).collect();
        self.memo.clear();
        let r = self.reduce_ordered(&red, op, &[], &inner, Slots::Vector, Some((ch.axis, a, b)))?;
        let addr = self.addr(partials, l.iv, dtype);
        self.fb.ins().store(mem(), r, addr, 0);
        self.close_loop(l);
        self.memo.clear();
        self.fb.ins().jump(done, &[]);

        self.fb.switch_to_block(combine);
        self.fb.seal_block(combine);
        let parts: Vec<Cv> = (0..ch.count)
            .map(|c| {
                let at = self.i64c(c);
                let addr = self.addr(partials, at, dtype);
                self.fb.ins().load(ty, mem(), addr, 0)
            })
            .collect();
        let result = pairwise(self, op, dtype, &parts);
        self.memo.clear();
        self.fixed.insert(red.output, result);
        for k in 0..self.func.results.len() {
            if self.plan.epilogue[k] {
                self.store_result(k, &[])?;
            }
        }
        self.fixed.clear();
        self.memo.clear();
        self.fb.ins().jump(done, &[]);

        self.fb.switch_to_block(done);
        self.fb.seal_block(done);
        Ok(())
    }
}
