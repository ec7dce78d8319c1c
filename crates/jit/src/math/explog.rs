//! `exp`, `log`, `log1p`, `expm1`, `tanh` and `logistic` for `f32` and `f64` (scalar and vector alike).
//!
//! * `exp`: clamp, `n = rint(x·log2 e)`, Cody-Waite `r = x − n·ln2` in two parts, `e^r = 1 + r + r²·P(r)`, then
//!   `·2^n` in two halves so that results underflow gradually into subnormals with a single rounding.
//! * `log`: subnormals are scaled by 2^23 (2^54) first; `x = m·2^e` with `m ∈ [√½, √2)`, `f = m − 1`;
//!   f32: `f − f²/2 + f³·P(f)` (the Cephes form), f64: `f − s·(f − s²·G(s²))` with `s = f/(2+f)`; plus `e·ln2` in two
//!   parts. Special values (0, negatives, +inf, NaN) by selects.
//! * `log1p`, `expm1`: Kahan's tricks on top of `log`/`exp`: `log(u)·x/(u−1)` with `u = 1+x`, and
//!   `(u−1)·x/log(u)` with `u = eˣ` — the rounding error of `u` cancels in the ratio.
//! * `tanh`: an odd polynomial for |x| < 0.625, `1 − 2/(e^{2|x|}+1)` with the sign of x above (|x| clamped
//!   where the result is ±1, so that exp needs neither its clamps nor its two-step scaling); f32 forms
//!   e^{2|x|} + 1 from exp's reduced parts, in one rounding while 2ⁿ + 1 is exact (see [`tanh32`]).
//! * `logistic`: `e/(1+e)` or `1/(1+e)` with `e = e^{−|x|}`: no overflow, subnormal results below −87.
//!
//! Coefficients are near-minimax (Chebyshev) fits made with mpmath for this crate; the f32 `tanh` polynomial is a
//! Lawson fit made by `crates/jit/fits/tanh32.py`.

use cranelift_codegen::ir::Value;
use cranelift_codegen::ir::condcodes::FloatCC;

use super::ops::Em;

/// (e^r − 1 − r)/r² on |r| ≤ 0.35, degree 5 (f32).
pub(super) const EXP32: [f64; 6] = [
    0.00019891969905683137,
    0.001393453165508802,
    0.008333310034706868,
    0.04166645690406264,
    0.16666666682523656,
    0.500000001427659,
];
/// (e^r − 1 − r)/r² on |r| ≤ 0.35, degree 10 (f64).
const EXP64: [f64; 11] = [
    2.0915433598076003e-09,
    2.5106262550879078e-08,
    2.755727183153613e-07,
    2.755725286336732e-06,
    2.480158732699005e-05,
    0.00019841269876840357,
    0.0013888888888883332,
    0.008333333333325551,
    0.04166666666666667,
    0.1666666666666667,
    0.5,
];
/// (log(1+f) − f + f²/2)/f³ on [√½−1, √2−1], degree 8 (f32).
const LOG32: [f64; 9] = [
    0.06971611471451178,
    -0.11479733846637635,
    0.1168541992348674,
    -0.12425687331451106,
    0.1424905764569748,
    -0.16667802319501254,
    0.200007157488921,
    -0.24999996957950882,
    0.33333331180030046,
];
/// (2·atanh(s) − 2s)/s³ as a polynomial in t = s² on [0, 0.0295], degree 8 (f64).
const LOG64: [f64; 9] = [
    0.1188509934324957,
    0.11687780989571862,
    0.13335653976459466,
    0.1538457477813401,
    0.18181818598169913,
    0.22222222219827728,
    0.28571428571435464,
    0.3999999999999999,
    0.6666666666666666,
];
/// f32 `tanh x` clamps |x| to [`TANH32_CLAMP`]: beyond it (from |x| ≈ 9.01) tanh rounds to ±1 in f32.
pub(super) const TANH32_CLAMP: f64 = 9.5;
/// Below this |x|, f32 `tanh` is the odd polynomial [`TANH32_SMALL`]; from it on, `1 − 2/(e^{2|x|} + 1)`.
pub(super) const TANH32_SMALL_MAX: f64 = 0.625;
/// (tanh(x) − x)/x³ as a polynomial in t = x² on [0, 0.625²], degree 5 (highest first), evaluated
/// in f32: a near-minimax fit with relative error 4.8·10⁻⁹, made by `crates/jit/fits/tanh32.py`.
pub(super) const TANH32_SMALL: [f64; 6] = [
    0.0022928278333155245,
    -0.008344025644279057,
    0.021768945621240716,
    -0.05395926325576134,
    0.1333330357413901,
    -0.3333333317225423,
];
/// (tanh(x) − x)/x³ as a polynomial in t = x² on [0, 0.625²], degree 12 (f64).
const TANH64: [f64; 13] = [
    -2.438831631472088e-06,
    1.2209921790162781e-05,
    -3.708106921544234e-05,
    9.604109157026265e-05,
    -0.00023888944636751174,
    0.0005899818158388232,
    -0.0014558283998303246,
    0.003592127507599252,
    -0.008863235499801992,
    0.021869488535133222,
    -0.0539682539682359,
    0.13333333333333322,
    -0.3333333333333333,
];

/// ln 2 split for Cody-Waite: `hi` has few significant bits so `n·hi` is exact.
pub(super) const LN2_HI32: f64 = 0.693359375;
pub(super) const LN2_LO32: f64 = -2.121_944_4e-4;
const LN2_HI64: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO64: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);

/// `eˣ`.
pub(super) fn exp(em: &mut Em, x: Value) -> Value {
    let (lo, hi, ln2_hi, ln2_lo, coeffs): (f64, f64, f64, f64, &[f64]) = if em.is64() {
        (-746.0, 710.0, LN2_HI64, LN2_LO64, &EXP64)
    } else {
        (-104.0, 89.0, LN2_HI32, LN2_LO32, &EXP32)
    };
    // Clamp (NaN compares false and passes through): beyond the bounds the result is 0 or inf anyway.
    let under = em.fcmpk(FloatCC::LessThan, x, lo);
    let x = em.selk(under, lo, x);
    let over = em.fcmpk(FloatCC::GreaterThan, x, hi);
    let x = em.selk(over, hi, x);
    exp_core(em, x, ln2_hi, ln2_lo, coeffs, false)
}

/// `eˣ` for `x` already within exp's range (or NaN): Cody-Waite reduction with `ln 2 =
/// ln2_hi + ln2_lo`, the polynomial `coeffs`, and the scaling by `2ⁿ`: in two steps
/// (gradual underflow), or in one when `normal` says the result is a normal number.
fn exp_core(em: &mut Em, x: Value, ln2_hi: f64, ln2_lo: f64, coeffs: &[f64], normal: bool) -> Value {
    let (n, y) = reduce(em, x, ln2_hi, ln2_lo, coeffs);
    let one = em.c(1.0);
    let y = em.add(y, one);
    if normal {
        let p = em.pow2(n);
        em.mul(y, p)
    } else {
        em.ldexp(y, n)
    }
}

/// eˣ = 2ⁿ(1 + y): the integer n = rint(x·log₂e), and y = r + r²·P(r) (`coeffs`) for the
/// Cody-Waite r = x − n·(`ln2_hi` + `ln2_lo`).
fn reduce(em: &mut Em, x: Value, ln2_hi: f64, ln2_lo: f64, coeffs: &[f64]) -> (Value, Value) {
    let l2e = em.c(std::f64::consts::LOG2_E);
    let kx = em.mul(x, l2e);
    let (fl, n) = em.rint(kx);
    let r = em.maddk(fl, -ln2_hi, x);
    let r = em.maddk(fl, -ln2_lo, r);
    let p = em.poly(r, coeffs);
    let r2 = em.mul(r, r);
    (n, em.madd(p, r2, r))
}

/// `ln x`.
pub(super) fn log(em: &mut Em, x: Value) -> Value {
    let is64 = em.is64();
    let (min_normal, scale, mant_bits, bias, one_bits) = if is64 {
        (f64::MIN_POSITIVE, 54, 52, 1023, 0x3ff0_0000_0000_0000_i64)
    } else {
        (f64::from(f32::MIN_POSITIVE), 23, 23, 127, 0x3f80_0000)
    };
    let sub = em.fcmpk(FloatCC::LessThan, x, min_normal);
    let k = em.c(2f64.powi(scale));
    let xk = em.mul(x, k);
    let xs = em.sel(sub, xk, x);
    let b = em.bits(xs);
    let e = em.ushr(b, mant_bits);
    let e = em.iaddk(e, -bias);
    let mant = em.iandk(b, (1i64 << mant_bits) - 1);
    let one_b = em.ic(one_bits);
    let mb = em.or(mant, one_b);
    let m = em.float_of_bits(mb);
    let big = em.fcmpk(FloatCC::GreaterThan, m, std::f64::consts::SQRT_2);
    let half = em.c(0.5);
    let mh = em.mul(m, half);
    let m = em.sel(big, mh, m);
    let e1 = em.iaddk(e, 1);
    let e = em.sel(big, e1, e);
    let es = em.iaddk(e, -i64::from(scale));
    let e = em.sel(sub, es, e);
    let ef = em.int_to_float(e);
    let one = em.c(1.0);
    let f = em.sub(m, one);
    let r = if is64 {
        let two = em.c(2.0);
        let d = em.add(f, two);
        let s = em.div(f, d);
        let t = em.mul(s, s);
        let g = em.poly(t, &LOG64);
        let tg = em.mul(t, g);
        let inner = em.sub(f, tg);
        let ns = em.neg(s);
        let r = em.madd(ns, inner, f);
        let r = em.maddk(ef, LN2_LO64, r);
        em.maddk(ef, LN2_HI64, r)
    } else {
        let z = em.mul(f, f);
        let p = em.poly(f, &LOG32);
        let fz = em.mul(f, z);
        let y = em.mul(fz, p);
        let y = em.maddk(ef, LN2_LO32, y);
        let y = em.maddk(z, -0.5, y);
        let r = em.add(f, y);
        em.maddk(ef, LN2_HI32, r)
    };
    let neg = em.fcmpk(FloatCC::LessThan, x, 0.0);
    let r = em.selk(neg, f64::NAN, r);
    let zero = em.fcmpk(FloatCC::Equal, x, 0.0);
    let r = em.selk(zero, f64::NEG_INFINITY, r);
    let inf = em.fcmpk(FloatCC::Equal, x, f64::INFINITY);
    let r = em.selk(inf, f64::INFINITY, r);
    let nan = em.isnan(x);
    em.sel(nan, x, r)
}

/// `ln(1 + x)`.
pub(super) fn log1p(em: &mut Em, x: Value) -> Value {
    let one = em.c(1.0);
    let u = em.add(one, x);
    let um1 = em.sub(u, one);
    let lu = log(em, u);
    let q = em.div(x, um1);
    let r = em.mul(lu, q);
    let exact = em.fcmpk(FloatCC::Equal, u, 1.0);
    let r = em.sel(exact, x, r);
    let inf = em.fcmpk(FloatCC::Equal, u, f64::INFINITY);
    em.sel(inf, u, r)
}

/// `eˣ − 1`.
pub(super) fn expm1(em: &mut Em, x: Value) -> Value {
    let u = exp(em, x);
    let one = em.c(1.0);
    let um1 = em.sub(u, one);
    let lu = log(em, u);
    let q = em.div(x, lu);
    let r = em.mul(um1, q);
    let exact = em.fcmpk(FloatCC::Equal, u, 1.0);
    let r = em.sel(exact, x, r);
    let minus_one = em.fcmpk(FloatCC::Equal, um1, -1.0);
    let r = em.selk(minus_one, -1.0, r);
    let inf = em.fcmpk(FloatCC::Equal, u, f64::INFINITY);
    em.sel(inf, u, r)
}

/// `tanh x`.
pub(super) fn tanh(em: &mut Em, x: Value) -> Value {
    if !em.is64() {
        return tanh32(em, x);
    }
    let ax = em.abs(x);
    let t = em.mul(x, x);
    let p = em.poly(t, &TANH64);
    let xt = em.mul(x, t);
    let small_r = em.madd(xt, p, x);
    // Above 2|x| = 40, 2/(e^{2|x|}+1) is below half an ulp of 1 and the result is ±1:
    // clamping there (NaN passes) keeps e^{2|x|} normal, so exp's own clamps and its
    // two-step scaling are not needed.
    let ax2 = em.add(ax, ax);
    let limv = em.c(40.0);
    let above = em.fcmp(FloatCC::LessThan, limv, ax2);
    let ax2 = em.sel(above, limv, ax2);
    let e = exp_core(em, ax2, LN2_HI64, LN2_LO64, &EXP64, true);
    let one = em.c(1.0);
    let two = em.c(2.0);
    let d = em.add(e, one);
    let q = em.div(two, d);
    let b = em.sub(one, q);
    let big_r = em.copysign(b, x);
    let small = em.fcmpk(FloatCC::LessThan, ax, 0.625);
    let r = em.sel(small, small_r, big_r);
    em.keep_zero(x, r)
}

/// f32 `tanh x`, all in f32 lanes: with a = |x|, below [`TANH32_SMALL_MAX`] the odd polynomial
/// `a + a·t·c(t)` (t = a², the correction at most 13% of the result, so its rounding errors
/// reach the result scaled down), from it on `1 − 2/(e^{2a} + 1)` with a clamped to
/// [`TANH32_CLAMP`] (NaN passes) and e^{2a} + 1 formed as `2ⁿ·y + (2ⁿ + 1)`, where
/// e^{2a} = 2ⁿ(1 + y), in one rounding where 2ⁿ + 1 is exact (n ≤ 23, |x| < 8.1; beyond, the
/// quotient is below 2⁻²² and its error below the result's half ulp); the quotient is at most
/// 0.45, so its errors reach the result at most halved; then x's sign. At most 1 ulp from the
/// correctly rounded tanh on every f32 in [10⁻³⁰, 10], with fma and with separate multiplies
/// and adds alike (an exhaustive one-off sweep of a C replica; 96.8% correctly rounded on
/// [0.01, 10] with fma).
/// Subnormals and ±0 come back unchanged (t underflows to 0). Both branches run in every lane
/// (no branch); with one f32 division and no f64 lanes it takes about 0.6 of the time of a
/// rational evaluated in f64, whose two f64 divisions per f32 vector bound it on the divider.
fn tanh32(em: &mut Em, x: Value) -> Value {
    let ax = em.abs(x);
    let t = em.mul(ax, ax);
    let c = em.poly(t, &TANH32_SMALL);
    let at = em.mul(ax, t);
    let small = em.madd(at, c, ax);
    let hi = em.c(TANH32_CLAMP);
    let above = em.fcmp(FloatCC::LessThan, hi, ax);
    let a = em.sel(above, hi, ax);
    let a2 = em.add(a, a);
    let (n, y) = reduce(em, a2, LN2_HI32, LN2_LO32, &EXP32);
    let s = em.pow2(n);
    let one = em.c(1.0);
    let s1 = em.add(s, one);
    let d = em.madd(s, y, s1);
    let two = em.c(2.0);
    let q = em.div(two, d);
    let big = em.sub(one, q);
    let is_small = em.fcmpk(FloatCC::LessThan, ax, TANH32_SMALL_MAX);
    let r = em.sel(is_small, small, big);
    em.copysign(r, x)
}

/// `1/(1 + e^{−x})`.
pub(super) fn logistic(em: &mut Em, x: Value) -> Value {
    let ax = em.abs(x);
    let nax = em.neg(ax);
    let e = exp(em, nax);
    let one = em.c(1.0);
    let d = em.add(one, e);
    let neg = em.fcmpk(FloatCC::LessThan, x, 0.0);
    let num = em.sel(neg, e, one);
    em.div(num, d)
}
