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
//! lane through the math stand-in). All values must have the same lane count, and no bool
//! value may appear (bools are bytes: 16 lanes would not match the 4-lane data); any other
//! kernel keeps the scalar loop. A pad restricts the vector loop to the innermost indices
//! where it reads inside its operand (its interior); a scalar head and the scalar tail run
//! the rest (reductions take the vector loop only without such a restriction). Results are
//! identical to the scalar code lane by lane: the
//! same operations in the same order, so the exactness policy of `ops` holds unchanged.

use super::super::math::MathFn;
use super::analysis::{Plan, RedKind};
use super::lower::{Index, Lower};
use super::ops;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value as Cv, types};
use ferrax_ir::prim::{BinaryOp, ReduceOp, UnaryOp};
use ferrax_ir::prim::{ShapeOp, TernaryOp};
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
        DType::I32 => Some(types::I32X4),
        DType::F32 => Some(types::F32X4),
        DType::F64 => Some(types::F64X2),
    }
}

/// `-x` for a float vector: the sign bits flipped by a xor with a `-0.0` splat, a
/// constant load (Cranelift's own `fneg` rebuilds the mask in three instructions at every
/// use). The same bits as `fneg`, NaN included.
fn vneg(fb: &mut cranelift_frontend::FunctionBuilder, x: Cv) -> Cv {
    let t = fb.func.dfg.value_type(x);
    let m = if t.lane_type() == types::F32 { fb.ins().f32const(-0.0) } else { fb.ins().f64const(-0.0) };
    let m = fb.ins().splat(t, m);
    fb.ins().bxor(x, m)
}

/// Which values the vector body can generate in vectors, read at the loop's innermost
/// index plus a constant offset (slices and pads shift it), and the range of innermost
/// indices where that holds.
pub(super) struct Analysis<'a> {
    func: &'a Func,
    plan: &'a Plan,
    lanes: u32,
    sse41: bool,
    mode: HashMap<(Value, i64), bool>,
    /// Innermost loop indices `[lo, hi)` where every pad on the way reads inside its
    /// operand (its interior): there a pad is a shifted read and a padded constant
    /// predicate is its operand's constant. Outside, the scalar head and tail run.
    lo: i64,
    hi: i64,
}

/// The view of a pad or slice along the innermost axis, when every other axis is the
/// identity (so only the innermost index shifts): the shift of the operand's index and,
/// for a pad, its operand's extent (the interior).
fn last_axis_shift(func: &Func, prim: &Prim, x: Value) -> Option<(i64, Option<i64>)> {
    let xs = &func.ty(x).shape;
    let last = xs.len().checked_sub(1)?;
    match prim {
        Prim::Shape(ShapeOp::Slice { start, limit, strides }) => {
            let other_ok = (0..last).all(|k| start[k] == 0 && limit[k] == xs[k] && strides[k] == 1);
            (other_ok && strides[last] == 1).then_some((start[last] as i64, None))
        }
        Prim::Shape(ShapeOp::Pad { low, high, interior }) => {
            let other_ok = (0..last).all(|k| low[k] == 0 && high[k] == 0 && interior[k] == 0);
            (other_ok && interior[last] == 0 && xs[last] > 0).then_some((-low[last], Some(xs[last] as i64)))
        }
        _ => None,
    }
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

    /// Whether any pad restricts the vector range (then a scalar head may be needed).
    fn restricted(&self, n: usize) -> bool {
        self.lo > 0 || self.hi < n as i64
    }

    /// Restricts the range to the interior of a pad read at offset `off` whose operand,
    /// of innermost extent `n`, is read at `i + off + shift`.
    fn interior(&mut self, off: i64, shift: i64, n: i64) {
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

    /// The value of bool `v` at `i + off` inside the vector range, when it is a constant
    /// there (a constant, or one padded or broadcast).
    fn predicate(&mut self, v: Value, off: i64) -> Option<bool> {
        let func = self.func;
        let (e, _) = self.plan.defs[v.index()]?;
        let eqn = &func.eqns[e];
        match &eqn.prim {
            Prim::Shape(ShapeOp::Constant { value, .. }) => match value.data() {
                ferrax_array::Data::Bool(b) => {
                    let first = *b.first()?;
                    b.iter().all(|&x| x == first).then_some(first)
                }
                _ => None,
            },
            Prim::Unary(UnaryOp::StopGradient) | Prim::Name { .. } => self.predicate(eqn.inputs[0], off),
            Prim::Shape(ShapeOp::BroadcastInDim { .. }) => {
                // A broadcast constant is that constant wherever it is read.
                let x = eqn.inputs[0];
                let constant = self.plan.defs[x.index()]
                    .is_some_and(|(d, _)| matches!(func.eqns[d].prim, Prim::Shape(ShapeOp::Constant { .. })));
                if constant { self.predicate(x, 0) } else { None }
            }
            Prim::Shape(ShapeOp::Pad { .. }) | Prim::Shape(ShapeOp::Slice { .. }) => {
                let x = eqn.inputs[0];
                let (shift, interior) = last_axis_shift(func, &eqn.prim, x)?;
                let c = self.predicate(x, off + shift)?;
                if let Some(n) = interior {
                    self.interior(off, shift, n);
                }
                Some(c)
            }
            _ => None,
        }
    }

    fn check(&mut self, v: Value, off: i64) -> bool {
        let func = self.func;
        let ty = func.ty(v);
        if vec_type(ty.dtype).map(|t| t.lane_count()) != Some(self.lanes) {
            return false;
        }
        if self.plan.params[v.index()].is_some() {
            return true;
        }
        let Some((e, _)) = self.plan.defs[v.index()] else { return false };
        let eqn = &func.eqns[e];
        let float = ty.dtype.is_float();
        let sse41 = self.sse41;
        let prim_ok = match &eqn.prim {
            Prim::Unary(UnaryOp::StopGradient) | Prim::Name { .. } => true,
            Prim::Shape(ShapeOp::Constant { value, .. }) => return value.len() == 1,
            Prim::Shape(ShapeOp::BroadcastInDim { shape, dims }) => {
                let x = eqn.inputs[0];
                let xs = &func.ty(x).shape;
                let last = shape.len() - 1;
                let keeps = dims.last() == Some(&last) && xs[xs.len() - 1] == shape[last];
                return !keeps || self.contiguous(x, off);
            }
            Prim::Shape(ShapeOp::Slice { .. }) | Prim::Shape(ShapeOp::Pad { .. }) => {
                let x = eqn.inputs[0];
                let Some((shift, interior)) = last_axis_shift(func, &eqn.prim, x) else { return false };
                if let Some(n) = interior {
                    self.interior(off, shift, n);
                }
                return self.contiguous(x, off + shift);
            }
            Prim::Ternary(TernaryOp::Select) => {
                let Some(c) = self.predicate(eqn.inputs[0], off) else { return false };
                return self.contiguous(eqn.inputs[if c { 1 } else { 2 }], off);
            }
            Prim::Unary(UnaryOp::IntegerPow { y }) => float || (sse41 && *y >= 0),
            Prim::Unary(UnaryOp::Convert { .. }) => true,
            Prim::Unary(op) => match op {
                UnaryOp::Neg | UnaryOp::Not => true,
                UnaryOp::Abs => float || sse41,
                UnaryOp::Sqrt | UnaryOp::Rsqrt => float,
                UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round => float && sse41,
                UnaryOp::Exp
                | UnaryOp::Log
                | UnaryOp::Log1p
                | UnaryOp::Expm1
                | UnaryOp::Sin
                | UnaryOp::Cos
                | UnaryOp::Tan
                | UnaryOp::Tanh
                | UnaryOp::Logistic
                | UnaryOp::Erf => float,
                UnaryOp::Sign
                | UnaryOp::IsFinite
                | UnaryOp::StopGradient
                | UnaryOp::IntegerPow { .. }
                | UnaryOp::Convert { .. } => false,
            },
            Prim::Binary(op) => match op {
                BinaryOp::Add | BinaryOp::Sub => true,
                BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min => float || sse41,
                BinaryOp::Div | BinaryOp::Rem | BinaryOp::Pow | BinaryOp::Atan2 => float,
                BinaryOp::And | BinaryOp::Or => !float,
            },
            Prim::Ternary(TernaryOp::Clamp) => float || sse41,
            _ => false,
        };
        prim_ok && eqn.inputs.iter().all(|&i| self.contiguous(i, off))
    }
}

/// The vector loop of a kernel without a reduction: lanes, and the innermost indices
/// `[lo, hi)` it may cover (the rest runs in the scalar head and tail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct VectorLoop {
    pub lanes: u32,
    pub lo: i64,
    pub hi: i64,
}

/// The vector loop of `func`, if it can have one.
pub(super) fn lanes(func: &Func, plan: &Plan, sse41: bool) -> Option<VectorLoop> {
    if plan.reduction.is_some() || plan.loop_shape.is_empty() || func.results.is_empty() {
        return None;
    }
    let lanes = vec_type(func.ty(func.results[0]).dtype)?.lane_count();
    let n = *plan.loop_shape.last()?;
    let mut a = Analysis::new(func, plan, lanes, sse41, n);
    let ok = func.results.iter().all(|&r| a.contiguous(r, 0));
    ok.then_some(VectorLoop { lanes, lo: a.lo.clamp(0, n as i64), hi: a.hi.clamp(0, n as i64) })
}

/// The lane count at which every value of `values` (of one lane count) can be generated
/// in vectors along its last axis, if there is one.
pub(super) fn lanes_of(func: &Func, plan: &Plan, sse41: bool, values: &[Value]) -> Option<u32> {
    let first = *values.first()?;
    let lanes = vec_type(func.ty(first).dtype)?.lane_count();
    let n = *func.ty(first).shape.last()?;
    let mut a = Analysis::new(func, plan, lanes, sse41, n);
    // The outer-axis loop has no scalar head: a pad must cover the whole innermost axis.
    (values.iter().all(|&v| a.contiguous(v, 0)) && !a.restricted(n)).then_some(lanes)
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
            | Prim::Control(_) => Err(self.no_vector_form(&q)),
        }
    }

    /// The error for an equation the vector analysis should have kept out of the loop.
    fn no_vector_form(&self, q: &VecEqn) -> Error {
        self.err(Some(q.e), format!("{} has no vector form", q.prim.name()))
    }

    /// A unary op in vectors: `stop_gradient` passes its operand through, `integer_pow`
    /// and `convert` have their own vector forms, the rest is [`Lower::vec_unary_of`].
    fn vec_unary(
        &mut self,
        q: &VecEqn,
        op: UnaryOp,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Cv, Error> {
        match op {
            UnaryOp::StopGradient => self.vec_at(q.ins[0], idx, vmemo),
            UnaryOp::IntegerPow { y } => {
                let x = self.vec_at(q.ins[0], idx, vmemo)?;
                Ok(ops::integer_pow(&mut self.fb, q.dtype, y, x))
            }
            UnaryOp::Convert { dtype } => {
                let from = self.func.ty(q.ins[0]).dtype;
                let x = self.vec_at(q.ins[0], idx, vmemo)?;
                Ok(match (from.is_float(), dtype.is_float()) {
                    (true, false) => self.fb.ins().fcvt_to_sint_sat(q.vt, x),
                    (false, true) => self.fb.ins().fcvt_from_sint(q.vt, x),
                    _ => x,
                })
            }
            UnaryOp::Exp
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Expm1
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Tan
            | UnaryOp::Tanh
            | UnaryOp::Logistic
            | UnaryOp::Erf
            | UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Round
            | UnaryOp::Not
            | UnaryOp::Sign
            | UnaryOp::IsFinite => {
                let x = self.vec_at(q.ins[0], idx, vmemo)?;
                self.vec_unary_of(q, op, x)
            }
        }
    }

    /// An elementwise unary op on the vector `x`: the transcendentals through the math
    /// stand-in (`per_lane`), the others as one Cranelift instruction or two.
    fn vec_unary_of(&mut self, q: &VecEqn, op: UnaryOp, x: Cv) -> Result<Cv, Error> {
        let fb = &mut self.fb;
        let float = q.dtype.is_float();
        let f = match op {
            UnaryOp::Exp => MathFn::Exp,
            UnaryOp::Log => MathFn::Log,
            UnaryOp::Log1p => MathFn::Log1p,
            UnaryOp::Expm1 => MathFn::Expm1,
            UnaryOp::Sin => MathFn::Sin,
            UnaryOp::Cos => MathFn::Cos,
            UnaryOp::Tan => MathFn::Tan,
            UnaryOp::Tanh => MathFn::Tanh,
            UnaryOp::Logistic => MathFn::Logistic,
            UnaryOp::Erf => MathFn::Erf,
            UnaryOp::Neg if float => return Ok(vneg(fb, x)),
            UnaryOp::Neg => return Ok(fb.ins().ineg(x)),
            UnaryOp::Abs if float => return Ok(fb.ins().fabs(x)),
            UnaryOp::Abs => return Ok(fb.ins().iabs(x)),
            UnaryOp::Sqrt => return Ok(fb.ins().sqrt(x)),
            UnaryOp::Rsqrt => {
                let s = fb.ins().sqrt(x);
                let one = ops::constant(fb, q.dtype, 1.0);
                let one = fb.ins().splat(q.vt, one);
                return Ok(fb.ins().fdiv(one, s));
            }
            UnaryOp::Floor => return Ok(fb.ins().floor(x)),
            UnaryOp::Ceil => return Ok(fb.ins().ceil(x)),
            UnaryOp::Round => return Ok(fb.ins().nearest(x)),
            UnaryOp::Not => return Ok(fb.ins().bnot(x)),
            UnaryOp::Sign
            | UnaryOp::IsFinite
            | UnaryOp::StopGradient
            | UnaryOp::IntegerPow { .. }
            | UnaryOp::Convert { .. } => return Err(self.no_vector_form(q)),
        };
        self.per_lane(f, &[x], q.vt).map_err(|m| self.err(Some(q.e), m))
    }

    /// A binary op in vectors: a multiply feeding an add or subtract as one fused
    /// multiply-add where `contraction` allows it, `pow`, `atan2` and `rem` through the
    /// math stand-in, the rest as in the scalar code.
    fn vec_binary(
        &mut self,
        q: &VecEqn,
        op: BinaryOp,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Cv, Error> {
        if let Some((a, b, c, negate)) = self.contraction(op, q.dtype, q.ins[0], q.ins[1]) {
            let a = self.vec_at(a, idx, vmemo)?;
            let b = self.vec_at(b, idx, vmemo)?;
            let c = self.vec_at(c, idx, vmemo)?;
            let c = if negate { vneg(&mut self.fb, c) } else { c };
            return Ok(self.fb.ins().fma(a, b, c));
        }
        let a = self.vec_at(q.ins[0], idx, vmemo)?;
        let b = self.vec_at(q.ins[1], idx, vmemo)?;
        let f = match op {
            BinaryOp::Pow => Some(MathFn::Pow),
            BinaryOp::Atan2 => Some(MathFn::Atan2),
            BinaryOp::Rem => Some(MathFn::Fmod),
            _ => None,
        };
        if let Some(f) = f {
            return self.per_lane(f, &[a, b], q.vt).map_err(|m| self.err(Some(q.e), m));
        }
        self.binary(op, q.dtype, a, b).map_err(|m| self.err(Some(q.e), m))
    }

    /// `select` (on a predicate constant inside the vector loop's range, so one operand
    /// is chosen for all lanes) or `clamp` in vectors.
    fn vec_ternary(
        &mut self,
        q: &VecEqn,
        op: TernaryOp,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Cv, Error> {
        match op {
            TernaryOp::Select => {
                let n = *self.plan.loop_shape.last().unwrap_or(&0);
                let mut a = Analysis::new(self.func, self.plan, 0, self.has_sse41, n);
                let Some(c) = a.predicate(q.ins[0], 0) else {
                    return Err(self.err(Some(q.e), "a select on a non-constant predicate in a vector loop"));
                };
                self.vec_at(q.ins[if c { 1 } else { 2 }], idx, vmemo)
            }
            TernaryOp::Clamp => {
                let lo = self.vec_at(q.ins[0], idx, vmemo)?;
                let x = self.vec_at(q.ins[1], idx, vmemo)?;
                let hi = self.vec_at(q.ins[2], idx, vmemo)?;
                Ok(ops::clamp(&mut self.fb, q.dtype, lo, x, hi))
            }
        }
    }

    /// A structural op in vectors: a splat constant, a broadcast (a vector when it keeps
    /// the innermost axis, else a splat scalar), or a slice or pad that shifts the
    /// innermost index by a constant. The other views move elements across lanes and
    /// have no vector form.
    fn vec_shape(
        &mut self,
        q: &VecEqn,
        op: &ShapeOp,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Cv, Error> {
        match op {
            ShapeOp::Constant { value, .. } => {
                let c = ops::constant_of(&mut self.fb, value, 0);
                Ok(self.fb.ins().splat(q.vt, c))
            }
            ShapeOp::BroadcastInDim { shape, dims } => {
                let x = q.ins[0];
                let xs = self.func.ty(x).shape.clone();
                let last = shape.len() - 1;
                let mut at = Index::new();
                for (i, &d) in dims.iter().enumerate() {
                    at.push(if xs[i] == shape[d] { idx[d] } else { self.i64c(0) });
                }
                if dims.last() == Some(&last) && xs[xs.len() - 1] == shape[last] {
                    self.vec_at(x, &at, vmemo)
                } else {
                    let s = self.value_at(x, &at)?;
                    Ok(self.fb.ins().splat(q.vt, s))
                }
            }
            ShapeOp::Slice { .. } | ShapeOp::Pad { .. } => {
                let Some((shift, _)) = last_axis_shift(self.func, q.prim, q.ins[0]) else {
                    return Err(self.err(Some(q.e), "a strided or multi-axis view in a vector loop"));
                };
                let mut at = Index::from_slice(idx);
                if let Some(last) = at.last_mut()
                    && shift != 0
                {
                    *last = self.fb.ins().iadd_imm_s(*last, shift);
                }
                self.vec_at(q.ins[0], &at, vmemo)
            }
            ShapeOp::Reshape { .. }
            | ShapeOp::Transpose { .. }
            | ShapeOp::Rev { .. }
            | ShapeOp::Concatenate { .. }
            | ShapeOp::Iota { .. } => Err(self.no_vector_form(q)),
        }
    }

    /// `f` on a vector: `math`'s polynomial kernels, or lane by lane in precise mode.
    fn per_lane(&mut self, f: MathFn, args: &[Cv], vt: Type) -> Result<Cv, String> {
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
            let hl = self.open_loop(ilo, a, 1);
            idx.push(hl.iv);
            self.memo.clear();
            for k in 0..self.func.results.len() {
                self.store_result(k, &idx)?;
            }
            self.close_loop(hl);
            idx.pop();
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
        let tile = if stages.is_empty() { None } else { Some(self.open_tile(&stages, &mut idx, last, a, vend)?) };
        let (va, vb) = tile.as_ref().map_or((a, vend), |(tl, te)| (tl.iv, *te));
        let vl = self.open_loop(va, vb, w);
        idx[last] = vl.iv;
        self.memo.clear();
        let mut vmemo = HashMap::new();
        if let Some((tl, _)) = &tile {
            let seeds = self.read_by(&results, &stages);
            self.seed_stages(&seeds, &idx, last, tl.iv, &mut vmemo);
        }
        for k in 0..self.func.results.len() {
            self.store_vector(k, &idx, &mut vmemo)?;
        }
        self.close_loop(vl);
        if let Some((tl, _)) = tile {
            self.close_loop(tl);
        }
        idx.pop();
        let tl = self.open_loop(vend, ihi, 1);
        idx.push(tl.iv);
        self.memo.clear();
        for k in 0..self.func.results.len() {
            self.store_result(k, &idx)?;
        }
        self.close_loop(tl);
        self.memo.clear();
        outer.into_iter().rev().for_each(|l| self.close_loop(l));
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
    if !dtype.is_float() && op != ReduceOp::Sum && !sse41 {
        return None;
    }
    let n = *red.in_shape.last()?;
    let mut a = Analysis::new(func, plan, lanes, sse41, n);
    // A pad restricting the range would need a scalar head in every row: scalar loop.
    let ok = a.contiguous(red.input, 0) && in_results.iter().all(|&r| a.contiguous(r, 0));
    (ok && !a.restricted(n)).then_some(lanes)
}

/// One equation of the vector body: where it is (for errors), its operands, and the
/// vector type and dtype of its result.
struct VecEqn<'a> {
    e: usize,
    prim: &'a Prim,
    ins: &'a [Value],
    vt: Type,
    dtype: DType,
}
