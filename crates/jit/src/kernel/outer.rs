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
//! The outermost loop (`[start, end)` of the kernel ABI) is axis 0 when it is kept; when
//! axis 0 is reduced the kernel has an outer extent of 1 (threads would race on the
//! accumulators). The result block reached under the first reduced axis `r0` (the kept
//! axes after it, for fixed axes before it) is contiguous; it is initialised right before
//! the loop over `r0`, so split launches initialise only their own rows.

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

/// The extent of the outermost loop on this path: axis 0 when kept, else 1.
pub(super) fn outer_extent(plan: &Plan) -> i64 {
    match &plan.reduction {
        Some(red) if red.axes.first() != Some(&0) => red.in_shape[0] as i64,
        _ => 1,
    }
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
        let (mut loops, mut idx) = self.loops_before(start, end, &shape, r0);
        let before = loops.len();
        self.fill_identity(&acc, &idx, &shape, r0, lanes);
        // Loops over r0 .. rank-1, then the innermost axis (vector + tail).
        for &d in &shape[r0..rank - 1] {
            let (lo, hi) = (self.i64c(0), self.i64c(d as i64));
            let l = self.open_loop(lo, hi, 1);
            idx.push(l.iv);
            loops.push(l);
        }
        let n = shape[rank - 1] as i64;
        let w = lanes.map_or(i64::MAX, i64::from);
        let nv = n / w * w;
        if let Some(l) = lanes {
            self.accumulate_vectors(&acc, &mut idx, nv, l)?;
        }
        self.accumulate_tail(&acc, &mut idx, nv, n)?;
        self.memo.clear();
        for l in loops.drain(before..).rev() {
            self.close_loop(l);
        }
        idx.truncate(r0);
        self.epilogue_pass(&acc, &idx, &shape, r0, kout)?;
        loops.into_iter().rev().for_each(|l| self.close_loop(l));
        Ok(())
    }

    /// Computes the epilogue results (all but the reduction's own returned result) over
    /// the finished block reached under `idx` (the axes before `r0`), reading each
    /// accumulated value from result `kout` once.
    fn epilogue_pass(&mut self, acc: &Acc, idx: &Index, shape: &[usize], r0: usize, kout: usize) -> Result<(), Error> {
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
            let (lo, hi) = (self.i64c(0), self.i64c(shape[a] as i64));
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

    /// Fills the block of the result reached under index `idx` (the kept axes after
    /// `r0`, contiguous) with the reduction's identity: in vectors of `lanes`, then a
    /// scalar tail.
    fn fill_identity(&mut self, acc: &Acc, idx: &Index, shape: &[usize], r0: usize, lanes: Option<u32>) {
        let zero = self.i64c(0);
        let mut at: Index = idx.clone();
        at.resize(acc.kept.len(), zero);
        let base_off = self.linear(&at, &acc.out_shape);
        let base = self.addr(acc.out_buf, base_off, acc.dtype);
        let block: usize = acc.kept.iter().filter(|&&a| a > r0).map(|&a| shape[a]).product();
        let id = self.identity(acc.op, acc.dtype);
        // Without lanes the "tail" loops do all the work.
        let w = lanes.map_or(i64::MAX, i64::from);
        let bytes = acc.dtype.size_bytes() as i64;
        let vblock = block as i64 / w * w;
        if let Some(l) = lanes {
            let vt = ops_vec_type(acc.dtype, l);
            let vid = self.fb.ins().splat(vt, id);
            let (a, b) = (self.i64c(0), self.i64c(vblock));
            let fl = self.open_loop(a, b, w);
            let off = self.fb.ins().imul_imm_s(fl.iv, bytes);
            let p = self.fb.ins().iadd(base, off);
            self.fb.ins().store(vmem(), vid, p, 0);
            self.close_loop(fl);
        }
        let (a, b) = (self.i64c(vblock), self.i64c(block as i64));
        let fl = self.open_loop(a, b, 1);
        let off = self.fb.ins().imul_imm_s(fl.iv, bytes);
        let p = self.fb.ins().iadd(base, off);
        self.fb.ins().store(mem(), id, p, 0);
        self.close_loop(fl);
    }

    /// The vector part `[0, nv)` of the innermost loop: stores the S_in results and adds
    /// `lanes` terms into as many consecutive result elements.
    fn accumulate_vectors(&mut self, acc: &Acc, idx: &mut Index, nv: i64, lanes: u32) -> Result<(), Error> {
        let (a, b) = (self.i64c(0), self.i64c(nv));
        let vl = self.open_loop(a, b, i64::from(lanes));
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

    /// The scalar part `[nv, n)` of the innermost loop (all of it without vectors):
    /// stores the S_in results and adds one term into one result element.
    fn accumulate_tail(&mut self, acc: &Acc, idx: &mut Index, nv: i64, n: i64) -> Result<(), Error> {
        let (a, b) = (self.i64c(nv), self.i64c(n));
        let tl = self.open_loop(a, b, 1);
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
