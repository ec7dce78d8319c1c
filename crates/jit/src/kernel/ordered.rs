//! The reduction loop of one S_out element in the interpreter's blocked pairwise order
//! (`ferrax_ir::prim::sum_order`), so that float sums and products come out with the
//! interpreter's bits.
//!
//! Per S_out element, the reduced axes other than the last are loops whose values are
//! combined pairwise, and the last reduced axis is a loop over blocks of
//! [`BLOCK`] elements whose values are combined pairwise too. A block is reduced into
//! `4·w` slots: four `w`-lane vector accumulators fed four vectors an iteration (in vector
//! mode; the accumulators of [`super::vector`]'s analysis), or `4·w` scalar accumulators fed
//! the same elements one by one (scalar mode, for kernels without a vector form), then
//! the whole vectors left over into the first accumulator and the last `len mod w`
//! elements into a scalar tail; combined as `((a0∘a1)∘(a2∘a3))`, the lanes left to right,
//! then the tail. A pairwise level whose item count can exceed one is a binary counter
//! ([`Level::Stack`]): after item `c` (counting from 1) its top two partials merge
//! `tz(c)` times (the left one first in `∘`), and the partials left are folded from the
//! top down, which builds the interpreter's tree (split at the largest power of two below
//! the count) while streaming. A level that always has one item keeps it in a variable.
//!
//! The S_in results are stored on the way (from the same vectors in vector mode). i32 and
//! max/min results are exact whatever the order; float sums and products are the
//! interpreter's bit for bit (with `fma` off and precise math for the elementwise part).

use super::analysis::Reduction;
use super::lower::{Index, Lower, mem};
use super::ops;
use super::vector::vec_type;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, StackSlot, StackSlotData, StackSlotKind, Type, Value as Cv, types};
use cranelift_frontend::Variable;
use ferrax_ir::prim::ReduceOp;
use ferrax_ir::prim::sum_order::{self, BLOCK};
use ferrax_ir::{DType, Error};
use std::collections::HashMap;

/// How a block's slots are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slots {
    /// Four vector accumulators of `w` lanes (the kernel's input has a vector form).
    Vector,
    /// `4·w` scalar accumulators, the same elements into the same slots.
    Scalar,
}

/// One pairwise level of the order.
enum Level {
    /// A binary counter: partials in a stack slot of 8-byte cells, how many are there, and
    /// how many items were pushed.
    Stack { slot: StackSlot, depth: Variable, count: Variable },
    /// The single item of a level that always has exactly one.
    Single(Variable),
}

/// The cells of a level's stack: a counter of `c` items holds `popcount(c) <= 64` partials.
const STACK_CELLS: u32 = 65;

impl Lower<'_, '_> {
    /// A pairwise level: a stack when it can have more than one item.
    fn level(&mut self, stacked: bool, dtype: DType) -> Level {
        if stacked {
            let data = StackSlotData::new(StackSlotKind::ExplicitSlot, 8 * STACK_CELLS, 3);
            let slot = self.fb.create_sized_stack_slot(data);
            Level::Stack { slot, depth: self.fb.declare_var(types::I64), count: self.fb.declare_var(types::I64) }
        } else {
            Level::Single(self.fb.declare_var(ops::cl_type(dtype)))
        }
    }

    /// Empties a level before its loop (a single item starts as the identity `id`, so the
    /// variable is defined on every path).
    fn level_reset(&mut self, level: &Level, id: Cv) {
        match *level {
            Level::Stack { depth, count, .. } => {
                let zero = self.i64c(0);
                self.fb.def_var(depth, zero);
                self.fb.def_var(count, zero);
            }
            Level::Single(v) => self.fb.def_var(v, id),
        }
    }

    /// The address of cell `i` of a level's stack.
    fn cell(&mut self, slot: StackSlot, i: Cv) -> Cv {
        let base = self.fb.ins().stack_addr(types::I64, slot, 0);
        let off = self.fb.ins().imul_imm_s(i, 8);
        self.fb.ins().iadd(base, off)
    }

    /// Adds the next item `x` to a level: pushes it, then merges the top two partials
    /// `tz(count)` times.
    fn level_push(&mut self, level: &Level, op: ReduceOp, dtype: DType, x: Cv) {
        let (slot, depth, count) = match *level {
            Level::Stack { slot, depth, count } => (slot, depth, count),
            Level::Single(v) => return self.fb.def_var(v, x),
        };
        let d = self.fb.use_var(depth);
        let at = self.cell(slot, d);
        self.fb.ins().store(mem(), x, at, 0);
        let d1 = self.fb.ins().iadd_imm_s(d, 1);
        self.fb.def_var(depth, d1);
        let c = self.fb.use_var(count);
        let c = self.fb.ins().iadd_imm_s(c, 1);
        self.fb.def_var(count, c);
        let merges = self.fb.ins().ctz(c);
        let zero = self.i64c(0);
        let l = self.open_loop(zero, merges, 1);
        let ty = ops::cl_type(dtype);
        let d = self.fb.use_var(depth);
        let top = self.fb.ins().iadd_imm_s(d, -1);
        let below = self.fb.ins().iadd_imm_s(d, -2);
        let (at_top, at_below) = (self.cell(slot, top), self.cell(slot, below));
        let y = self.fb.ins().load(ty, mem(), at_top, 0);
        let x = self.fb.ins().load(ty, mem(), at_below, 0);
        let s = self.combine(op, dtype, x, y);
        self.fb.ins().store(mem(), s, at_below, 0);
        self.fb.def_var(depth, top);
        self.close_loop(l);
    }

    /// The value of a level: its partials folded from the top down (the identity `id` if
    /// it has none).
    fn level_finish(&mut self, level: &Level, op: ReduceOp, dtype: DType, id: Cv) -> Cv {
        let (slot, depth) = match *level {
            Level::Stack { slot, depth, .. } => (slot, depth),
            Level::Single(v) => return self.fb.use_var(v),
        };
        let ty = ops::cl_type(dtype);
        let d = self.fb.use_var(depth);
        let zero = self.i64c(0);
        let top = self.fb.ins().iadd_imm_s(d, -1);
        let top = self.fb.ins().smax(top, zero);
        let at = self.cell(slot, top);
        let r0 = self.fb.ins().load(ty, mem(), at, 0);
        let empty = self.fb.ins().icmp_imm_s(IntCC::Equal, d, 0);
        let r0 = self.fb.ins().select(empty, id, r0);
        let r = self.fb.declare_var(ty);
        self.fb.def_var(r, r0);
        let l = self.open_loop(zero, top, 1);
        // Cell top-1-t, from the top down.
        let j = self.fb.ins().isub(top, l.iv);
        let j = self.fb.ins().iadd_imm_s(j, -1);
        let at = self.cell(slot, j);
        let x = self.fb.ins().load(ty, mem(), at, 0);
        let cur = self.fb.use_var(r);
        let next = self.combine(op, dtype, x, cur);
        self.fb.def_var(r, next);
        self.close_loop(l);
        self.fb.use_var(r)
    }

    /// The reduction of one S_out element (kept indices `out_idx`) over `inner_dims` (the
    /// extents of the reduced axes) in the blocked pairwise order; with `range = (r, lo,
    /// hi)`, reduced axis `r` runs `[lo, hi)` only (a chunk: `lo` must then start a whole
    /// number of items of a complete subtree of that level, see [`super::chunked`]).
    pub(super) fn reduce_ordered(
        &mut self,
        red: &Reduction,
        op: ReduceOp,
        out_idx: &[Cv],
        inner_dims: &[usize],
        slots: Slots,
        range: Option<(usize, Cv, Cv)>,
    ) -> Result<Cv, Error> {
        let dtype = self.func.ty(red.input).dtype;
        let id = self.identity(op, dtype);
        let Some((&n, rows)) = inner_dims.split_last() else {
            return Err(self.err(Some(red.eqn), "an ordered reduction needs a reduced axis"));
        };
        let zero = self.i64c(0);
        let mut in_idx: Index = smallvec::SmallVec::from_elem(zero, red.in_shape.len());
        for (j, &a) in red.kept().iter().enumerate() {
            in_idx[a] = out_idx[j];
        }
        let mut loops = Vec::new();
        let mut levels = Vec::new();
        for (j, &d) in rows.iter().enumerate() {
            let (a, b, dynamic) = match range {
                Some((r, lo, hi)) if r == j => (lo, hi, true),
                _ => (self.i64c(0), self.i64c(d as i64), false),
            };
            let level = self.level(dynamic || d > 1, dtype);
            self.level_reset(&level, id);
            let l = self.open_loop(a, b, 1);
            in_idx[red.axes[j]] = l.iv;
            loops.push(l);
            levels.push(level);
        }
        let (lo, hi, dynamic) = match range {
            Some((r, lo, hi)) if r == rows.len() => (lo, hi, true),
            _ => (self.i64c(0), self.i64c(n as i64), false),
        };
        let blocks = self.level(dynamic || n > BLOCK, dtype);
        self.level_reset(&blocks, id);
        let bl = self.open_loop(lo, hi, BLOCK as i64);
        let be = self.fb.ins().iadd_imm_s(bl.iv, BLOCK as i64);
        let be = self.fb.ins().smin(be, hi);
        let t = self.reduce_block(red, op, slots, &mut in_idx, bl.iv, be)?;
        self.level_push(&blocks, op, dtype, t);
        self.close_loop(bl);
        let mut v = self.level_finish(&blocks, op, dtype, id);
        for (l, level) in loops.into_iter().zip(levels).rev() {
            self.level_push(&level, op, dtype, v);
            self.close_loop(l);
            v = self.level_finish(&level, op, dtype, id);
        }
        Ok(v)
    }

    /// `T` of the block `[bs, be)` of the last reduced axis (module docs), with the S_in
    /// results stored on the way; `in_idx` holds the other axes' indices.
    fn reduce_block(
        &mut self,
        red: &Reduction,
        op: ReduceOp,
        slots: Slots,
        in_idx: &mut Index,
        bs: Cv,
        be: Cv,
    ) -> Result<Cv, Error> {
        let dtype = self.func.ty(red.input).dtype;
        let w = sum_order::lanes(dtype) as i64;
        let last = red.axes[red.axes.len() - 1];
        let len = self.fb.ins().isub(be, bs);
        let len4 = self.fb.ins().band_imm_s(len, !(4 * w - 1));
        let len1 = self.fb.ins().band_imm_s(len, !(w - 1));
        let m4 = self.fb.ins().iadd(bs, len4);
        let m1 = self.fb.ins().iadd(bs, len1);
        let id = self.identity(op, dtype);
        let r = match slots {
            Slots::Vector => self.block_vectors(red, op, in_idx, bs, m4, m1)?,
            Slots::Scalar => self.block_scalars(red, op, in_idx, bs, m4, m1)?,
        };
        // The scalar tail of the block.
        let st = ops::cl_type(dtype);
        let sacc = self.fb.declare_var(st);
        self.fb.def_var(sacc, id);
        let l = self.open_loop(m1, be, 1);
        self.memo.clear();
        in_idx[last] = l.iv;
        let x = self.value_at(red.input, in_idx)?;
        for k in 0..self.func.results.len() {
            if !self.plan.epilogue[k] {
                self.store_result(k, in_idx)?;
            }
        }
        let cur = self.fb.use_var(sacc);
        let next = self.combine(op, dtype, cur, x);
        self.fb.def_var(sacc, next);
        self.close_loop(l);
        self.memo.clear();
        let tail = self.fb.use_var(sacc);
        Ok(self.combine(op, dtype, r, tail))
    }

    /// The slots of a block in four vector accumulators: groups of four vectors over
    /// `[bs, m4)` (staged through tiles where the kernel has them), whole vectors over
    /// `[m4, m1)` into the first; returns `((a0∘a1)∘(a2∘a3))` with its lanes combined.
    fn block_vectors(
        &mut self,
        red: &Reduction,
        op: ReduceOp,
        in_idx: &mut Index,
        bs: Cv,
        m4: Cv,
        m1: Cv,
    ) -> Result<Cv, Error> {
        let dtype = self.func.ty(red.input).dtype;
        let Some(vt) = vec_type(dtype) else { return Err(self.err(Some(red.eqn), "bool reduction")) };
        let lanes = vt.lane_count();
        let w = i64::from(lanes);
        let last = red.axes[red.axes.len() - 1];
        let id = self.identity(op, dtype);
        let vid = self.fb.ins().splat(vt, id);
        let vacc: Vec<Variable> = (0..4).map(|_| self.fb.declare_var(vt)).collect();
        vacc.iter().for_each(|&v| self.fb.def_var(v, vid));
        let mut roots = vec![red.input];
        roots.extend(self.func.results.iter().zip(&self.plan.epilogue).filter(|&(_, &e)| !e).map(|(&r, _)| r));
        let stages = self.stages(&red.in_shape, lanes, &roots);
        // No vector lives across the routine calls (they clobber every vector register): the
        // accumulators wait in a stack slot between tiles, in tile-local variables inside.
        let tile = if stages.is_empty() {
            None
        } else {
            let slot = self.fb.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 64, 4));
            self.spill(&vacc, slot);
            let (tl, te) = self.open_tile(&stages, in_idx, last, bs, m4)?;
            let tacc: Vec<Variable> = (0..4).map(|_| self.fb.declare_var(vt)).collect();
            self.reload(&tacc, vt, slot);
            Some((tl, te, slot, tacc))
        };
        let (a, b) = tile.as_ref().map_or((bs, m4), |(tl, te, _, _)| (tl.iv, *te));
        let accs = tile.as_ref().map_or_else(|| vacc.clone(), |(_, _, _, tacc)| tacc.clone());
        let seeds = self.read_by(&roots, &stages);
        let l = self.open_loop(a, b, 4 * w);
        self.memo.clear();
        let mut vmemo = HashMap::new();
        for (j, &acc) in accs.iter().enumerate() {
            in_idx[last] = if j == 0 { l.iv } else { self.fb.ins().iadd_imm_s(l.iv, j as i64 * w) };
            if let Some((tl, _, _, _)) = &tile {
                self.seed_stages(&seeds, in_idx, last, tl.iv, &mut vmemo);
            }
            let x = self.vec_at(red.input, in_idx, &mut vmemo)?;
            self.store_in_results(in_idx, &mut vmemo)?;
            let cur = self.fb.use_var(acc);
            let next = self.combine(op, dtype, cur, x);
            self.fb.def_var(acc, next);
        }
        self.close_loop(l);
        if let Some((tl, _, slot, tacc)) = tile {
            self.spill(&tacc, slot);
            self.close_loop(tl);
            self.reload(&vacc, vt, slot);
        }
        // Whole vectors left over, into the first accumulator.
        let l = self.open_loop(m4, m1, w);
        self.memo.clear();
        let mut vmemo = HashMap::new();
        in_idx[last] = l.iv;
        let x = self.vec_at(red.input, in_idx, &mut vmemo)?;
        self.store_in_results(in_idx, &mut vmemo)?;
        let cur = self.fb.use_var(vacc[0]);
        let next = self.combine(op, dtype, cur, x);
        self.fb.def_var(vacc[0], next);
        self.close_loop(l);
        self.memo.clear();
        Ok(self.combine_accumulators(op, dtype, &vacc, lanes))
    }

    /// `((a0∘a1)∘(a2∘a3))` of the four vector accumulators, then its lanes left to right:
    /// the order in which the interpreter combines a block's `4·w` slots.
    fn combine_accumulators(&mut self, op: ReduceOp, dtype: DType, vacc: &[Variable], lanes: u32) -> Cv {
        let v: Vec<Cv> = vacc.iter().map(|&v| self.fb.use_var(v)).collect();
        let p = self.combine(op, dtype, v[0], v[1]);
        let q = self.combine(op, dtype, v[2], v[3]);
        let v = self.combine(op, dtype, p, q);
        let mut r = self.fb.ins().extractlane(v, 0);
        for lane in 1..lanes as u8 {
            let x = self.fb.ins().extractlane(v, lane);
            r = self.combine(op, dtype, r, x);
        }
        r
    }

    /// Stores the vector accumulators `accs` in `slot`, 16 bytes each, so that none lives
    /// in a register across the routine calls of a tile.
    fn spill(&mut self, accs: &[Variable], slot: StackSlot) {
        for (j, &acc) in accs.iter().enumerate() {
            let v = self.fb.use_var(acc);
            self.fb.ins().stack_store(types::I64, v, slot, 16 * j as i32);
        }
    }

    /// Loads the vector accumulators `accs` (of type `vt`) back from `slot`.
    fn reload(&mut self, accs: &[Variable], vt: Type, slot: StackSlot) {
        for (j, &acc) in accs.iter().enumerate() {
            let v = self.fb.ins().stack_load(types::I64, vt, slot, 16 * j as i32);
            self.fb.def_var(acc, v);
        }
    }

    /// The slots of a block in `4·w` scalar accumulators, element `i` of a group of `4·w`
    /// into slot `i`, element `i` of a whole vector left over into slot `i mod w`; returns
    /// the slots combined as the vector accumulators' lanes are.
    fn block_scalars(
        &mut self,
        red: &Reduction,
        op: ReduceOp,
        in_idx: &mut Index,
        bs: Cv,
        m4: Cv,
        m1: Cv,
    ) -> Result<Cv, Error> {
        let dtype = self.func.ty(red.input).dtype;
        let w = sum_order::lanes(dtype);
        let last = red.axes[red.axes.len() - 1];
        let id = self.identity(op, dtype);
        let st = ops::cl_type(dtype);
        let acc: Vec<Variable> = (0..4 * w).map(|_| self.fb.declare_var(st)).collect();
        acc.iter().for_each(|&v| self.fb.def_var(v, id));
        for (a, b, group) in [(bs, m4, 4 * w), (m4, m1, w)] {
            let l = self.open_loop(a, b, group as i64);
            self.memo.clear();
            for (i, &slot) in acc.iter().enumerate().take(group) {
                in_idx[last] = if i == 0 { l.iv } else { self.fb.ins().iadd_imm_s(l.iv, i as i64) };
                let x = self.value_at(red.input, in_idx)?;
                for k in 0..self.func.results.len() {
                    if !self.plan.epilogue[k] {
                        self.store_result(k, in_idx)?;
                    }
                }
                let cur = self.fb.use_var(slot);
                let next = self.combine(op, dtype, cur, x);
                self.fb.def_var(slot, next);
            }
            self.close_loop(l);
            self.memo.clear();
        }
        let a: Vec<Cv> = acc.iter().map(|&v| self.fb.use_var(v)).collect();
        let mut r = None;
        for l in 0..w {
            let p = self.combine(op, dtype, a[l], a[w + l]);
            let q = self.combine(op, dtype, a[2 * w + l], a[3 * w + l]);
            let c = self.combine(op, dtype, p, q);
            r = Some(match r {
                None => c,
                Some(r) => self.combine(op, dtype, r, c),
            });
        }
        r.ok_or_else(|| self.err(Some(red.eqn), "a reduction with no lanes"))
    }
}
