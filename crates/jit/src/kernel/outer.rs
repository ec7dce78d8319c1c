//! Reductions over outer axes (the innermost axis is kept), e.g. a bias gradient
//! `reduce_sum[axes=[0]]` of `f32[128,512]`: the loop nest runs over S_in in its natural
//! (C) order and accumulates into the result buffer itself, which is first filled with
//! the identity. The reads and the S_in results (multi-output kernels) are then
//! contiguous along the innermost axis, so that loop runs in vectors like an elementwise
//! kernel ([`vector`](super::vector)): lane `j` accumulates output element `j`, no
//! reassociation. The generic path instead walks the kept axes outside and the reduced
//! ones inside: strided, scalar, and one cache line per element for a column sum.
//!
//! Exactness: each output element receives its terms one by one from the identity in
//! increasing multi-index order over the reduced axes (a left fold). i32 and max/min
//! results are the interpreter's bits; a float sum or product is the left fold's, not the
//! interpreter's blocked pairwise order (`ferrax_ir::prim::sum_order`): the two differ by
//! at most the sum of their bounds, `(γ_{n-1} + γ_d)·Σ|x_i|` for `n` terms (`d` as in the
//! interpreter's `eval_reduce`). Keeping the pairwise order here would need `4·w` slots
//! and a pairwise stack per output element; with SIMD off such kernels take the scalar
//! loop nest instead ([`applies`]), which keeps the interpreter's order.
//!
//! Applies when the reduction is a `reduce_*` (not argmax/argmin) and the innermost axis
//! is kept. The accumulator is a result buffer: the reduction's own result when it is
//! returned, else the first epilogue result of the reduction's dtype (a 16-bit sum,
//! which the JIT computes in f32, returns `round(sum)`: its rounding is such an
//! epilogue). Epilogue results are then computed in a pass over each finished block,
//! from the accumulated value held in a register, so an in-place rounding is exact.
//! The outermost loop (`[start, end)` of the kernel ABI) is axis 0 when it is kept. When
//! axis 0 is reduced and the innermost axis is the only kept one (a bias gradient), the
//! outer loop runs over *bands* of [`BAND`] columns of the innermost axis instead: a
//! launch `[start, end)` accumulates the columns `[start·BAND, end·BAND)` over every row,
//! so a split launch gives each thread its own columns (each column's terms still arrive
//! in the same order, so the bits do not depend on the split; the columns that fall in
//! the scalar tail are the same ones too, since a band is a whole number of vectors).
//! W9's GELU backward with its bias gradient (1024 rows of 1024 f32) took 1.35 ms a call
//! on one thread and takes 1.04 ms in two bands. Otherwise, when axis 0 is reduced, the
//! kernel has an outer extent of 1 (threads would race on the accumulators). The result
//! block reached under the first reduced axis `r0` (the kept axes after it, for fixed
//! axes before it) is contiguous; it is initialised right before the loop over `r0`, so
//! split launches initialise only their own rows (or columns).

use super::analysis::{Plan, RedKind};
use super::lower::{Index, Loop, Lower, mem};
use super::vector;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value as Cv};
use ferrax_ir::prim::ReduceOp;
use ferrax_ir::{DType, Error, Func, Value};
use std::collections::HashMap;

/// Whether the kernel's reduction takes the outer-axis path (`simd`: whether the kernel is
/// compiled with vectors; without, a float sum or product takes the scalar loop nest,
/// which keeps the interpreter's order).
pub(super) fn applies(func: &Func, plan: &Plan, simd: bool) -> bool {
    let Some(red) = &plan.reduction else { return false };
    let rank = red.in_shape.len();
    let RedKind::Reduce(op) = red.kind else { return false };
    if rank < 2 || red.axes.is_empty() || red.axes.contains(&(rank - 1)) {
        return false;
    }
    if !simd && super::lower::ordered_float(op, func.ty(red.input).dtype) {
        return false;
    }
    accumulator(func, plan).is_some()
}

/// The index of the result the reduction accumulates into (module docs), if any.
fn accumulator(func: &Func, plan: &Plan) -> Option<usize> {
    let red = plan.reduction.as_ref()?;
    let dtype = func.ty(red.input).dtype;
    let own = func.results.iter().position(|&r| r == red.output);
    own.or_else(|| func.results.iter().zip(&plan.epilogue).position(|(&r, &epi)| epi && func.ty(r).dtype == dtype))
}

/// Columns of one band (module docs): a multiple of every vector width. Narrow bands
/// lose more to strided reads than a second thread gains: W9's 1024-column kernel took
/// 1.0 ms standalone split in bands of 128 against 0.66 ms unsplit and 0.62 ms in bands of
/// 512 (1.35 against 1.04 ms inside W9, 4 alternations); its 256-column kernels gained
/// nothing from bands of 128.
pub(crate) const BAND: i64 = 512;

/// The extent of the innermost axis when the kernel runs over bands of its columns: axis
/// 0 reduced and the innermost axis the only kept one.
fn banded(plan: &Plan) -> Option<i64> {
    let red = plan.reduction.as_ref()?;
    let rank = red.in_shape.len();
    (red.axes.first() == Some(&0) && red.kept() == [rank - 1]).then(|| red.in_shape[rank - 1] as i64)
}

/// The extent of the outermost loop on this path: axis 0 when kept, else the bands of
/// the innermost axis when it is the only kept one, else 1.
pub(super) fn outer_extent(plan: &Plan) -> i64 {
    match (&plan.reduction, banded(plan)) {
        (Some(red), _) if red.axes.first() != Some(&0) => red.in_shape[0] as i64,
        (_, Some(n)) => (n + BAND - 1) / BAND,
        _ => 1,
    }
}

/// The columns of the innermost axis one launch covers: `[lo, hi)`, with the vector part
/// `[lo, vend)` a whole number of `w`-lane vectors (`w` is `i64::MAX` without vectors).
#[derive(Clone, Copy)]
struct Cols {
    lo: Cv,
    vend: Cv,
    hi: Cv,
}

/// The lane count of the vector innermost loop, if every S_in result and the reduced
/// value can be generated in vectors (and the reduction has a vector form).
pub(super) fn lanes(func: &Func, plan: &Plan, sse41: bool) -> Option<u32> {
    let red = plan.reduction.as_ref()?;
    let RedKind::Reduce(op) = red.kind else { return None };
    let dtype = func.ty(red.input).dtype;
    if !super::lower::reduce_vectorises(op, dtype, sse41) {
        return None;
    }
    let mut values = vec![red.input];
    values.extend(func.results.iter().zip(&plan.epilogue).filter(|(_, e)| !**e).map(|(&r, _)| r));
    vector::lanes_of(func, plan, sse41, &values)
}

/// Vector accesses: never trapping, not aligned.
fn vmem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

impl Lower<'_, '_> {
    /// The loop nest of an outer-axis reduction (see the module docs), vector innermost
    /// loop when `lanes` is given.
    pub(super) fn emit_outer_reduce(&mut self, start: Cv, end: Cv, lanes: Option<u32>) -> Result<(), Error> {
        let Some(red) = self.plan.reduction.clone() else {
            return Err(self.err(None, "outer-axis reduction without a reduction"));
        };
        let RedKind::Reduce(op) = red.kind else {
            return Err(self.err(Some(red.eqn), "outer-axis reduction of an index"));
        };
        let shape = red.in_shape.clone();
        let rank = shape.len();
        let r0 = red.axes[0];
        let kept = red.kept();
        let out_shape: Vec<usize> = kept.iter().map(|&a| shape[a]).collect();
        let dtype = self.func.ty(red.input).dtype;
        let Some(kout) = accumulator(self.func, self.plan) else {
            return Err(self.err(Some(red.eqn), "outer-axis reduction without a result to accumulate into"));
        };
        let out_buf = self.bufs[self.func.params.len() + kout];
        let acc = Acc { op, dtype, input: red.input, kept, out_shape, out_buf };
        let n = shape[rank - 1] as i64;
        let w = lanes.map_or(i64::MAX, i64::from);
        let band = banded(self.plan).is_some();
        let (mut loops, mut idx) =
            if band { (Vec::new(), Index::new()) } else { self.loops_before(start, end, &shape, r0) };
        let before = loops.len();
        let cols = if band {
            // Bands `[start, end)`: a whole number of vectors each, the last one cut at n.
            let (lo, hi) = self.clamp_range(start, end, (n + BAND - 1) / BAND);
            let lo = self.fb.ins().imul_imm_s(lo, BAND);
            let hi = self.fb.ins().imul_imm_s(hi, BAND);
            let n_cols = self.i64c(n);
            let hi = self.fb.ins().smin(hi, n_cols);
            let len = self.fb.ins().isub(hi, lo);
            // Lane counts are powers of two: `len & -l` is its whole vectors.
            let vend = match lanes {
                Some(l) => {
                    let whole = self.fb.ins().band_imm_s(len, -i64::from(l));
                    self.fb.ins().iadd(lo, whole)
                }
                None => lo,
            };
            Cols { lo, vend, hi }
        } else {
            let block: i64 = acc.kept.iter().filter(|&&a| a > r0).map(|&a| shape[a] as i64).product();
            Cols { lo: self.i64c(0), vend: self.i64c(block / w * w), hi: self.i64c(block) }
        };
        self.fill_identity(&acc, &idx, cols, lanes);
        // Loops over r0 .. rank-1, then the innermost axis (vector + tail).
        for &d in &shape[r0..rank - 1] {
            let (lo, hi) = (self.i64c(0), self.i64c(d as i64));
            let l = self.open_loop(lo, hi, 1);
            idx.push(l.iv);
            loops.push(l);
        }
        let inner = if band { cols } else { Cols { lo: self.i64c(0), vend: self.i64c(n / w * w), hi: self.i64c(n) } };
        if let Some(l) = lanes {
            self.accumulate_vectors(&acc, &mut idx, inner, l)?;
        }
        self.accumulate_tail(&acc, &mut idx, inner)?;
        self.memo.clear();
        for l in loops.drain(before..).rev() {
            self.close_loop(l);
        }
        idx.truncate(r0);
        self.epilogue_pass(&acc, &idx, &shape, r0, kout, band.then_some(cols))?;
        loops.into_iter().rev().for_each(|l| self.close_loop(l));
        Ok(())
    }

    /// Computes the epilogue results (all but the reduction's own returned result) over
    /// the finished block reached under `idx` (the axes before `r0`), reading each
    /// accumulated value from result `kout` once; only the columns of `band` when banded.
    fn epilogue_pass(
        &mut self,
        acc: &Acc,
        idx: &Index,
        shape: &[usize],
        r0: usize,
        kout: usize,
        band: Option<Cols>,
    ) -> Result<(), Error> {
        let Some(red_output) = self.plan.reduction.as_ref().map(|r| r.output) else { return Ok(()) };
        let todo: Vec<usize> = (0..self.func.results.len())
            .filter(|&k| self.plan.epilogue[k] && self.func.results[k] != red_output)
            .collect();
        if todo.is_empty() {
            return Ok(());
        }
        let mut out_idx = idx.clone();
        let mut loops = Vec::new();
        for &a in acc.kept.iter().filter(|&&a| a > r0) {
            let (lo, hi) = match band {
                Some(c) => (c.lo, c.hi),
                None => (self.i64c(0), self.i64c(shape[a] as i64)),
            };
            let l = self.open_loop(lo, hi, 1);
            out_idx.push(l.iv);
            loops.push(l);
        }
        let off = self.linear(&out_idx, &acc.out_shape);
        let addr = self.addr(self.bufs[self.func.params.len() + kout], off, acc.dtype);
        let value = self.fb.ins().load(super::ops::cl_type(acc.dtype), mem(), addr, 0);
        self.memo.clear();
        self.fixed.insert(red_output, value);
        for k in todo {
            self.store_result(k, &out_idx)?;
        }
        self.fixed.clear();
        self.memo.clear();
        loops.into_iter().rev().for_each(|l| self.close_loop(l));
        Ok(())
    }

    /// Opens the loops over the axes before the first reduced axis `r0` (axis 0 over
    /// `[start, end)`), or one dummy loop when `r0` is axis 0 (then the kernel's outer
    /// extent is 1). Returns them with the index they make.
    fn loops_before(&mut self, start: Cv, end: Cv, shape: &[usize], r0: usize) -> (Vec<Loop>, Index) {
        let mut loops = Vec::new();
        let mut idx = Index::new();
        if r0 == 0 {
            let (lo, hi) = self.clamp_range(start, end, 1);
            loops.push(self.open_loop(lo, hi, 1));
        } else {
            let (lo, hi) = self.clamp_range(start, end, shape[0] as i64);
            loops.push(self.open_loop(lo, hi, 1));
            idx.push(loops[0].iv);
            for &d in &shape[1..r0] {
                let (lo, hi) = (self.i64c(0), self.i64c(d as i64));
                let l = self.open_loop(lo, hi, 1);
                idx.push(l.iv);
                loops.push(l);
            }
        }
        (loops, idx)
    }

    /// Fills the columns `cols` of the block of the result reached under index `idx` (the
    /// kept axes after `r0`, contiguous, counted flat) with the reduction's identity: in
    /// vectors of `lanes` over `[lo, vend)`, then a scalar tail.
    fn fill_identity(&mut self, acc: &Acc, idx: &Index, cols: Cols, lanes: Option<u32>) {
        let zero = self.i64c(0);
        let mut at: Index = idx.clone();
        at.resize(acc.kept.len(), zero);
        let base_off = self.linear(&at, &acc.out_shape);
        let base = self.addr(acc.out_buf, base_off, acc.dtype);
        let id = self.identity(acc.op, acc.dtype);
        let bytes = acc.dtype.size_bytes() as i64;
        if let Some(l) = lanes {
            let vt = ops_vec_type(acc.dtype, l);
            let vid = self.fb.ins().splat(vt, id);
            let fl = self.open_loop(cols.lo, cols.vend, i64::from(l));
            let off = self.fb.ins().imul_imm_s(fl.iv, bytes);
            let p = self.fb.ins().iadd(base, off);
            self.fb.ins().store(vmem(), vid, p, 0);
            self.close_loop(fl);
        }
        let fl = self.open_loop(cols.vend, cols.hi, 1);
        let off = self.fb.ins().imul_imm_s(fl.iv, bytes);
        let p = self.fb.ins().iadd(base, off);
        self.fb.ins().store(mem(), id, p, 0);
        self.close_loop(fl);
    }

    /// The vector part `[lo, vend)` of the innermost loop: stores the S_in results and adds
    /// `lanes` terms into as many consecutive result elements.
    fn accumulate_vectors(&mut self, acc: &Acc, idx: &mut Index, cols: Cols, lanes: u32) -> Result<(), Error> {
        let vl = self.open_loop(cols.lo, cols.vend, i64::from(lanes));
        idx.push(vl.iv);
        self.memo.clear();
        let mut vmemo = HashMap::new();
        self.store_in_results(idx, &mut vmemo)?;
        let x = self.vec_at(acc.input, idx, &mut vmemo)?;
        let oidx: Index = acc.kept.iter().map(|&a| idx[a]).collect();
        let off = self.linear(&oidx, &acc.out_shape);
        let addr = self.addr(acc.out_buf, off, acc.dtype);
        let cur = self.fb.ins().load(ops_vec_type(acc.dtype, lanes), vmem(), addr, 0);
        let next = self.combine(acc.op, acc.dtype, cur, x);
        self.fb.ins().store(vmem(), next, addr, 0);
        self.close_loop(vl);
        idx.pop();
        Ok(())
    }

    /// The scalar part `[vend, hi)` of the innermost loop (all of it without vectors):
    /// stores the S_in results and adds one term into one result element.
    fn accumulate_tail(&mut self, acc: &Acc, idx: &mut Index, cols: Cols) -> Result<(), Error> {
        let tl = self.open_loop(cols.vend, cols.hi, 1);
        idx.push(tl.iv);
        self.memo.clear();
        for k in 0..self.func.results.len() {
            if !self.plan.epilogue[k] {
                self.store_result(k, idx)?;
            }
        }
        let x = self.value_at(acc.input, idx)?;
        let oidx: Index = acc.kept.iter().map(|&a| idx[a]).collect();
        let off = self.linear(&oidx, &acc.out_shape);
        let addr = self.addr(acc.out_buf, off, acc.dtype);
        let cur = self.fb.ins().load(super::ops::cl_type(acc.dtype), mem(), addr, 0);
        let next = self.combine(acc.op, acc.dtype, cur, x);
        self.fb.ins().store(mem(), next, addr, 0);
        self.close_loop(tl);
        Ok(())
    }
}

/// What the loops of an outer-axis reduction accumulate: the reduction's operation,
/// dtype and input, and the result buffer with its kept axes and shape.
struct Acc {
    op: ReduceOp,
    dtype: DType,
    input: Value,
    kept: Vec<usize>,
    out_shape: Vec<usize>,
    out_buf: Cv,
}

/// The Cranelift vector type of `lanes` elements of `dtype`.
fn ops_vec_type(dtype: ferrax_ir::DType, lanes: u32) -> cranelift_codegen::ir::Type {
    super::ops::cl_type(dtype).by(lanes).unwrap_or(super::ops::cl_type(dtype))
}
