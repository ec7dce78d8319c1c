//! The elementwise families (unary, binary, compare, ternary) in kernels: their scalar
//! forms on Cranelift values, which of them vectorise, and their vector forms for the
//! SIMD loop of `vector.rs`, all with the reference interpreter's semantics: i32
//! arithmetic wraps, division and remainder never trap (`x/0 = -1`, `MIN/-1 = MIN`,
//! `rem(x, 0) = x`, `rem(MIN, -1) = 0`), float→int converts saturate with NaN→0, `round`
//! is half to even, `max`/`min` propagate NaN (a NaN, not necessarily the interpreter's
//! payload, which the exactness policy does not compare) and order `-0 < +0`, `sign`
//! keeps zeros and NaN. Bools are `i8` 0/1 in registers and in memory. A new elementwise
//! op is one arm in each of these matches.

use super::super::math::MathFn;
use super::lower::{Index, Lower};
use super::vector::{Analysis, VecEqn, vneg};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Type, Value as Cv, types};
use cranelift_frontend::FunctionBuilder;
use ferrax_ir::array::Data;
use ferrax_ir::prim::{BinaryOp, CompareOp, TernaryOp, UnaryOp};
use ferrax_ir::{Array, DType, Error, Prim, Value};
use std::collections::HashMap;

/// The Cranelift type of one element of `dtype`.
pub(crate) fn cl_type(dtype: DType) -> Type {
    match dtype {
        DType::Bool => types::I8,
        // Storage only: Cranelift has no 16-bit float arithmetic on x86-64.
        DType::BF16 | DType::F16 => types::I16,
        DType::I32 => types::I32,
        DType::F32 => types::F32,
        DType::F64 => types::F64,
    }
}

/// A constant of `dtype` with value `v` (converted as the IR converts: bool is `v != 0`).
pub(crate) fn constant(fb: &mut FunctionBuilder, dtype: DType, v: f64) -> Cv {
    match dtype {
        DType::Bool => fb.ins().iconst(types::I8, i64::from(v != 0.0)),
        DType::I32 => fb.ins().iconst(types::I32, i64::from(v as i32)),
        DType::F32 => fb.ins().f32const(v as f32),
        DType::F64 => fb.ins().f64const(v),
        DType::BF16 => fb.ins().iconst(types::I16, i64::from(ferrax_ir::array::bf16_from_f64(v).to_bits())),
        DType::F16 => fb.ins().iconst(types::I16, i64::from(ferrax_ir::array::f16_from_f64(v).to_bits())),
    }
}

/// Element `i` of `value` as a constant.
pub(crate) fn constant_of(fb: &mut FunctionBuilder, value: &Array, i: usize) -> Cv {
    match value.data() {
        Data::Bool(v) => fb.ins().iconst(types::I8, i64::from(v[i])),
        Data::I32(v) => fb.ins().iconst(types::I32, i64::from(v[i])),
        Data::F32(v) => fb.ins().f32const(v[i]),
        Data::F64(v) => fb.ins().f64const(v[i]),
        Data::BF16(v) => fb.ins().iconst(types::I16, i64::from(v[i].to_bits())),
        Data::F16(v) => fb.ins().iconst(types::I16, i64::from(v[i].to_bits())),
    }
}

/// An i64 loop index as `dtype` (iota).
pub(crate) fn from_index(fb: &mut FunctionBuilder, dtype: DType, i: Cv) -> Cv {
    match dtype {
        DType::Bool => fb.ins().icmp_imm_s(IntCC::NotEqual, i, 0),
        DType::I32 => fb.ins().ireduce(types::I32, i),
        DType::F32 => fb.ins().fcvt_from_sint(types::F32, i),
        DType::F64 => fb.ins().fcvt_from_sint(types::F64, i),
        DType::BF16 | DType::F16 => {
            let wide = fb.ins().fcvt_from_sint(types::F32, i);
            convert(fb, DType::F32, dtype, wide)
        }
    }
}

/// `x` reinterpreted as `ty` (vectors with explicit lane order, as Cranelift requires).
pub(crate) fn reinterpret(fb: &mut FunctionBuilder, ty: Type, x: Cv) -> Cv {
    if fb.func.dfg.value_type(x) == ty {
        return x;
    }
    let flags =
        if ty.is_vector() { MemFlagsData::new().with_endianness(Endianness::Little) } else { MemFlagsData::new() };
    fb.ins().bitcast(ty, flags, x)
}

/// The bits of float `x` (scalar or vector) as integers of the same width.
fn bits(fb: &mut FunctionBuilder, x: Cv) -> Cv {
    let ty = fb.func.dfg.value_type(x);
    reinterpret(fb, ty.as_int(), x)
}

/// `cond ? a : b`: a `select` on scalars; on vectors, `cond` is a lane mask (a compare
/// result) and the choice is a `bitselect`.
pub(crate) fn sel(fb: &mut FunctionBuilder, cond: Cv, a: Cv, b: Cv) -> Cv {
    let ty = fb.func.dfg.value_type(a);
    if ty.is_vector() {
        let mask = reinterpret(fb, ty, cond);
        fb.ins().bitselect(mask, a, b)
    } else {
        fb.ins().select(cond, a, b)
    }
}

/// A fused multiply-add `fma(±a, b, ±c)` that replaces an `add`/`sub` of a product.
pub(crate) struct Contraction {
    /// The product's factors.
    pub a: Value,
    pub b: Value,
    /// The other operand.
    pub c: Value,
    /// `c` is subtracted (`a·b - c`).
    pub negate_c: bool,
    /// The product is subtracted (`c - a·b`).
    pub negate_product: bool,
}

/// Float `max(a, b)`: NaN if either is NaN, `+0` for `max(-0, +0)`.
pub(crate) fn fmax(fb: &mut FunctionBuilder, a: Cv, b: Cv) -> Cv {
    fminmax(fb, a, b, true)
}

/// Float `min(a, b)`: NaN if either is NaN, `-0` for `min(-0, +0)`.
pub(crate) fn fmin(fb: &mut FunctionBuilder, a: Cv, b: Cv) -> Cv {
    fminmax(fb, a, b, false)
}

/// `x > y ? x : y` (`max`) or `x < y ? x : y`: the second operand when they are equal or
/// unordered. On vectors this compare-and-select is one `maxps`/`minps` (or `pd`).
fn pick(fb: &mut FunctionBuilder, x: Cv, y: Cv, max: bool) -> Cv {
    let takes_x = if max { fb.ins().fcmp(FloatCC::LessThan, y, x) } else { fb.ins().fcmp(FloatCC::LessThan, x, y) };
    sel(fb, takes_x, x, y)
}

/// Float max or min, exactly (the interpreter's value; any NaN for a NaN). The picks in
/// both orders agree unless the operands are equal or unordered; for equal ones (identical
/// bits, or ±0) the and (max) or or (min) of the two picks' bits orders the zeros. On vectors
/// a lane with a NaN operand is then set to all ones (a NaN) by or-ing the unordered mask:
/// five instructions and no blend, which matters most in the accumulator chain of a
/// reduction. Scalars select `a + b` (a NaN) instead, a bool not being a lane mask.
fn fminmax(fb: &mut FunctionBuilder, a: Cv, b: Cv, max: bool) -> Cv {
    let ty = fb.func.dfg.value_type(a);
    let (p, q) = (pick(fb, a, b, max), pick(fb, b, a, max));
    let (pb, qb) = (bits(fb, p), bits(fb, q));
    let merged = if max { fb.ins().band(pb, qb) } else { fb.ins().bor(pb, qb) };
    let nan = fb.ins().fcmp(FloatCC::Unordered, a, b);
    if ty.is_vector() {
        let r = fb.ins().bor(merged, nan);
        reinterpret(fb, ty, r)
    } else {
        let merged = reinterpret(fb, ty, merged);
        let sum = fb.ins().fadd(a, b);
        fb.ins().select(nan, sum, merged)
    }
}

/// `clamp(lo, x, hi) = min(max(x, lo), hi)`.
pub(crate) fn clamp(fb: &mut FunctionBuilder, dtype: DType, lo: Cv, x: Cv, hi: Cv) -> Cv {
    if dtype.is_float() {
        let m = fmax(fb, x, lo);
        fmin(fb, m, hi)
    } else {
        let m = fb.ins().smax(x, lo);
        fb.ins().smin(m, hi)
    }
}

/// A comparison of two `dtype` values; the result is a bool (`i8` 0/1).
pub(crate) fn compare(fb: &mut FunctionBuilder, op: CompareOp, dtype: DType, a: Cv, b: Cv) -> Cv {
    if dtype.is_float() {
        let cc = match op {
            CompareOp::Eq => FloatCC::Equal,
            CompareOp::Ne => FloatCC::NotEqual,
            CompareOp::Lt => FloatCC::LessThan,
            CompareOp::Le => FloatCC::LessThanOrEqual,
            CompareOp::Gt => FloatCC::GreaterThan,
            CompareOp::Ge => FloatCC::GreaterThanOrEqual,
        };
        fb.ins().fcmp(cc, a, b)
    } else {
        let signed = dtype == DType::I32;
        let cc = match (op, signed) {
            (CompareOp::Eq, _) => IntCC::Equal,
            (CompareOp::Ne, _) => IntCC::NotEqual,
            (CompareOp::Lt, true) => IntCC::SignedLessThan,
            (CompareOp::Le, true) => IntCC::SignedLessThanOrEqual,
            (CompareOp::Gt, true) => IntCC::SignedGreaterThan,
            (CompareOp::Ge, true) => IntCC::SignedGreaterThanOrEqual,
            (CompareOp::Lt, false) => IntCC::UnsignedLessThan,
            (CompareOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
            (CompareOp::Gt, false) => IntCC::UnsignedGreaterThan,
            (CompareOp::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
        };
        fb.ins().icmp(cc, a, b)
    }
}

/// `convert` from `from` to `to`.
pub(crate) fn convert(fb: &mut FunctionBuilder, from: DType, to: DType, x: Cv) -> Cv {
    match (from, to) {
        (DType::BF16 | DType::F16, _) | (_, DType::BF16 | DType::F16) => convert_half(fb, from, to, x),
        (DType::Bool, DType::Bool) | (DType::I32, DType::I32) => x,
        (DType::Bool, DType::I32) => fb.ins().uextend(types::I32, x),
        (DType::Bool, DType::F32 | DType::F64) => {
            let i = fb.ins().uextend(types::I32, x);
            fb.ins().fcvt_from_sint(cl_type(to), i)
        }
        (DType::I32, DType::Bool) => fb.ins().icmp_imm_s(IntCC::NotEqual, x, 0),
        (DType::I32, _) => fb.ins().fcvt_from_sint(cl_type(to), x),
        (DType::F32 | DType::F64, DType::Bool) => {
            let z = constant(fb, from, 0.0);
            fb.ins().fcmp(FloatCC::NotEqual, x, z)
        }
        (DType::F32 | DType::F64, DType::I32) => fb.ins().fcvt_to_sint_sat(types::I32, x),
        (DType::F32, DType::F64) => fb.ins().fpromote(types::F64, x),
        (DType::F64, DType::F32) => fb.ins().fdemote(types::F32, x),
        (DType::F32 | DType::F64, _) => x,
    }
}

/// `convert` from or to a 16-bit float, through f32 (exact from them; to them one
/// rounding, two from f64, which differ only on a tie of the 16-bit type that the f64
/// to f32 rounding broke).
fn convert_half(fb: &mut FunctionBuilder, from: DType, to: DType, x: Cv) -> Cv {
    if from == to {
        return x;
    }
    let wide = match from.is_half() {
        true => {
            let bits = super::half::from_storage(fb, x);
            super::half::widen_bits(fb, from, bits)
        }
        // f64 to f32 rounding to odd, so that the 16-bit rounding after it is the one
        // rounding of the f64 value (as the interpreter's).
        false if from == DType::F64 => round_to_odd_f32(fb, x),
        false => convert(fb, from, DType::F32, x),
    };
    match to.is_half() {
        true => {
            let bits = super::half::narrow_bits(fb, to, wide);
            super::half::to_storage(fb, bits)
        }
        false => convert(fb, DType::F32, to, wide),
    }
}

/// f64 `x` to f32 toward zero with the last bit set when inexact ("round to odd").
fn round_to_odd_f32(fb: &mut FunctionBuilder, x: Cv) -> Cv {
    let y = fb.ins().fdemote(types::F32, x);
    let back = fb.ins().fpromote(types::F64, y);
    let (abs_back, abs_x) = (fb.ins().fabs(back), fb.ins().fabs(x));
    let away = fb.ins().fcmp(FloatCC::GreaterThan, abs_back, abs_x);
    let inexact = fb.ins().fcmp(FloatCC::NotEqual, back, x);
    let bits = reinterpret(fb, types::I32, y);
    let away = fb.ins().uextend(types::I32, away);
    let bits = fb.ins().isub(bits, away);
    let odd = fb.ins().uextend(types::I32, inexact);
    let bits = fb.ins().bor(bits, odd);
    reinterpret(fb, types::F32, bits)
}

/// i32 `x / y` that never traps: `x/0 = -1`, `MIN/-1 = MIN`.
fn div_i32(fb: &mut FunctionBuilder, x: Cv, y: Cv) -> Cv {
    let one = fb.ins().iconst(types::I32, 1);
    let zero_y = fb.ins().icmp_imm_s(IntCC::Equal, y, 0);
    let minus1 = fb.ins().icmp_imm_s(IntCC::Equal, y, -1);
    // Dividing by 1 instead of -1 gives MIN for MIN (the wrapped result) and -x otherwise.
    let safe = fb.ins().select(zero_y, one, y);
    let safe = fb.ins().select(minus1, one, safe);
    let q = fb.ins().sdiv(x, safe);
    let neg = fb.ins().ineg(q);
    let q = fb.ins().select(minus1, neg, q);
    let m1 = fb.ins().iconst(types::I32, -1);
    fb.ins().select(zero_y, m1, q)
}

/// i32 `rem(x, y)` with the sign of `x` that never traps: `rem(x, 0) = x`, `rem(x, ±1) = 0`.
fn rem_i32(fb: &mut FunctionBuilder, x: Cv, y: Cv) -> Cv {
    let one = fb.ins().iconst(types::I32, 1);
    let zero_y = fb.ins().icmp_imm_s(IntCC::Equal, y, 0);
    let minus1 = fb.ins().icmp_imm_s(IntCC::Equal, y, -1);
    let bad = fb.ins().bor(zero_y, minus1);
    let safe = fb.ins().select(bad, one, y);
    let r = fb.ins().srem(x, safe);
    fb.ins().select(zero_y, x, r)
}

/// `x^y` by repeated squaring (the interpreter's multiplication order); `1/x^|y|` for y < 0.
pub(crate) fn integer_pow(fb: &mut FunctionBuilder, dtype: DType, y: i32, x: Cv) -> Cv {
    let float = dtype.is_float();
    let mul = |fb: &mut FunctionBuilder, a: Cv, b: Cv| if float { fb.ins().fmul(a, b) } else { fb.ins().imul(a, b) };
    let mut n = y.unsigned_abs();
    let one = constant(fb, dtype, 1.0);
    let xt = fb.func.dfg.value_type(x);
    let one = if xt.is_vector() { fb.ins().splat(xt, one) } else { one };
    // The accumulator starts as the first factor rather than 1·factor: the same value
    // (denormals are not flushed; a NaN stays a NaN) and one multiplication less.
    let (mut acc, mut base) = (None, x);
    while n > 0 {
        if n & 1 == 1 {
            acc = Some(acc.map_or(base, |a| mul(fb, a, base)));
        }
        n >>= 1;
        if n > 0 {
            base = mul(fb, base, base);
        }
    }
    let acc = acc.unwrap_or(one);
    match (y < 0, float) {
        (false, _) => acc,
        (true, true) => fb.ins().fdiv(one, acc),
        (true, false) => div_i32(fb, one, acc),
    }
}

/// `sign(x)`: -1, 0 or 1 of `x`'s type; a float zero keeps its sign and NaN stays NaN.
fn sign(fb: &mut FunctionBuilder, dtype: DType, x: Cv) -> Cv {
    if dtype.is_float() {
        let zero = constant(fb, dtype, 0.0);
        let one = constant(fb, dtype, 1.0);
        let signed = fb.ins().fcopysign(one, x);
        // `x == 0` is false for NaN; `ueq` is true for zeros and NaN alike.
        let keep = fb.ins().fcmp(FloatCC::UnorderedOrEqual, x, zero);
        fb.ins().select(keep, x, signed)
    } else {
        let zero = fb.ins().iconst(types::I32, 0);
        let pos = fb.ins().icmp(IntCC::SignedGreaterThan, x, zero);
        let neg = fb.ins().icmp(IntCC::SignedLessThan, x, zero);
        let p = fb.ins().uextend(types::I32, pos);
        let n = fb.ins().uextend(types::I32, neg);
        fb.ins().isub(p, n)
    }
}

impl Lower<'_, '_> {
    /// A unary operation on a `dtype` value (`integer_pow`, `convert` and
    /// `stop_gradient` included).
    pub fn unary(&mut self, op: UnaryOp, dtype: DType, x: Cv) -> Result<Cv, String> {
        let ty = cl_type(dtype);
        let float = dtype.is_float();
        match op {
            UnaryOp::IntegerPow { y } => return Ok(integer_pow(&mut self.fb, dtype, y, x)),
            UnaryOp::Convert { dtype: to } => return Ok(convert(&mut self.fb, dtype, to, x)),
            UnaryOp::StopGradient => return Ok(x),
            _ => {}
        }
        let fb = &mut self.fb;
        let math = |f| Some(f);
        let call = match op {
            UnaryOp::Exp => math(MathFn::Exp),
            UnaryOp::Log => math(MathFn::Log),
            UnaryOp::Log1p => math(MathFn::Log1p),
            UnaryOp::Expm1 => math(MathFn::Expm1),
            UnaryOp::Sin => math(MathFn::Sin),
            UnaryOp::Cos => math(MathFn::Cos),
            UnaryOp::Tan => math(MathFn::Tan),
            UnaryOp::Tanh => math(MathFn::Tanh),
            UnaryOp::Logistic => math(MathFn::Logistic),
            UnaryOp::Erf => math(MathFn::Erf),
            UnaryOp::Neg
            | UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Abs
            | UnaryOp::Sign
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Round
            | UnaryOp::Not
            | UnaryOp::IsFinite
            | UnaryOp::IntegerPow { .. }
            | UnaryOp::Convert { .. }
            | UnaryOp::StopGradient => None,
        };
        if let Some(f) = call {
            if !float {
                return Err(format!("{} needs a float operand", op.name()));
            }
            return self.imports.emit(&mut self.fb, self.jit, f, &[x], ty);
        }
        Ok(match (op, float) {
            (UnaryOp::Neg, true) => fb.ins().fneg(x),
            (UnaryOp::Neg, false) => fb.ins().ineg(x),
            (UnaryOp::Abs, true) => fb.ins().fabs(x),
            (UnaryOp::Abs, false) => fb.ins().iabs(x),
            (UnaryOp::Sqrt, true) => fb.ins().sqrt(x),
            (UnaryOp::Rsqrt, true) => {
                let s = fb.ins().sqrt(x);
                let one = constant(fb, dtype, 1.0);
                fb.ins().fdiv(one, s)
            }
            (UnaryOp::Floor, true) => fb.ins().floor(x),
            (UnaryOp::Ceil, true) => fb.ins().ceil(x),
            (UnaryOp::Round, true) => fb.ins().nearest(x),
            (UnaryOp::Sign, _) => sign(fb, dtype, x),
            (UnaryOp::IsFinite, true) => {
                let a = fb.ins().fabs(x);
                let inf = constant(fb, dtype, f64::INFINITY);
                fb.ins().fcmp(FloatCC::LessThan, a, inf)
            }
            (UnaryOp::Not, false) if dtype == DType::Bool => fb.ins().bxor_imm_s(x, 1),
            (UnaryOp::Not, false) => fb.ins().bnot(x),
            _ => return Err(format!("{} cannot take a {dtype} operand", op.name())),
        })
    }

    /// A binary operation at `idx` of equation `e`, contracting a single-use product into
    /// `fma` when enabled on an FMA host.
    pub fn binary_at(&mut self, e: usize, op: BinaryOp, dtype: DType, idx: &[Cv]) -> Result<Cv, Error> {
        let func = self.func;
        let ins = &func.eqns[e].inputs;
        let (x, y) = match &ins[..] {
            [x, y] => (*x, *y),
            _ => return Err(self.err(Some(e), "a binary operation takes two operands")),
        };
        if let Some(f) = self.contraction(op, dtype, x, y) {
            let (a, b) = (self.value_at(f.a, idx)?, self.value_at(f.b, idx)?);
            let c = self.value_at(f.c, idx)?;
            let c = if f.negate_c { self.fb.ins().fneg(c) } else { c };
            let a = if f.negate_product { self.fb.ins().fneg(a) } else { a };
            return Ok(self.fb.ins().fma(a, b, c));
        }
        let a = self.value_at(x, idx)?;
        let b = self.value_at(y, idx)?;
        self.binary(op, dtype, a, b).map_err(|m| self.err(Some(e), m))
    }

    /// The fused multiply-add replacing `op(x, y)`, when contraction is on, the host has
    /// FMA, and `op` is a float `add`/`sub` of a product used only there (`x'*y' + c`,
    /// `c + x'*y'`, `x'*y' - c`, and `c - x'*y'` as `fma(-x', y', c)`: negation is exact,
    /// so either is the exact `±a·b ± c` rounded once).
    pub fn contraction(&self, op: BinaryOp, dtype: DType, x: Value, y: Value) -> Option<Contraction> {
        if !(dtype.is_float() && self.opts.fma && self.has_fma) {
            return None;
        }
        let func = self.func;
        let product = |v: Value| -> Option<(Value, Value)> {
            let (pe, _) = self.plan.defs[v.index()]?;
            let pq = &func.eqns[pe];
            (pq.prim == Prim::Binary(BinaryOp::Mul) && self.plan.uses[v.index()] == 1 && pq.inputs.len() == 2)
                .then(|| (pq.inputs[0], pq.inputs[1]))
        };
        // A negated factor is taken un-negated and the product's sign flipped instead:
        // `fma(-(-x), y, c)` is `fma(x, y, c)` bit for bit, and one instruction less.
        let negated = |v: Value| -> Option<Value> {
            let (e, _) = self.plan.defs[v.index()]?;
            (func.eqns[e].prim == Prim::Unary(UnaryOp::Neg)).then(|| func.eqns[e].inputs[0])
        };
        let fma = |(a, b): (Value, Value), c, negate_c, negate_product: bool| match (negated(a), negated(b)) {
            (Some(a), _) => Contraction { a, b, c, negate_c, negate_product: !negate_product },
            (None, Some(b)) => Contraction { a, b, c, negate_c, negate_product: !negate_product },
            (None, None) => Contraction { a, b, c, negate_c, negate_product },
        };
        match (op, product(x), product(y)) {
            (BinaryOp::Add, Some(p), _) => Some(fma(p, y, false, false)),
            (BinaryOp::Add, None, Some(p)) => Some(fma(p, x, false, false)),
            (BinaryOp::Sub, Some(p), _) => Some(fma(p, y, true, false)),
            (BinaryOp::Sub, None, Some(p)) => Some(fma(p, x, false, true)),
            _ => None,
        }
    }

    /// A binary operation on two `dtype` values.
    pub fn binary(&mut self, op: BinaryOp, dtype: DType, a: Cv, b: Cv) -> Result<Cv, String> {
        let float = dtype.is_float();
        let ty = cl_type(dtype);
        let libcall = match op {
            BinaryOp::Pow => Some(MathFn::Pow),
            BinaryOp::Atan2 => Some(MathFn::Atan2),
            BinaryOp::Rem if float => Some(MathFn::Fmod),
            _ => None,
        };
        if let Some(f) = libcall {
            if !float {
                return Err(format!("{} needs float operands", op.name()));
            }
            return self.imports.emit(&mut self.fb, self.jit, f, &[a, b], ty);
        }
        let fb = &mut self.fb;
        Ok(match (op, float) {
            (BinaryOp::Add, true) => fb.ins().fadd(a, b),
            (BinaryOp::Add, false) => fb.ins().iadd(a, b),
            (BinaryOp::Sub, true) => fb.ins().fsub(a, b),
            (BinaryOp::Sub, false) => fb.ins().isub(a, b),
            (BinaryOp::Mul, true) => fb.ins().fmul(a, b),
            (BinaryOp::Mul, false) => fb.ins().imul(a, b),
            (BinaryOp::Div, true) => fb.ins().fdiv(a, b),
            (BinaryOp::Div, false) => div_i32(fb, a, b),
            (BinaryOp::Rem, false) => rem_i32(fb, a, b),
            (BinaryOp::Max, true) => fmax(fb, a, b),
            (BinaryOp::Max, false) => fb.ins().smax(a, b),
            (BinaryOp::Min, true) => fmin(fb, a, b),
            (BinaryOp::Min, false) => fb.ins().smin(a, b),
            (BinaryOp::And, false) => fb.ins().band(a, b),
            (BinaryOp::Or, false) => fb.ins().bor(a, b),
            _ => return Err(format!("{} cannot take {dtype} operands", op.name())),
        })
    }
}

/// Whether unary `op` has a vector form on `float` (else i32) lanes, given SSE4.1 or not
/// (the vector analysis of `vector.rs` asks).
pub(super) fn unary_vectorises(op: UnaryOp, float: bool, sse41: bool) -> bool {
    match op {
        UnaryOp::StopGradient | UnaryOp::Convert { .. } | UnaryOp::Neg | UnaryOp::Not => true,
        UnaryOp::IntegerPow { y } => float || (sse41 && y >= 0),
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
        UnaryOp::Sign | UnaryOp::IsFinite => false,
    }
}

/// Whether unary `op` returns its operand unchanged at run time (`stop_gradient`).
pub(super) fn passes_through(op: UnaryOp) -> bool {
    op == UnaryOp::StopGradient
}

/// Whether binary `op` has a vector form on `float` (else i32) lanes.
pub(super) fn binary_vectorises(op: BinaryOp, float: bool, sse41: bool) -> bool {
    match op {
        BinaryOp::Add | BinaryOp::Sub => true,
        BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min => float || sse41,
        BinaryOp::Div | BinaryOp::Rem | BinaryOp::Pow | BinaryOp::Atan2 => float,
        BinaryOp::And | BinaryOp::Or => !float,
    }
}

impl Analysis<'_> {
    /// Whether a ternary op of equation `e` read at `i + off` vectorises: `clamp` as its
    /// operands do, `select` only on a predicate constant inside the vector range (then
    /// the chosen operand must).
    pub(super) fn ternary_vectorises(&mut self, e: usize, op: TernaryOp, float: bool, off: i64) -> bool {
        let func = self.func;
        let ins = &func.eqns[e].inputs;
        match op {
            TernaryOp::Select => match self.predicate(ins[0], off) {
                Some(c) => self.contiguous(ins[if c { 1 } else { 2 }], off),
                // A predicate computed in the loop: a lane mask (`mask.rs`).
                None => ins.iter().all(|&i| self.contiguous(i, off)),
            },
            TernaryOp::Clamp => (float || self.sse41) && ins.iter().all(|&i| self.contiguous(i, off)),
        }
    }
}

// The scalar `select`/`clamp` and the vector forms the SIMD loop of `vector.rs` calls.
impl Lower<'_, '_> {
    /// `select` or `clamp` of equation `e` at `idx`.
    pub(super) fn ternary_at(&mut self, e: usize, op: TernaryOp, dtype: DType, idx: &[Cv]) -> Result<Cv, Error> {
        let a = self.value_at(self.operand(e, 0)?, idx)?;
        let b = self.value_at(self.operand(e, 1)?, idx)?;
        let c = self.value_at(self.operand(e, 2)?, idx)?;
        Ok(match op {
            TernaryOp::Select => self.fb.ins().select(a, b, c),
            TernaryOp::Clamp => clamp(&mut self.fb, dtype, a, b, c),
        })
    }

    /// A unary op in vectors: `stop_gradient` passes its operand through, `integer_pow`
    /// and `convert` have their own vector forms, the rest is [`Lower::vec_unary_of`].
    pub(super) fn vec_unary(
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
                Ok(integer_pow(&mut self.fb, q.dtype, y, x))
            }
            UnaryOp::Convert { dtype } => {
                let from = self.func.ty(q.ins[0]).dtype;
                if from == DType::Bool {
                    return self.vec_from_bool(q, idx, vmemo);
                }
                let x = self.vec_at(q.ins[0], idx, vmemo)?;
                if dtype.is_half() && !from.is_half() {
                    return Ok(super::half::narrow_bits(&mut self.fb, dtype, x));
                }
                if from.is_half() && !dtype.is_half() {
                    return Ok(super::half::widen_bits(&mut self.fb, from, x));
                }
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
                let one = constant(fb, q.dtype, 1.0);
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
    pub(super) fn vec_binary(
        &mut self,
        q: &VecEqn,
        op: BinaryOp,
        idx: &[Cv],
        vmemo: &mut HashMap<(Value, Index), Cv>,
    ) -> Result<Cv, Error> {
        if let Some(f) = self.contraction(op, q.dtype, q.ins[0], q.ins[1]) {
            let a = self.vec_at(f.a, idx, vmemo)?;
            let b = self.vec_at(f.b, idx, vmemo)?;
            let c = self.vec_at(f.c, idx, vmemo)?;
            // Cranelift's own `fneg` here, not `vneg`: x64 folds a negated product or addend
            // of an `fma` into one `vfnmadd`/`vfmsub`/`vfnmsub`.
            let c = if f.negate_c { self.fb.ins().fneg(c) } else { c };
            let a = if f.negate_product { self.fb.ins().fneg(a) } else { a };
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
    pub(super) fn vec_ternary(
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
                match a.predicate(q.ins[0], 0) {
                    Some(c) => self.vec_at(q.ins[if c { 1 } else { 2 }], idx, vmemo),
                    None => self.vec_select_mask(q, idx, vmemo),
                }
            }
            TernaryOp::Clamp => {
                let lo = self.vec_at(q.ins[0], idx, vmemo)?;
                let x = self.vec_at(q.ins[1], idx, vmemo)?;
                let hi = self.vec_at(q.ins[2], idx, vmemo)?;
                Ok(clamp(&mut self.fb, q.dtype, lo, x, hi))
            }
        }
    }
}
