//! bf16 and f16 beside f32 in kernels, with integer and f32 operations only (Cranelift
//! has no 16-bit float arithmetic on x86-64): widening is exact, narrowing rounds to
//! nearest even, overflows to ±inf, keeps f16 subnormals and makes a NaN quiet (its
//! sign kept; bf16 keeps the payload's top bits, f16 gives the canonical quiet NaN).
//! The same bit manipulations work lane-wise on `I32X4`/`F32X4`, which is how the
//! vector loops round (shift amounts are immediates: Cranelift's vector shifts take a
//! scalar amount).

use super::ops::reinterpret;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, Type, Value as Cv, types};
use cranelift_frontend::FunctionBuilder;
use ferrax_ir::DType;

/// `x` (f32 or `F32X4`) rounded to the 16-bit float `dtype`, its pattern in the low
/// 16 bits of each i32 lane (`I32` or `I32X4`).
pub(crate) fn narrow_bits(fb: &mut FunctionBuilder, dtype: DType, x: Cv) -> Cv {
    let float_ty = fb.func.dfg.value_type(x);
    let int_ty = if float_ty.is_vector() { types::I32X4 } else { types::I32 };
    let bits = reinterpret(fb, int_ty, x);
    let nan = fb.ins().fcmp(FloatCC::Unordered, x, x);
    let nan = as_mask(fb, int_ty, nan);
    let k = |fb: &mut FunctionBuilder, v: i64| splat(fb, int_ty, v);
    match dtype {
        DType::F16 => narrow_f16(fb, int_ty, bits, nan),
        _ => {
            // bf16: add 0x7fff plus the lowest kept bit, keep the high half.
            let high = fb.ins().ushr_imm_u(bits, 16);
            let one = k(fb, 1);
            let lsb = fb.ins().band(high, one);
            let bias = k(fb, 0x7fff);
            let bias = fb.ins().iadd(bias, lsb);
            let sum = fb.ins().iadd(bits, bias);
            let rounded = fb.ins().ushr_imm_u(sum, 16);
            let quiet = k(fb, 0x40);
            let quiet = fb.ins().bor(high, quiet);
            fb.ins().bitselect(nan, quiet, rounded)
        }
    }
}

/// f32 bits (sign cleared by the caller's masks) to f16 bits: the three ranges computed
/// branch-free and selected (after F. Giesen's round-to-nearest-even conversion).
fn narrow_f16(fb: &mut FunctionBuilder, int_ty: Type, bits: Cv, nan: Cv) -> Cv {
    let k = |fb: &mut FunctionBuilder, v: i64| splat(fb, int_ty, v);
    let sign_mask = k(fb, 0x8000_0000u32 as i32 as i64);
    let sign = fb.ins().band(bits, sign_mask);
    let f = fb.ins().bxor(bits, sign);
    // Overflow: ±inf (NaN handled by the caller's mask below).
    let inf = k(fb, 0x7c00);
    let qnan = k(fb, 0x7e00);
    let special = fb.ins().bitselect(nan, qnan, inf);
    // Subnormal or zero: let an f32 addition of a magic number do the rounding.
    let magic = k(fb, ((127 - 15) + (23 - 10) + 1) << 23);
    let float_ty = if int_ty.is_vector() { types::F32X4 } else { types::F32 };
    let ff = reinterpret(fb, float_ty, f);
    let mf = reinterpret(fb, float_ty, magic);
    let sum = fb.ins().fadd(ff, mf);
    let sum = reinterpret(fb, int_ty, sum);
    let small = fb.ins().isub(sum, magic);
    // Normal: rebias the exponent, round to nearest even, drop 13 bits.
    let shifted = fb.ins().ushr_imm_u(f, 13);
    let one = k(fb, 1);
    let odd = fb.ins().band(shifted, one);
    let rebias = k(fb, (((15 - 127) << 23) + 0xfff) as i64);
    let normal = fb.ins().iadd(f, rebias);
    let normal = fb.ins().iadd(normal, odd);
    let normal = fb.ins().ushr_imm_u(normal, 13);
    // Select by range: f >= 2^16 (as f16's max exponent) is special, f < 2^-14 small.
    let max = k(fb, (127 + 16) << 23);
    let min_normal = k(fb, 113 << 23);
    let is_special = cmp(fb, IntCC::UnsignedGreaterThanOrEqual, f, max);
    let is_small = cmp(fb, IntCC::UnsignedLessThan, f, min_normal);
    let out = fb.ins().bitselect(is_small, small, normal);
    let is_special = fb.ins().bor(is_special, nan);
    let out = fb.ins().bitselect(is_special, special, out);
    let sign = fb.ins().ushr_imm_u(sign, 16);
    fb.ins().bor(out, sign)
}

/// The 16-bit float `dtype`'s patterns in the low 16 bits of each i32 lane (`I32` or
/// `I32X4`) widened to f32 (exactly).
pub(crate) fn widen_bits(fb: &mut FunctionBuilder, dtype: DType, h: Cv) -> Cv {
    let int_ty = fb.func.dfg.value_type(h);
    let float_ty = if int_ty.is_vector() { types::F32X4 } else { types::F32 };
    let k = |fb: &mut FunctionBuilder, v: i64| splat(fb, int_ty, v);
    match dtype {
        DType::F16 => {
            // After F. Giesen: move the bits into place, rebias, fix inf/NaN and
            // subnormals (renormalised by an f32 subtraction).
            let low = k(fb, 0x7fff);
            let mag = fb.ins().band(h, low);
            let o = fb.ins().ishl_imm_u(mag, 13);
            let exp_mask = k(fb, 0x7c00 << 13);
            let exp = fb.ins().band(o, exp_mask);
            let rebias = k(fb, (127 - 15) << 23);
            let o = fb.ins().iadd(o, rebias);
            let inf_rebias = k(fb, (128 - 16) << 23);
            let special = fb.ins().iadd(o, inf_rebias);
            let one_exp = k(fb, 1 << 23);
            let sub = fb.ins().iadd(o, one_exp);
            let sub = reinterpret(fb, float_ty, sub);
            let magic = k(fb, 113 << 23);
            let magic = reinterpret(fb, float_ty, magic);
            let sub = fb.ins().fsub(sub, magic);
            let sub = reinterpret(fb, int_ty, sub);
            let is_special = cmp(fb, IntCC::Equal, exp, exp_mask);
            let zero = k(fb, 0);
            let is_small = cmp(fb, IntCC::Equal, exp, zero);
            let o = fb.ins().bitselect(is_special, special, o);
            let o = fb.ins().bitselect(is_small, sub, o);
            let sign_bit = k(fb, 0x8000);
            let sign = fb.ins().band(h, sign_bit);
            let sign = fb.ins().ishl_imm_u(sign, 16);
            let o = fb.ins().bor(o, sign);
            reinterpret(fb, float_ty, o)
        }
        _ => {
            let o = fb.ins().ishl_imm_u(h, 16);
            reinterpret(fb, float_ty, o)
        }
    }
}

/// A scalar `I16` pattern as the low bits of an `I32` (for [`widen_bits`]).
pub(crate) fn from_storage(fb: &mut FunctionBuilder, h: Cv) -> Cv {
    fb.ins().uextend(types::I32, h)
}

/// The low 16 bits of an `I32` as the `I16` stored.
pub(crate) fn to_storage(fb: &mut FunctionBuilder, bits: Cv) -> Cv {
    fb.ins().ireduce(types::I16, bits)
}

/// `v` in every lane of `ty` (or the scalar itself).
fn splat(fb: &mut FunctionBuilder, ty: Type, v: i64) -> Cv {
    let lane = ty.lane_type();
    let c = fb.ins().iconst(lane, v);
    if ty.is_vector() { fb.ins().splat(ty, c) } else { c }
}

/// An integer comparison as an all-ones/all-zeros mask of `a`'s type.
fn cmp(fb: &mut FunctionBuilder, cc: IntCC, a: Cv, b: Cv) -> Cv {
    let ty = fb.func.dfg.value_type(a);
    let c = fb.ins().icmp(cc, a, b);
    as_mask(fb, ty, c)
}

/// A comparison result as a mask of `ty`: vector comparisons give lane masks already;
/// a scalar one (an `i8` 0/1) becomes 0 or -1.
fn as_mask(fb: &mut FunctionBuilder, ty: Type, c: Cv) -> Cv {
    if ty.is_vector() {
        return c;
    }
    let ones = fb.ins().iconst(ty, -1);
    let zero = fb.ins().iconst(ty, 0);
    fb.ins().select(c, ones, zero)
}
