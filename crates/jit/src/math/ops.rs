//! The emitter the math kernels are written with: float/int arithmetic, masks and selects over one value type
//! (`F32`, `F64`, `F32X4` or `F64X2`), so each kernel is written once for scalar and vector code.
//!
//! Masks are what `fcmp`/`icmp` return: an `i8` for scalars, an all-ones/all-zeros integer vector for vectors;
//! [`Em::sel`] picks lanes with `select` (scalar) or `bitselect` (vector). `madd` is `fma` when the host has it and
//! `fmul`+`fadd` otherwise (Cranelift never contracts), so both paths are real code.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, ConstantData, Endianness, InstBuilder, MemFlagsData, Signature, Type, Value, types,
};
use cranelift_frontend::FunctionBuilder;

use super::MathCtx;

/// Emits code for one value type; `ty` may be switched (see [`Em::with_ty`]) to run an `f64` kernel on halves.
pub(super) struct Em<'a, 'b> {
    pub fb: &'a mut FunctionBuilder<'b>,
    pub cx: &'a mut dyn MathCtx,
    /// The float type being computed (`F32`, `F64`, `F32X4`, `F64X2`).
    pub ty: Type,
}

/// Bit-cast flags: little-endian lane order, so casts between lane counts are well defined.
fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl<'a, 'b> Em<'a, 'b> {
    /// Runs `f` with the value type switched to `ty`, restoring it afterwards.
    pub fn with_ty<R>(&mut self, ty: Type, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.ty;
        self.ty = ty;
        let r = f(self);
        self.ty = saved;
        r
    }

    /// The integer type of the same lane width and count as `ty`.
    pub fn ity(&self) -> Type {
        self.ty.as_int()
    }
    /// Whether the float lanes are `f64`.
    pub fn is64(&self) -> bool {
        self.ty.lane_type() == types::F64
    }
    /// Whether the type is a vector.
    pub fn is_vec(&self) -> bool {
        self.ty.is_vector()
    }

    // ---- constants ----
    /// A float constant (splat for vectors).
    pub fn c(&mut self, v: f64) -> Value {
        self.cx.float(self.fb, self.ty, v)
    }
    /// An integer constant of [`Em::ity`] (splat for vectors).
    pub fn ic(&mut self, v: i64) -> Value {
        let ity = self.ity();
        if ity.is_vector() {
            let s = self.fb.ins().iconst(ity.lane_type(), v);
            self.fb.ins().splat(ity, s)
        } else {
            self.fb.ins().iconst(ity, v)
        }
    }

    // ---- float arithmetic ----
    pub fn add(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().fadd(a, b)
    }
    pub fn sub(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().fsub(a, b)
    }
    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().fmul(a, b)
    }
    pub fn div(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().fdiv(a, b)
    }
    pub fn neg(&mut self, a: Value) -> Value {
        self.fb.ins().fneg(a)
    }
    pub fn abs(&mut self, a: Value) -> Value {
        self.fb.ins().fabs(a)
    }
    /// `a*b + c`: one `fma` with FMA, else a rounded product and sum.
    pub fn madd(&mut self, a: Value, b: Value, c: Value) -> Value {
        if self.cx.has_fma() {
            self.fb.ins().fma(a, b, c)
        } else {
            let p = self.fb.ins().fmul(a, b);
            self.fb.ins().fadd(p, c)
        }
    }
    /// `a*k + c` with a constant `k`.
    pub fn maddk(&mut self, a: Value, k: f64, c: Value) -> Value {
        let k = self.c(k);
        self.madd(a, k, c)
    }
    /// `a*b + k` with a constant `k`.
    pub fn madd_k(&mut self, a: Value, b: Value, k: f64) -> Value {
        let k = self.c(k);
        self.madd(a, b, k)
    }
    /// Horner evaluation of `coeffs` (highest degree first) at `x`.
    pub fn poly(&mut self, x: Value, coeffs: &[f64]) -> Value {
        let mut acc = self.c(coeffs[0]);
        for &k in &coeffs[1..] {
            acc = self.madd_k(acc, x, k);
        }
        acc
    }

    // ---- masks ----
    pub fn fcmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.fb.ins().fcmp(cc, a, b)
    }
    /// Compares `a` with the constant `k`.
    pub fn fcmpk(&mut self, cc: FloatCC, a: Value, k: f64) -> Value {
        let k = self.c(k);
        self.fb.ins().fcmp(cc, a, k)
    }
    pub fn icmpk(&mut self, cc: IntCC, a: Value, k: i64) -> Value {
        let k = self.ic(k);
        self.fb.ins().icmp(cc, a, k)
    }
    /// The lanes where `a` is NaN.
    pub fn isnan(&mut self, a: Value) -> Value {
        self.fb.ins().fcmp(FloatCC::Unordered, a, a)
    }
    /// The lanes whose sign bit is set (including -0 and -NaN).
    pub fn signbit(&mut self, a: Value) -> Value {
        let b = self.bits(a);
        self.icmpk(IntCC::SignedLessThan, b, 0)
    }
    pub fn and(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().band(a, b)
    }
    pub fn or(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().bor(a, b)
    }
    pub fn xor(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().bxor(a, b)
    }
    /// The complement of a mask (scalar masks are `0`/`1` in an `i8`).
    pub fn not(&mut self, a: Value) -> Value {
        if self.fb.func.dfg.value_type(a).is_vector() {
            self.fb.ins().bnot(a)
        } else {
            let one = self.fb.ins().iconst(types::I8, 1);
            self.fb.ins().bxor(a, one)
        }
    }
    /// `mask ? a : b` per lane; `a` and `b` share a type (float, integer or mask).
    pub fn sel(&mut self, mask: Value, a: Value, b: Value) -> Value {
        let t = self.fb.func.dfg.value_type(a);
        if t.is_vector() {
            let mt = self.fb.func.dfg.value_type(mask);
            let m = if mt == t { mask } else { self.fb.ins().bitcast(t, le(), mask) };
            self.fb.ins().bitselect(m, a, b)
        } else {
            self.fb.ins().select(mask, a, b)
        }
    }
    /// `mask ? k : b` with a float constant `k`.
    pub fn selk(&mut self, mask: Value, k: f64, b: Value) -> Value {
        let k = self.c(k);
        self.sel(mask, k, b)
    }

    // ---- integer views ----
    /// The bits of a float value as [`Em::ity`].
    pub fn bits(&mut self, a: Value) -> Value {
        let ity = self.ity();
        self.fb.ins().bitcast(ity, le(), a)
    }
    /// The float value of integer bits.
    pub fn float_of_bits(&mut self, a: Value) -> Value {
        self.fb.ins().bitcast(self.ty, le(), a)
    }
    pub fn iadd(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().iadd(a, b)
    }
    pub fn isub(&mut self, a: Value, b: Value) -> Value {
        self.fb.ins().isub(a, b)
    }
    pub fn iaddk(&mut self, a: Value, k: i64) -> Value {
        let k = self.ic(k);
        self.fb.ins().iadd(a, k)
    }
    pub fn iandk(&mut self, a: Value, k: i64) -> Value {
        let k = self.ic(k);
        self.fb.ins().band(a, k)
    }
    pub fn shl(&mut self, a: Value, n: i64) -> Value {
        let n = self.fb.ins().iconst(types::I32, n);
        self.fb.ins().ishl(a, n)
    }
    pub fn ushr(&mut self, a: Value, n: i64) -> Value {
        let n = self.fb.ins().iconst(types::I32, n);
        self.fb.ins().ushr(a, n)
    }
    pub fn sshr(&mut self, a: Value, n: i64) -> Value {
        let n = self.fb.ins().iconst(types::I32, n);
        self.fb.ins().sshr(a, n)
    }

    // ---- float tricks shared by the kernels ----
    /// `1.5 * 2^(mantissa bits)`: adding it rounds to an integer held in the low mantissa bits.
    pub fn magic(&self) -> f64 {
        if self.is64() { 6755399441055744.0 } else { 12582912.0 }
    }
    /// Round to nearest (ties to even) for |a| < 2^22 (f32) / 2^51 (f64): returns (float, integer) forms.
    pub fn rint(&mut self, a: Value) -> (Value, Value) {
        let m = self.magic();
        let mv = self.c(m);
        let t = self.add(a, mv);
        let fl = self.sub(t, mv);
        let tb = self.bits(t);
        let mb = self.bits(mv);
        let n = self.isub(tb, mb);
        (fl, n)
    }
    /// The float value of a small integer (|n| < 2^22 for f32).
    pub fn int_to_float(&mut self, n: Value) -> Value {
        let m = self.magic();
        let mv = self.c(m);
        let mb = self.bits(mv);
        let t = self.iadd(n, mb);
        let t = self.float_of_bits(t);
        self.sub(t, mv)
    }
    /// `2^n` for an integer `n` within the normal exponent range.
    pub fn pow2(&mut self, n: Value) -> Value {
        let (bias, shift) = if self.is64() { (1023, 52) } else { (127, 23) };
        let e = self.iaddk(n, bias);
        let e = self.shl(e, shift);
        self.float_of_bits(e)
    }
    /// `a * 2^n` for `n` within twice the normal exponent range, rounding once (gradual underflow is exact
    /// up to that rounding): `n` is split in two halves that are each a normal power of two.
    pub fn ldexp(&mut self, a: Value, n: Value) -> Value {
        let n1 = self.sshr(n, 1);
        let n2 = self.isub(n, n1);
        let p1 = self.pow2(n1);
        let p2 = self.pow2(n2);
        let a = self.mul(a, p1);
        self.mul(a, p2)
    }
    /// `r`, but `x` itself where `x` is ±0 (odd functions: `x + x³·P` would turn −0 into +0).
    pub fn keep_zero(&mut self, x: Value, r: Value) -> Value {
        let z = self.fcmpk(FloatCC::Equal, x, 0.0);
        self.sel(z, x, r)
    }
    /// `|a|` with the sign of `s` (bitwise, so NaN and ±0 behave).
    pub fn copysign(&mut self, a: Value, s: Value) -> Value {
        let sign = if self.is64() { i64::MIN } else { i64::from(i32::MIN) };
        let ab = self.bits(a);
        let ab = self.iandk(ab, !sign);
        let sb = self.bits(s);
        let sb = self.iandk(sb, sign);
        let r = self.fb.ins().bor(ab, sb);
        self.float_of_bits(r)
    }

    // ---- f32 <-> f64 ----
    /// Widens an `F32` to `F64`, or the low (`hi = false`) or high half of an `F32X4` to `F64X2`.
    pub fn widen(&mut self, a: Value, hi: bool) -> Value {
        if !self.fb.func.dfg.value_type(a).is_vector() {
            return self.fb.ins().fpromote(types::F64, a);
        }
        let a = if hi {
            let mask: Vec<u8> = (8..16).chain(0..8).collect();
            self.shuffle_f32x4(a, a, mask)
        } else {
            a
        };
        self.fb.ins().fvpromote_low(a)
    }
    /// Narrows an `F64` to `F32`, or two `F64X2` halves back to one `F32X4`.
    pub fn narrow(&mut self, lo: Value, hi: Option<Value>) -> Value {
        match hi {
            None => self.fb.ins().fdemote(types::F32, lo),
            Some(hi) => {
                let l = self.fb.ins().fvdemote(lo);
                let h = self.fb.ins().fvdemote(hi);
                let mask: Vec<u8> = (0..8).chain(16..24).collect();
                self.shuffle_f32x4(l, h, mask)
            }
        }
    }
    fn shuffle_f32x4(&mut self, a: Value, b: Value, mask: Vec<u8>) -> Value {
        let a8 = self.fb.ins().bitcast(types::I8X16, le(), a);
        let b8 = self.fb.ins().bitcast(types::I8X16, le(), b);
        let imm = self.fb.func.dfg.immediates.push(ConstantData::from(mask));
        let r = self.fb.ins().shuffle(a8, b8, imm);
        self.fb.ins().bitcast(types::F32X4, le(), r)
    }

    // ---- runtime calls ----
    /// Calls the runtime function `name` (scalar lane type in and out) on every lane of `args`.
    pub fn call_lanes(&mut self, name: &str, args: &[Value]) -> Value {
        let lane = self.ty.lane_type();
        let mut sig = Signature::new(self.fb.func.signature.call_conv);
        for _ in args {
            sig.params.push(AbiParam::new(lane));
        }
        sig.returns.push(AbiParam::new(lane));
        let f = self.cx.import(self.fb, name, sig);
        if !self.is_vec() {
            let call = self.fb.ins().call(f, args);
            return self.fb.inst_results(call)[0];
        }
        let mut acc = args[0];
        for i in 0..self.ty.lane_count() as u8 {
            let lanes: Vec<Value> = args.iter().map(|&a| self.fb.ins().extractlane(a, i)).collect();
            let call = self.fb.ins().call(f, &lanes);
            let r = self.fb.inst_results(call)[0];
            acc = self.fb.ins().insertlane(acc, r, i);
        }
        acc
    }
}
