//! The SIMD fast path of kernels without a reduction: the innermost loop dimension runs in
//! 128-bit vectors (F32X4, I32X4, F64X2: the widest Cranelift lowers on x64, whatever AVX
//! level the host has) with a scalar tail, when every value on the way from the loads to the
//! results is read contiguously along that dimension or does not depend on it (then it is
//! computed by the scalar code once and splat).
//!
//! Vectorised: loads of parameters, scalar constants, `broadcast_in_dim` (keeping or
//! dropping the innermost axis), `stop_gradient`/`name`, `slice` and `pad` that only shift
//! the innermost axis (unit stride, no interior padding, other axes untouched: a read at a
//! constant offset), `select` on a predicate that is a constant inside the pads (a padded
//! or broadcast constant mask, as reverse mode makes for shifted reads), and the
//! elementwise operations
//! whose vector form is exact and cheap: float `add sub mul div neg abs sqrt rsqrt max min
//! clamp integer_pow`, `floor ceil round` (SSE4.1), i32 `add sub and or not neg` and
//! `mul max min abs` (SSE4.1), f32↔i32 `convert`, and the transcendentals (one call per
//! lane through the math stand-in), `iota` (lane offsets added to the first lane's count),
//! and bools computed in the loop as lane masks (`mask.rs`: comparisons, `select` on them,
//! bool logic, `convert` of a bool). All values must have the same lane count, and no bool
//! may be loaded or stored (bools are bytes: 16 lanes would not match the 4-lane data); any
//! other kernel keeps the scalar loop. A pad restricts the vector loop to the innermost indices
//! where it reads inside its operand (its interior); a scalar head and the scalar tail run
//! the rest (reductions take the vector loop only without such a restriction). Results are
//! identical to the scalar code lane by lane: the
//! same operations in the same order, so the exactness policy of `ops` holds unchanged.

use super::super::math::MathFn;
use super::analysis::{Plan, RedKind};
use super::lower::{Index, Lower};
use super::ops;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value as Cv, types};
use ferrax_ir::{DType, Error, Func, Prim, Value};
use std::collections::HashMap;

/// Memory flags of vector accesses: never trapping, but not aligned to 16 bytes.
fn vmem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// The vector type of `dtype` (`None` for bool).
pub(super) fn vec_type(dtype: DType) -> Option<Type> {
    match dtype {
        DType::Bool => None,
        // A 16-bit float's pattern in each i32 lane: loaded zero-extended, converted
        // lane-wise to and from f32 (the only vector operations on them), stored as i16.
        DType::I32 | DType::BF16 | DType::F16 => Some(types::I32X4),
        DType::F32 => Some(types::F32X4),
        DType::F64 => Some(types::F64X2),
    }
}

/// `-x` for a float vector: the sign bits flipped by a xor with a `-0.0` splat, a
/// constant load (Cranelift's own `fneg` rebuilds the mask in three instructions at every
/// use). The same bits as `fneg`, NaN included.
pub(super) fn vneg(fb: &mut cranelift_frontend::FunctionBuilder, x: Cv) -> Cv {
    let t = fb.func.dfg.value_type(x);
    let m = if t.lane_type() == types::F32 { fb.ins().f32const(-0.0) } else { fb.ins().f64const(-0.0) };
    let m = fb.ins().splat(t, m);
    fb.ins().bxor(x, m)
}

/// Which values the vector body can generate in vectors, read at the loop's innermost
/// index plus a constant offset (slices and pads shift it), and the range of innermost
/// indices where that holds.
pub(super) struct Analysis<'a> {
    pub(super) func: &'a Func,
    pub(super) plan: &'a Plan,
    lanes: u32,
    pub(super) sse41: bool,
    mode: HashMap<(Value, i64), bool>,
    /// Innermost loop indices `[lo, hi)` where every pad on the way reads inside its
    /// operand (its interior): there a pad is a shifted read and a padded constant
    /// predicate is its operand's constant. Outside, the scalar head and tail run.
    lo: i64,
    hi: i64,
}

impl Analysis<'_> {
    pub(super) fn new<'a>(func: &'a Func, plan: &'a Plan, lanes: u32, sse41: bool, n: usize) -> Analysis<'a> {
        Analysis { func, plan, lanes, sse41, mode: HashMap::new(), lo: 0, hi: n as i64 }
    }

    /// Whether the values analysed so far read `v` at the loop's own innermost index (offset
    /// 0), where it can be generated in vectors.
    pub(super) fn read_in_place(&self, v: Value) -> bool {
        self.mode.get(&(v, 0)) == Some(&true)
    }

    /// The values the vector body reads both at the loop's own index and shifted back by
    /// fewer than a vector's lanes, and computes (not loads): a loop can carry each from
    /// one iteration to the next instead of computing it twice (`carry.rs`).
    pub(super) fn carried(&self) -> Vec<Value> {
        let lanes = i64::from(self.lanes);
        let computed = |v: Value| {
            self.plan.defs[v.index()].is_some_and(|(e, _)| {
                matches!(self.func.eqns[e].prim, Prim::Unary(_) | Prim::Binary(_) | Prim::Ternary(_))
            })
        };
        let mut out: Vec<Value> = (self.mode.iter())
            .filter(|&(&(v, off), &ok)| ok && off < 0 && -off < lanes && self.read_in_place(v) && computed(v))
            .map(|(&(v, _), _)| v)
            .collect();
        out.sort_by_key(|v| v.index());
        out.dedup();
        out
    }

    /// Whether any pad restricts the vector range (then a scalar head may be needed).
    fn restricted(&self, n: usize) -> bool {
        self.lo > 0 || self.hi < n as i64
    }

    /// Restricts the range to the interior of a pad read at offset `off` whose operand,
    /// of innermost extent `n`, is read at `i + off + shift`.
    pub(super) fn interior(&mut self, off: i64, shift: i64, n: i64) {
        self.lo = self.lo.max(-(off + shift));
        self.hi = self.hi.min(n - (off + shift));
    }

    /// Whether `v`, read at innermost index `i + off` contiguously along its last axis,
    /// can be generated in vectors.
    pub(super) fn contiguous(&mut self, v: Value, off: i64) -> bool {
        if let Some(&ok) = self.mode.get(&(v, off)) {
            return ok;
        }
        let ok = self.check(v, off);
        self.mode.insert((v, off), ok);
        ok
    }

    /// Whether `v` can be generated in vectors at the loop's own index and held in memory
    /// as one: not a bool (a byte each, where the vector loop's data has 4 or 2 lanes).
    fn stored(&mut self, v: Value) -> bool {
        self.func.ty(v).dtype != DType::Bool && self.contiguous(v, 0)
    }

    /// The value of bool `v` at `i + off` inside the vector range, when it is a constant
    /// there (a constant, or one padded or broadcast).
    pub(super) fn predicate(&mut self, v: Value, off: i64) -> Option<bool> {
        let (e, _) = self.plan.defs[v.index()]?;
        let eqn = &self.func.eqns[e];
        match &eqn.prim {
            Prim::Name { .. } => self.predicate(eqn.inputs[0], off),
            Prim::Unary(op) if ops::passes_through(*op) => self.predicate(eqn.inputs[0], off),
            Prim::Shape(op) => self.shape_predicate(e, op, off),
            _ => None,
        }
    }

    fn check(&mut self, v: Value, off: i64) -> bool {
        let func = self.func;
        let ty = func.ty(v);
        if ty.dtype == DType::Bool {
            return self.mask_vectorises(v, off);
        }
        if vec_type(ty.dtype).map(|t| t.lane_count()) != Some(self.lanes) {
            return false;
        }
        if self.plan.params[v.index()].is_some() {
            return true;
        }
        let Some((e, _)) = self.plan.defs[v.index()] else { return false };
        let eqn = &func.eqns[e];
        if ty.dtype.is_half() || eqn.inputs.iter().any(|&i| func.ty(i).dtype.is_half()) {
            // Legalized 16-bit programs hold 16-bit values only between an f32 value
            // and its rounding: those converts vectorise, nothing else on them does.
            let convert_ok = match eqn.prim.convert_dtype() {
                Some(to) => {
                    let from = func.ty(eqn.inputs[0]).dtype;
                    (from == DType::F32 && to.is_half()) || (from.is_half() && to == DType::F32)
                }
                None => false,
            };
            return convert_ok && eqn.inputs.iter().all(|&i| self.contiguous(i, off));
        }
        let (float, sse41) = (ty.dtype.is_float(), self.sse41);
        let prim_ok = match &eqn.prim {
            Prim::Name { .. } => true,
            Prim::Unary(op) => ops::unary_vectorises(*op, float, sse41),
            Prim::Binary(op) => ops::binary_vectorises(*op, float, sse41),
            Prim::Ternary(op) => return self.ternary_vectorises(e, *op, float, off),
            Prim::Shape(op) => return self.shape_vectorises(e, op, off),
            Prim::Compare(_)
            | Prim::Index(_)
            | Prim::Reduction(_)
            | Prim::Linalg(_)
            | Prim::Random(_)
            | Prim::Memory(_)
            | Prim::Sort(_)
            | Prim::Conv(_)
            | Prim::Window(_)
            | Prim::Collective(_)
            | Prim::Control(_) => false,
        };
        prim_ok && eqn.inputs.iter().all(|&i| self.contiguous(i, off))
    }
}

/// The vector loop of a kernel without a reduction: lanes, the innermost indices
/// `[lo, hi)` it may cover (the rest runs in the scalar head and tail), and the values it
/// can carry from one iteration to the next (`carry.rs`; none without SSE4.1, whose hosts
/// have the `palignr` a lane shift needs: Cranelift would otherwise call out for a general
/// byte shuffle).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct VectorLoop {
    pub lanes: u32,
    pub lo: i64,
    pub hi: i64,
    pub carried: Vec<Value>,
}

/// The vector loop of `func`, if it can have one.
pub(super) fn lanes(func: &Func, plan: &Plan, sse41: bool) -> Option<VectorLoop> {
    if plan.reduction.is_some() || plan.loop_shape.is_empty() || func.results.is_empty() {
        return None;
    }
    let lanes = vec_type(func.ty(func.results[0]).dtype)?.lane_count();
    let n = *plan.loop_shape.last()?;
    let mut a = Analysis::new(func, plan, lanes, sse41, n);
    if !func.results.iter().all(|&r| a.stored(r)) {
        return None;
    }
    let carried = if sse41 { a.carried() } else { Vec::new() };
    Some(VectorLoop { lanes, lo: a.lo.clamp(0, n as i64), hi: a.hi.clamp(0, n as i64), carried })
}

/// The lane count at which every value of `values` (of one lane count) can be generated
/// in vectors along its last axis, if there is one.
pub(super) fn lanes_of(func: &Func, plan: &Plan, sse41: bool, values: &[Value]) -> Option<u32> {
    let first = *values.first()?;
    let lanes = vec_type(func.ty(first).dtype)?.lane_count();
    let n = *func.ty(first).shape.last()?;
    let mut a = Analysis::new(func, plan, lanes, sse41, n);
    // The outer-axis loop has no scalar head: a pad must cover the whole innermost axis.
    (values.iter().all(|&v| a.stored(v)) && !a.restricted(n)).then_some(lanes)
}

impl Lower<'_, '_> {
    /// Stores result `k` at `idx` (innermost index = first lane) from the vector body.
    pub(super) fn store_vector(
        &mut self,
        k: usize,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<(), Error> {
        let r = self.func.results[k];
        let ty = self.func.ty(r).clone();
        let v = self.vec_at(r, idx, vmemo)?;
        let off = self.linear(idx, &ty.shape);
        let base = self.bufs[self.func.params.len() + k];
        let addr = self.addr(base, off, ty.dtype);
        if ty.dtype.is_half() {
            // Each lane's low 16 bits, one store per lane.
            let lanes = self.fb.func.dfg.value_type(v).lane_count() as u8;
            for lane in 0..lanes {
                let bits = self.fb.ins().extractlane(v, lane);
                self.fb.ins().istore16(vmem(), bits, addr, i32::from(lane) * 2);
            }
            return Ok(());
        }
        self.fb.ins().store(vmem(), v, addr, 0);
        Ok(())
    }

    /// Stores the S_in results (not the epilogue's) at `idx` from the vector body of a
    /// reduction loop.
    pub(super) fn store_in_results(
        &mut self,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<(), Error> {
        for k in 0..self.func.results.len() {
            if !self.plan.epilogue[k] {
                self.store_vector(k, idx, vmemo)?;
            }
        }
        Ok(())
    }

    /// The vector of `v` at lanes `idx[last] .. idx[last] + lanes` of its last axis.
    pub(super) fn vec_at(
        &mut self,
        v: Value,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Cv, Error> {
        let key = (v, Index::from_slice(idx));
        if let Some(&c) = vmemo.get(&key) {
            return Ok(c);
        }
        if let Some(c) = self.carried_read(v, idx, vmemo)? {
            vmemo.insert(key, c);
            return Ok(c);
        }
        let c = self.vec_compute(v, idx, vmemo)?;
        vmemo.insert(key, c);
        Ok(c)
    }

    /// Generates `v` at lanes `idx[last] ..` (no memo lookup): a parameter is loaded, any
    /// other value is generated by the vector rule of its defining equation's family.
    fn vec_compute(&mut self, v: Value, idx: &[Cv], vmemo: &mut HashMap<(Value, Index), Cv>) -> Result<Cv, Error> {
        let func = self.func;
        let ty = func.ty(v).clone();
        let Some(vt) = vec_type(ty.dtype) else { return Err(self.err(None, "bool value in a vector loop")) };
        if let Some(p) = self.plan.params[v.index()] {
            let off = self.linear(idx, &ty.shape);
            let addr = self.addr(self.bufs[p], off, ty.dtype);
            if ty.dtype.is_half() {
                return Ok(self.fb.ins().uload16x4(vmem(), addr, 0));
            }
            return Ok(self.fb.ins().load(vt, vmem(), addr, 0));
        }
        let Some((e, _)) = self.plan.defs[v.index()] else { return Err(self.err(None, format!("{v} is not defined"))) };
        let eqn = &func.eqns[e];
        let q = VecEqn { e, prim: &eqn.prim, ins: &eqn.inputs[..], vt, dtype: ty.dtype };
        match &eqn.prim {
            Prim::Name { .. } => self.vec_at(q.ins[0], idx, vmemo),
            Prim::Unary(op) => self.vec_unary(&q, *op, idx, vmemo),
            Prim::Binary(op) => self.vec_binary(&q, *op, idx, vmemo),
            Prim::Ternary(op) => self.vec_ternary(&q, *op, idx, vmemo),
            Prim::Shape(op) => self.vec_shape(&q, op, idx, vmemo),
            Prim::Compare(_)
            | Prim::Index(_)
            | Prim::Reduction(_)
            | Prim::Linalg(_)
            | Prim::Random(_)
            | Prim::Memory(_)
            | Prim::Sort(_)
            | Prim::Conv(_)
            | Prim::Window(_)
            | Prim::Collective(_)
            | Prim::Control(_) => Err(self.no_vector_form(&q)),
        }
    }

    /// The error for an equation the vector analysis should have kept out of the loop.
    pub(super) fn no_vector_form(&self, q: &VecEqn) -> Error {
        self.err(Some(q.e), format!("{} has no vector form", q.prim.name()))
    }

    /// `f` on a vector: `math`'s polynomial kernels, or lane by lane in precise mode.
    pub(super) fn per_lane(&mut self, f: MathFn, args: &[Cv], vt: Type) -> Result<Cv, String> {
        self.imports.emit(&mut self.fb, self.jit, f, args, vt)
    }

    /// The kernel's loop nest with a vector innermost loop of `lanes` over `[lo, hi)`, and
    /// a scalar head and tail for the rest.
    pub(super) fn emit_vector_loops(&mut self, start: Cv, end: Cv, vl: VectorLoop) -> Result<(), Error> {
        let lanes = vl.lanes;
        let dims = self.plan.loop_shape.clone();
        let rank = dims.len();
        let w = i64::from(lanes);
        let (lo, hi) = self.clamp_range(start, end, dims[0] as i64);
        let mut outer = Vec::new();
        let (ilo, ihi) = if rank == 1 {
            (lo, hi)
        } else {
            outer.push(self.open_loop(lo, hi, 1));
            for &d in &dims[1..rank - 1] {
                let (a, b) = (self.i64c(0), self.i64c(d as i64));
                outer.push(self.open_loop(a, b, 1));
            }
            (self.i64c(0), self.i64c(dims[rank - 1] as i64))
        };
        let mut idx: Index = outer.iter().map(|l| l.iv).collect();
        // The scalar head runs up to the vector range; the vector loop covers a multiple
        // of `lanes` from there, inside the range; the tail the rest.
        let (vlo, vhi) = (self.i64c(vl.lo), self.i64c(vl.hi));
        let a = self.fb.ins().smax(ilo, vlo);
        let a = self.fb.ins().smin(a, ihi);
        if vl.lo > 0 {
            self.emit_scalar_loop(ilo, a, &mut idx)?;
        }
        let b = self.fb.ins().smin(ihi, vhi);
        let b = self.fb.ins().smax(b, a);
        let n = self.fb.ins().isub(b, a);
        let nv = self.fb.ins().band_imm_s(n, -w);
        let vend = self.fb.ins().iadd(a, nv);
        // With staged math, the vector loop runs per tile after the tile's staging loops.
        let results = self.func.results.clone();
        let stages = self.stages(&dims, lanes, &results);
        let last = idx.len();
        idx.push(a);
        if vl.carried.is_empty() || !stages.is_empty() {
            self.emit_plain_vector_loop((a, vend, w), &mut idx, last, &stages)?;
        } else {
            self.emit_carried_loop((a, vend, w), &mut idx, last, &vl.carried)?;
        }
        idx.pop();
        self.emit_scalar_loop(vend, ihi, &mut idx)?;
        self.memo.clear();
        outer.into_iter().rev().for_each(|l| self.close_loop(l));
        Ok(())
    }
}

impl Lower<'_, '_> {
    /// A scalar loop storing every result over innermost indices `[lo, hi)` (the head or
    /// the tail of a vector loop), at `idx` extended by the loop's index.
    fn emit_scalar_loop(&mut self, lo: Cv, hi: Cv, idx: &mut Index) -> Result<(), Error> {
        let l = self.open_loop(lo, hi, 1);
        idx.push(l.iv);
        self.memo.clear();
        for k in 0..self.func.results.len() {
            self.store_result(k, idx)?;
        }
        self.close_loop(l);
        idx.pop();
        Ok(())
    }

    /// The vector loop over `[a, vend)` in steps of `w` at `idx[last]`, inside a loop over
    /// tiles when math is staged.
    fn emit_plain_vector_loop(
        &mut self,
        (a, vend, w): (Cv, Cv, i64),
        idx: &mut Index,
        last: usize,
        stages: &[super::tile::Stage],
    ) -> Result<(), Error> {
        let results = self.func.results.clone();
        let tile = if stages.is_empty() { None } else { Some(self.open_tile(stages, idx, last, a, vend)?) };
        let (va, vb) = tile.as_ref().map_or((a, vend), |(tl, te)| (tl.iv, *te));
        let vl = self.open_loop(va, vb, w);
        idx[last] = vl.iv;
        let mut vmemo = HashMap::new();
        if let Some((tl, _)) = &tile {
            let seeds = self.read_by(&results, stages);
            self.seed_stages(&seeds, idx, last, tl.iv, &mut vmemo);
        }
        self.vector_body(idx, vmemo, &[], &[])?;
        self.close_loop(vl);
        if let Some((tl, _)) = tile {
            self.close_loop(tl);
        }
        Ok(())
    }
}

/// The lane count of a vector reduction loop, if the kernel's reduction can have one: a
/// `reduce_*` over axes that include the innermost one, whose input and S_in results are
/// read contiguously along it (the S_in results are stored from the same vectors).
pub(super) fn reduce_lanes(func: &Func, plan: &Plan, sse41: bool) -> Option<u32> {
    let red = plan.reduction.as_ref()?;
    let RedKind::Reduce(op) = red.kind else { return None };
    if red.axes.last() != Some(&(red.in_shape.len().checked_sub(1)?)) {
        return None;
    }
    let in_results: Vec<Value> =
        func.results.iter().zip(&plan.epilogue).filter(|&(_, &e)| !e).map(|(&r, _)| r).collect();
    let dtype = func.ty(red.input).dtype;
    let lanes = vec_type(dtype)?.lane_count();
    if !super::lower::reduce_vectorises(op, dtype, sse41) {
        return None;
    }
    let n = *red.in_shape.last()?;
    let mut a = Analysis::new(func, plan, lanes, sse41, n);
    // A pad restricting the range would need a scalar head in every row: scalar loop.
    let ok = a.stored(red.input) && in_results.iter().all(|&r| a.stored(r));
    (ok && !a.restricted(n)).then_some(lanes)
}

/// One equation of the vector body: where it is (for errors), its operands, and the
/// vector type and dtype of its result.
pub(super) struct VecEqn<'a> {
    pub(super) e: usize,
    pub(super) prim: &'a Prim,
    pub(super) ins: &'a [Value],
    pub(super) vt: Type,
    pub(super) dtype: DType,
}
