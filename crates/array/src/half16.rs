//! The 16-bit floats (`bf16`, `f16`) beside f32: widening (exact) and narrowing (round
//! to nearest, ties to even; NaN stays a quiet NaN, overflow goes to ±inf), in bulk
//! with the `half` crate's slice routines (F16C where the CPU has it), and the integer
//! form of bf16 rounding that the JIT's fused loops use, kept here as the reference
//! its tests compare with.
//!
//! Arithmetic on a 16-bit array computes in f32 and rounds each result once; these are
//! the two conversions every such step goes through.

use crate::{DType, Data};
use half::slice::HalfFloatSliceExt;
use half::{bf16, f16};

impl Data {
    /// The elements of a 16-bit float buffer widened to f32 (exact); `None` for any
    /// other dtype.
    pub fn widen_half(&self) -> Option<Vec<f32>> {
        match self {
            Data::BF16(v) => {
                let mut out = vec![0.0f32; v.len()];
                v.convert_to_f32_slice(&mut out);
                Some(out)
            }
            Data::F16(v) => {
                let mut out = vec![0.0f32; v.len()];
                v.convert_to_f32_slice(&mut out);
                Some(out)
            }
            Data::Bool(_) | Data::I32(_) | Data::F32(_) | Data::F64(_) => None,
        }
    }

    /// f32 values rounded once to the 16-bit float `dtype`; `None` when `dtype` is
    /// not one.
    pub fn narrow_half(values: &[f32], dtype: DType) -> Option<Data> {
        match dtype {
            DType::BF16 => {
                let mut out = vec![bf16::ZERO; values.len()];
                out.convert_from_f32_slice(values);
                Some(Data::BF16(out))
            }
            DType::F16 => {
                let mut out = vec![f16::ZERO; values.len()];
                out.convert_from_f32_slice(values);
                Some(Data::F16(out))
            }
            DType::Bool | DType::I32 | DType::F32 | DType::F64 => None,
        }
    }
}

/// `x` rounded to f32 toward zero, with the last bit set when that was inexact
/// ("round to odd"). Rounding this once more, to a type at least two bits narrower
/// (bf16, f16), gives the same result as rounding `x` itself once: how an f64 becomes a
/// 16-bit float without the double rounding of a trip through f32 (which can turn a
/// value just above a tie into the tie).
pub fn f32_round_to_odd(x: f64) -> f32 {
    let y = x as f32;
    if !x.is_finite() || f64::from(y) == x {
        return y;
    }
    // Toward zero: step back when rounding went away from zero (or to infinity).
    let toward_zero = if f64::from(y).abs() > x.abs() { f32::from_bits(y.to_bits() - 1) } else { y };
    f32::from_bits(toward_zero.to_bits() | 1)
}

/// `x` rounded once to bf16.
pub fn bf16_from_f64(x: f64) -> bf16 {
    bf16::from_f32(f32_round_to_odd(x))
}

/// `x` rounded once to f16.
pub fn f16_from_f64(x: f64) -> f16 {
    f16::from_f32(f32_round_to_odd(x))
}

/// f32 bits rounded to bf16 bits with integer operations only: add `0x7fff` plus the
/// lowest kept bit and drop the low half (ties to even; overflow carries into the
/// exponent and gives ±inf); a NaN keeps its sign and top payload bits and is made
/// quiet. The JIT narrows the same way in its vector loops.
pub fn bf16_bits_from_f32_bits(bits: u32) -> u16 {
    if bits & 0x7fff_ffff > 0x7f80_0000 {
        return ((bits >> 16) | 0x0040) as u16;
    }
    let rounding = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(rounding) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bf16 and f16 pattern widens to f32 and narrows back to itself (NaNs to a
    /// quiet NaN of the same sign), in bulk and one by one.
    #[test]
    fn every_16_bit_pattern_round_trips_through_f32() {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let b = Data::BF16(all.iter().map(|&x| bf16::from_bits(x)).collect());
        let h = Data::F16(all.iter().map(|&x| f16::from_bits(x)).collect());
        for (data, dtype) in [(b, DType::BF16), (h, DType::F16)] {
            let wide = data.widen_half().unwrap();
            let back = Data::narrow_half(&wide, dtype).unwrap();
            for (i, &bits) in all.iter().enumerate() {
                let (got, wide) = match &back {
                    Data::BF16(v) => (v[i].to_bits(), wide[i]),
                    Data::F16(v) => (v[i].to_bits(), wide[i]),
                    _ => unreachable!("narrow_half gives the dtype asked for"),
                };
                let quiet = if dtype == DType::BF16 { 0x0040 } else { 0x0200 };
                let exponent = if dtype == DType::BF16 { 0x7f80 } else { 0x7c00 };
                let is_nan = bits & 0x7fff > exponent;
                if is_nan {
                    assert!(wide.is_nan(), "{dtype} {bits:#06x} widened to {wide}");
                    assert_eq!(got & 0x8000, bits & 0x8000, "{dtype} {bits:#06x}: NaN sign");
                    assert!(got & 0x7fff > exponent && got & quiet != 0, "{dtype} {bits:#06x} -> {got:#06x}");
                } else {
                    assert_eq!(got, bits, "{dtype} {bits:#06x} -> {wide} -> {got:#06x}");
                }
            }
        }
    }

    /// From f64, one rounding: against the round-to-nearest-even of the f64 bits
    /// themselves (normal range, where bf16 keeps the top 7 of f64's 52 fraction bits),
    /// on values built around every kind of tie.
    #[test]
    fn f64_rounds_once_to_bf16() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..200_000u64 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let exponent = 1023 - 100 + (state >> 56) % 200;
            // Low bits: random, or exactly a tie, or a tie nudged by one f64 ulp.
            let fraction = match i % 4 {
                0 => state & ((1 << 52) - 1),
                1 => (state & !((1 << 45) - 1) & ((1 << 52) - 1)) | (1 << 44),
                2 => ((state & !((1 << 45) - 1)) | (1 << 44) | 1) & ((1 << 52) - 1),
                _ => ((state & !((1 << 45) - 1)) | ((1 << 44) - 1)) & ((1 << 52) - 1),
            };
            let bits = (exponent << 52) | fraction | ((state & 1) << 63);
            let x = f64::from_bits(bits);
            let rounded = (bits + (1 << 44) - 1 + ((bits >> 45) & 1)) >> 45;
            let want = f64::from_bits(rounded << 45);
            assert_eq!(f64::from(bf16_from_f64(x)), want, "{x:e}");
        }
        // The case a trip through f32 gets wrong: just above a bf16 tie.
        assert_eq!(f64::from(bf16_from_f64(1.0 + 2f64.powi(-8) + 2f64.powi(-30))), 1.0078125);
        assert_eq!(f64::from(f16_from_f64(2049.0 + 2f64.powi(-20))), 2050.0);
        assert_eq!(f64::from(bf16_from_f64(1e300)), f64::INFINITY);
        assert!(bf16_from_f64(f64::NAN).is_nan());
    }

    /// Narrowing rounds to nearest with ties to even, overflows to infinity, and keeps
    /// subnormals of f16; the integer bf16 rounding agrees with `half` on patterns
    /// spread over every f32 exponent, and on every tie.
    #[test]
    fn narrowing_rounds_to_nearest_even() {
        // bf16: 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
        let cases: [(u32, u16); 6] = [
            (0x3f80_8000, 0x3f80), // tie, even below
            (0x3f81_8000, 0x3f82), // tie, even above
            (0x3f80_8001, 0x3f81), // above the tie
            (0x3f80_7fff, 0x3f80), // below the tie
            (0x7f7f_ffff, 0x7f80), // largest f32 rounds to +inf
            (0xff7f_8000, 0xff80), // tie at the top of the range: -inf
        ];
        for (f, want) in cases {
            let x = f32::from_bits(f);
            assert_eq!(bf16::from_f32(x).to_bits(), want, "{f:#010x}");
            assert_eq!(bf16_bits_from_f32_bits(f), want, "{f:#010x}");
        }
        // f16: 2049 is halfway between 2048 and 2050: ties to even (2048); 2051 -> 2052.
        assert_eq!(f16::from_f32(2049.0).to_f32(), 2048.0);
        assert_eq!(f16::from_f32(2051.0).to_f32(), 2052.0);
        assert_eq!(f16::from_f32(65520.0).to_f32(), f32::INFINITY); // past the top tie
        assert_eq!(f16::from_f32(65519.0).to_f32(), 65504.0);
        let tiny = f32::from_bits(0x3380_0000); // 2^-24, the smallest f16 subnormal
        assert_eq!(f16::from_f32(tiny).to_bits(), 0x0001);
        assert_eq!(f16::from_f32(tiny / 2.0).to_bits(), 0x0000); // a tie: to even (zero)
        assert_eq!(f16::from_f32(tiny * 1.5).to_bits(), 0x0002); // a tie: to even (2)
        // The integer rounding against `half` on a sweep of f32 patterns and every tie.
        for high in 0..=u16::MAX as u32 {
            for low in [0u32, 1, 0x7fff, 0x8000, 0x8001, 0xffff] {
                let bits = (high << 16) | low;
                let x = f32::from_bits(bits);
                let want = bf16::from_f32(x).to_bits();
                let got = bf16_bits_from_f32_bits(bits);
                if x.is_nan() {
                    assert!(bf16::from_bits(got).is_nan(), "{bits:#010x}");
                } else {
                    assert_eq!(got, want, "{bits:#010x}");
                }
            }
        }
    }
}
