//! The driver of the lowering: the function's entry (buffer pointers loaded once), the loop
//! nest over the plan's loop dims with the `[start, end)` split of the outermost loop, the
//! stores of the results, and the reduction's accumulators and epilogue.

use super::analysis::{Plan, RedKind, Reduction};
use super::libcalls::Imports;
use super::ordered::Slots;
use super::{KernelOptions, kernel_error, ops, vector};
use cranelift_codegen::Context;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, Value as Cv, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::Module as _;
use ferrax_ir::prim::{ArgOp, ReduceOp};
use ferrax_ir::{DType, Error, Func, Value};
use smallvec::SmallVec;
use std::collections::HashMap;

/// A multi-index: one i64 Cranelift value per axis.
pub(super) type Index = SmallVec<[Cv; 6]>;

/// The state of one kernel being lowered.
pub(super) struct Lower<'a, 'f> {
    pub fb: FunctionBuilder<'f>,
    pub jit: &'a mut JITModule,
    pub func: &'a Func,
    pub plan: &'a Plan,
    pub opts: &'a KernelOptions,
    /// Buffer pointers: parameters, then results.
    pub bufs: Vec<Cv>,
    /// Values already computed in the current loop body, by (value, index).
    pub memo: HashMap<(Value, Index), Cv>,
    /// Values fixed for the current body whatever the index (the reduction's result in the
    /// epilogue).
    pub fixed: HashMap<Value, Cv>,
    pub imports: Imports,
    pub has_fma: bool,
    pub has_sse41: bool,
    /// Data objects of non-scalar constants, by equation.
    pub tables: HashMap<usize, cranelift_module::DataId>,
    /// Innermost indices made by shifting another (the views of a vector body): the index
    /// shifted and by how much, so that a read can be recognised as a shifted one.
    pub shifted: HashMap<Cv, (Cv, i64)>,
    /// The values the current vector loop carries from one iteration to the next.
    pub carry: Option<super::carry::Carry>,
}

/// One open loop, rotated: a guard before it, the test at the bottom of the body (one
/// branch an iteration; Cranelift does not rotate loops itself).
pub(super) struct Loop {
    body: Block,
    exit: Block,
    step: i64,
    hi: Cv,
    pub iv: Cv,
}

/// Memory flags of buffer accesses (aligned, never trapping: indices are in bounds).
pub(super) fn mem() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// Whether the ISA has the boolean setting `name` on.
fn isa_flag(jit: &JITModule, name: &str) -> bool {
    jit.isa().isa_flags().iter().any(|v| v.name == name && v.as_bool() == Some(true))
}

/// Fills `ctx.func` with the kernel's code.
pub(super) fn build(
    jit: &mut JITModule,
    ctx: &mut Context,
    fbc: &mut FunctionBuilderContext,
    func: &Func,
    plan: &Plan,
    opts: &KernelOptions,
) -> Result<Option<super::chunked::Chunking>, Error> {
    let has_fma = isa_flag(jit, "has_fma");
    let has_sse41 = isa_flag(jit, "has_sse41");
    let config = jit.isa().frontend_config();
    let mut fb = FunctionBuilder::new(&mut ctx.func, fbc);
    let entry = fb.create_block();
    fb.append_block_params_for_function_params(entry);
    fb.switch_to_block(entry);
    fb.seal_block(entry);
    let (bufs_ptr, start, end) = {
        let p = fb.block_params(entry);
        (p[0], p[1], p[2])
    };
    let nbufs = func.params.len() + func.results.len();
    let bufs = (0..nbufs).map(|i| fb.ins().load(types::I64, mem(), bufs_ptr, (8 * i) as i32)).collect();
    let mut lw = Lower {
        fb,
        jit,
        func,
        plan,
        opts,
        bufs,
        memo: HashMap::new(),
        fixed: HashMap::new(),
        imports: Imports::new(opts.precise_math, has_fma, has_sse41),
        has_fma,
        has_sse41,
        tables: HashMap::new(),
        shifted: HashMap::new(),
        carry: None,
    };
    let chunks = super::chunked::chunking(func, plan, opts, has_sse41);
    if let Some(ch) = chunks {
        let partials = lw.fb.ins().load(types::I64, mem(), bufs_ptr, (8 * nbufs) as i32);
        lw.emit_chunked(start, end, partials, ch)?;
    } else if super::outer::applies(func, plan, opts.simd) {
        let lanes = super::outer::lanes(func, plan, lw.has_sse41).filter(|_| opts.simd);
        lw.emit_outer_reduce(start, end, lanes)?;
    } else {
        match vector::lanes(func, plan, lw.has_sse41).filter(|_| opts.simd) {
            Some(vl) => lw.emit_vector_loops(start, end, vl)?,
            None => lw.emit_loops(start, end)?,
        }
    }
    lw.fb.ins().return_(&[]);
    lw.fb.finalize(config);
    Ok(chunks)
}

/// Whether `op` over `dtype` is a float sum or product: the reductions whose order of
/// evaluation shows in the result (the blocked pairwise order of `ferrax_ir`).
/// Whether a reduction `op` over `dtype` elements has a vector form: float ones and an
/// i32 sum always, i32 max/min/product with SSE4.1.
pub(super) fn reduce_vectorises(op: ReduceOp, dtype: DType, sse41: bool) -> bool {
    dtype.is_float() || op == ReduceOp::Sum || sse41
}

pub(super) fn ordered_float(op: ReduceOp, dtype: DType) -> bool {
    dtype.is_float() && matches!(op, ReduceOp::Sum | ReduceOp::Prod)
}

impl Lower<'_, '_> {
    /// An error at the kernel (or one of its equations).
    pub fn err(&self, eqn: Option<usize>, message: impl Into<String>) -> Error {
        kernel_error(self.func, eqn, message)
    }

    /// An i64 constant.
    pub fn i64c(&mut self, v: i64) -> Cv {
        self.fb.ins().iconst(types::I64, v)
    }

    /// Opens `for iv in (lo..hi).step_by(step)`, leaving the builder in the body.
    pub(super) fn open_loop(&mut self, lo: Cv, hi: Cv, step: i64) -> Loop {
        let body = self.fb.create_block();
        self.fb.append_block_param(body, types::I64);
        let exit = self.fb.create_block();
        let c = self.fb.ins().icmp(IntCC::SignedLessThan, lo, hi);
        self.fb.ins().brif(c, body, &[lo.into()], exit, &[]);
        self.fb.switch_to_block(body);
        let iv = self.fb.block_params(body)[0];
        Loop { body, exit, step, hi, iv }
    }

    /// Closes a loop opened by [`Lower::open_loop`], leaving the builder after it.
    pub(super) fn close_loop(&mut self, l: Loop) {
        let next = self.fb.ins().iadd_imm_s(l.iv, l.step);
        let c = self.fb.ins().icmp(IntCC::SignedLessThan, next, l.hi);
        self.fb.ins().brif(c, l.body, &[next.into()], l.exit, &[]);
        self.fb.seal_block(l.body);
        self.fb.switch_to_block(l.exit);
        self.fb.seal_block(l.exit);
    }

    /// `[start, end)` clamped to `[0, n]`.
    pub fn clamp_range(&mut self, start: Cv, end: Cv, n: i64) -> (Cv, Cv) {
        let zero = self.i64c(0);
        let n = self.i64c(n);
        let lo = self.fb.ins().smax(start, zero);
        let lo = self.fb.ins().smin(lo, n);
        let hi = self.fb.ins().smin(end, n);
        let hi = self.fb.ins().smax(hi, lo);
        (lo, hi)
    }

    /// The flat offset of `idx` in a C-order array of `shape`.
    pub fn linear(&mut self, idx: &[Cv], shape: &[usize]) -> Cv {
        let mut off: Option<Cv> = None;
        let mut stride = 1i64;
        for (k, &d) in shape.iter().enumerate().rev() {
            if d != 1 {
                let term = if stride == 1 { idx[k] } else { self.fb.ins().imul_imm_s(idx[k], stride) };
                off = Some(match off {
                    Some(o) => self.fb.ins().iadd(o, term),
                    None => term,
                });
            }
            stride = stride.wrapping_mul(d as i64);
        }
        off.unwrap_or_else(|| self.i64c(0))
    }

    /// The address of element `offset` of buffer `buf` holding `dtype`.
    pub fn addr(&mut self, base: Cv, offset: Cv, dtype: DType) -> Cv {
        let bytes = self.fb.ins().imul_imm_s(offset, dtype.size_bytes() as i64);
        self.fb.ins().iadd(base, bytes)
    }

    /// Stores result `k` of the kernel at `idx` of its shape.
    pub(super) fn store_result(&mut self, k: usize, idx: &[Cv]) -> Result<(), Error> {
        let r = self.func.results[k];
        let ty = self.func.ty(r).clone();
        let v = self.value_at(r, idx)?;
        let off = self.linear(idx, &ty.shape);
        let base = self.bufs[self.func.params.len() + k];
        let addr = self.addr(base, off, ty.dtype);
        self.fb.ins().store(mem(), v, addr, 0);
        Ok(())
    }

    /// The scalar loop nest of the whole kernel.
    fn emit_loops(&mut self, start: Cv, end: Cv) -> Result<(), Error> {
        let (dims, dummy) = self.plan.loop_dims();
        let (lo, hi) = self.clamp_range(start, end, dims[0] as i64);
        let mut loops = vec![self.open_loop(lo, hi, 1)];
        let Some(red) = self.plan.reduction.clone() else {
            for &d in &dims[1..] {
                let (lo, hi) = (self.i64c(0), self.i64c(d as i64));
                loops.push(self.open_loop(lo, hi, 1));
            }
            let idx: Index = loops.iter().skip(usize::from(dummy)).map(|l| l.iv).collect();
            self.memo.clear();
            for k in 0..self.func.results.len() {
                self.store_result(k, &idx)?;
            }
            loops.into_iter().rev().for_each(|l| self.close_loop(l));
            return Ok(());
        };
        let kept = red.kept();
        let nouter = usize::from(dummy) + kept.len();
        for &d in &dims[1..nouter] {
            let (lo, hi) = (self.i64c(0), self.i64c(d as i64));
            loops.push(self.open_loop(lo, hi, 1));
        }
        let out_idx: Index = loops.iter().skip(usize::from(dummy)).map(|l| l.iv).collect();
        let vector = match red.kind {
            RedKind::Reduce(op) if self.opts.simd => {
                vector::reduce_lanes(self.func, self.plan, self.has_sse41).map(|lanes| (op, lanes))
            }
            RedKind::Reduce(_) | RedKind::Arg(_) => None,
        };
        let inner = &dims[nouter..];
        let result = match (vector, red.kind) {
            (Some((op, _)), _) => self.reduce_ordered(&red, op, &out_idx, inner, Slots::Vector, None)?,
            // A float sum or product keeps the interpreter's order in scalar code too.
            (None, RedKind::Reduce(op)) if ordered_float(op, self.func.ty(red.input).dtype) && !red.axes.is_empty() => {
                self.reduce_ordered(&red, op, &out_idx, inner, Slots::Scalar, None)?
            }
            (None, _) => self.reduce_scalar(&red, &out_idx, inner)?,
        };
        self.memo.clear();
        self.fixed.insert(red.output, result);
        for k in 0..self.func.results.len() {
            if self.plan.epilogue[k] {
                self.store_result(k, &out_idx)?;
            }
        }
        self.fixed.clear();
        self.memo.clear();
        loops.into_iter().rev().for_each(|l| self.close_loop(l));
        Ok(())
    }

    /// The sequential reduction of one S_out element (the interpreter's order), with the
    /// S_in results written on the way; returns the reduction's value.
    fn reduce_scalar(&mut self, red: &Reduction, out_idx: &[Cv], inner_dims: &[usize]) -> Result<Cv, Error> {
        let kept = red.kept();
        let dtype = self.func.ty(red.input).dtype;
        let ty = ops::cl_type(dtype);
        let acc = self.fb.declare_var(ty);
        let best = self.fb.declare_var(types::I32);
        let init = match red.kind {
            RedKind::Reduce(op) => self.identity(op, dtype),
            RedKind::Arg(_) => self.fb.ins().iconst(ty.as_int(), 0),
        };
        let init = if matches!(red.kind, RedKind::Arg(_)) && ty.is_float() {
            self.fb.ins().bitcast(ty, MemFlagsData::new(), init)
        } else {
            init
        };
        self.fb.def_var(acc, init);
        let zero32 = self.fb.ins().iconst(types::I32, 0);
        self.fb.def_var(best, zero32);
        let mut inner = Vec::new();
        for &d in inner_dims {
            let (lo, hi) = (self.i64c(0), self.i64c(d as i64));
            inner.push(self.open_loop(lo, hi, 1));
        }
        let mut in_idx: Index = SmallVec::from_elem(self.i64c(0), red.in_shape.len());
        for (j, &a) in kept.iter().enumerate() {
            in_idx[a] = out_idx[j];
        }
        for (j, &a) in red.axes.iter().enumerate() {
            in_idx[a] = inner[j].iv;
        }
        self.memo.clear();
        for k in 0..self.func.results.len() {
            if !self.plan.epilogue[k] {
                self.store_result(k, &in_idx)?;
            }
        }
        let x = self.value_at(red.input, &in_idx)?;
        let a = self.fb.use_var(acc);
        match red.kind {
            RedKind::Reduce(op) => {
                // Reducing over no axes is the identity (the interpreter returns `x` as is).
                let next = if red.axes.is_empty() { x } else { self.combine(op, dtype, a, x) };
                self.fb.def_var(acc, next);
            }
            RedKind::Arg(op) => {
                let i = self.fb.ins().ireduce(types::I32, inner[0].iv);
                let b = self.fb.use_var(best);
                let take = self.arg_take(op, dtype, a, x, i);
                let na = self.fb.ins().select(take, x, a);
                let nb = self.fb.ins().select(take, i, b);
                self.fb.def_var(acc, na);
                self.fb.def_var(best, nb);
            }
        }
        inner.into_iter().rev().for_each(|l| self.close_loop(l));
        let result = match red.kind {
            RedKind::Reduce(_) => self.fb.use_var(acc),
            RedKind::Arg(_) => self.fb.use_var(best),
        };
        Ok(result)
    }

    /// The identity of a reduction.
    pub(super) fn identity(&mut self, op: ReduceOp, dtype: DType) -> Cv {
        let v = match op {
            ReduceOp::Sum => 0.0,
            ReduceOp::Prod => 1.0,
            ReduceOp::Max => f64::NEG_INFINITY,
            ReduceOp::Min => f64::INFINITY,
        };
        match (dtype, op) {
            (DType::I32, ReduceOp::Max) => self.fb.ins().iconst(types::I32, i64::from(i32::MIN)),
            (DType::I32, ReduceOp::Min) => self.fb.ins().iconst(types::I32, i64::from(i32::MAX)),
            _ => ops::constant(&mut self.fb, dtype, v),
        }
    }

    /// One step of a reduction: `acc ∘ x`, in the interpreter's argument order.
    pub(super) fn combine(&mut self, op: ReduceOp, dtype: DType, acc: Cv, x: Cv) -> Cv {
        let fb = &mut self.fb;
        match (op, dtype.is_float()) {
            (ReduceOp::Sum, true) => fb.ins().fadd(acc, x),
            (ReduceOp::Sum, false) => fb.ins().iadd(acc, x),
            (ReduceOp::Prod, true) => fb.ins().fmul(acc, x),
            (ReduceOp::Prod, false) => fb.ins().imul(acc, x),
            (ReduceOp::Max, true) => ops::fmax(fb, acc, x),
            (ReduceOp::Max, false) => fb.ins().smax(acc, x),
            (ReduceOp::Min, true) => ops::fmin(fb, acc, x),
            (ReduceOp::Min, false) => fb.ins().smin(acc, x),
        }
    }

    /// Whether element `x` at position `i` replaces the best so far `best`: the first
    /// element always, then (unless the best is a NaN) a NaN or a strictly better value.
    fn arg_take(&mut self, op: ArgOp, dtype: DType, best: Cv, x: Cv, i: Cv) -> Cv {
        let fb = &mut self.fb;
        let first = fb.ins().icmp_imm_s(IntCC::Equal, i, 0);
        let better = match (op, dtype.is_float()) {
            (ArgOp::Argmax, true) => fb.ins().fcmp(FloatCC::GreaterThan, x, best),
            (ArgOp::Argmin, true) => fb.ins().fcmp(FloatCC::LessThan, x, best),
            (ArgOp::Argmax, false) => fb.ins().icmp(IntCC::SignedGreaterThan, x, best),
            (ArgOp::Argmin, false) => fb.ins().icmp(IntCC::SignedLessThan, x, best),
        };
        let step = if dtype.is_float() {
            let x_nan = fb.ins().fcmp(FloatCC::Unordered, x, x);
            let best_ok = fb.ins().fcmp(FloatCC::Ordered, best, best);
            let cand = fb.ins().bor(x_nan, better);
            fb.ins().band(best_ok, cand)
        } else {
            better
        };
        fb.ins().bor(first, step)
    }
}
