//! Two-stage full reductions: a kernel whose every axis is reduced has an outer loop of
//! extent 1, so it could not be split across threads. When it is large, its reduced range
//! is cut into fixed chunks along its first non-trivial reduced axis instead, and the
//! kernel is compiled in two phases behind the usual ABI:
//!
//! - `start >= 0`: the outer loop runs chunks `[start, end)` of `[0, count)`; chunk `c`
//!   reduces its slice with the vector reduction loop (`vector`), writes its S_in results
//!   at their indices, and stores its partial result at element `c` of a scratch buffer
//!   passed as one more buffer pointer after the results;
//! - `start < 0`: the partials are combined in chunk order (sequentially, from the
//!   identity) and the epilogue (the values depending on the reduction's result) is
//!   computed and stored once.
//!
//! The chunks are chosen from the shape only ([`chunking`]), never from the number of
//! threads, so the result has the same bits whatever the split of the chunks among
//! threads. Rounding: a float sum is the sum of `count` partials each within the vector
//! loop's bound for its chunk of `m` elements, `(⌈m/(4·lanes)⌉ + 2 + lanes + tail)·u·Σ|x|`,
//! plus `(count - 1)·u·Σ|x|` for the sequential combination: smaller than one vector loop
//! over the whole range (at most [`MAX_CHUNKS`] partials of at least [`MIN_CHUNK`]
//! elements). i32 sums and max/min stay exact (their combination is associative).

use super::lower::{Lower, mem};
use super::plan::{Plan, RedKind};
use super::{KernelOptions, vector};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value as Cv};
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
    let unit = n / extent; // the elements of one step of the cut axis
    let target = MIN_CHUNK.max(n.div_ceil(MAX_CHUNKS));
    let mut step = target.div_ceil(unit);
    if axis == red.axes.len() - 1 {
        // The vectorised axis: chunks of whole groups of four vectors (lanes <= 4).
        step = step.div_ceil(16) * 16;
    }
    let count = extent.div_ceil(step);
    (count >= 2).then_some(Chunking { axis, extent: extent as i64, step: step as i64, count: count as i64 })
}

impl Lower<'_, '_> {
    /// The two phases of a chunked full reduction (module docs); `partials` is the scratch
    /// buffer's pointer.
    pub(super) fn emit_chunked(
        &mut self,
        start: Cv,
        end: Cv,
        partials: Cv,
        ch: Chunking,
        lanes: u32,
    ) -> Result<(), Error> {
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
        let r = self.reduce_vector(&red, op, &[], &inner, lanes, Some((ch.axis, a, b)))?;
        let addr = self.addr(partials, l.iv, dtype);
        self.fb.ins().store(mem(), r, addr, 0);
        self.close_loop(l);
        self.memo.clear();
        self.fb.ins().jump(done, &[]);

        self.fb.switch_to_block(combine);
        self.fb.seal_block(combine);
        let acc = self.fb.declare_var(ty);
        let id = self.identity(op, dtype);
        self.fb.def_var(acc, id);
        let (lo, hi) = (self.i64c(0), self.i64c(ch.count));
        let l = self.open_loop(lo, hi, 1);
        let addr = self.addr(partials, l.iv, dtype);
        let x = self.fb.ins().load(ty, mem(), addr, 0);
        let cur = self.fb.use_var(acc);
        let next = self.combine(op, dtype, cur, x);
        self.fb.def_var(acc, next);
        self.close_loop(l);
        let result = self.fb.use_var(acc);
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
