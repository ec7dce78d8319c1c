//! `f32` `pow(x, y)`: the magnitude is `exp(y·ln|x|)` computed with the `f64` kernels (an `F32X4` as two `F64X2`
//! halves), so the error stays below one f32 ulp whatever the size of `y·ln x`; the sign and the IEEE special cases
//! (negative x with integer y, `x^±0 = 1`, `1^y = 1`, `(−1)^±inf = 1`, NaN for negative x and non-integer finite y)
//! are selects in f32. Zeros and infinities of x and y need no special case: `ln 0 = −inf`, `ln inf = inf`, and
//! `exp` of ±inf gives inf or 0.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{Value, types};

use super::explog::{exp, log};
use super::ops::Em;

fn magnitude64(em: &mut Em, ax: Value, y: Value) -> Value {
    let l = log(em, ax);
    let p = em.mul(y, l);
    exp(em, p)
}

/// `x^y` (f32).
pub(super) fn pow(em: &mut Em, x: Value, y: Value) -> Value {
    let ax = em.abs(x);
    let r = if em.is_vec() {
        let xl = em.widen(ax, false);
        let xh = em.widen(ax, true);
        let yl = em.widen(y, false);
        let yh = em.widen(y, true);
        let rl = em.with_ty(types::F64X2, |em| magnitude64(em, xl, yl));
        let rh = em.with_ty(types::F64X2, |em| magnitude64(em, xh, yh));
        em.narrow(rl, Some(rh))
    } else {
        let xd = em.widen(ax, false);
        let yd = em.widen(y, false);
        let rd = em.with_ty(types::F64, |em| magnitude64(em, xd, yd));
        em.narrow(rd, None)
    };
    // Integer and odd-integer lanes of y. Below 2^23, adding 2^23 rounds |y| to an integer whose parity is the
    // low bit; from 2^23 every f32 is an integer, odd only below 2^24 with the low mantissa bit set.
    let ay = em.abs(y);
    let k23 = em.c(8388608.0);
    let t = em.add(ay, k23);
    let fl = em.sub(t, k23);
    let small = em.fcmpk(FloatCC::LessThan, ay, 8388608.0);
    let exact = em.fcmp(FloatCC::Equal, fl, ay);
    let tb = em.bits(t);
    let odd_small = em.iandk(tb, 1);
    let odd_small = em.icmpk(IntCC::NotEqual, odd_small, 0);
    let odd_small = em.and(odd_small, exact);
    let ayb = em.bits(ay);
    let odd_big = em.iandk(ayb, 1);
    let odd_big = em.icmpk(IntCC::NotEqual, odd_big, 0);
    let below24 = em.fcmpk(FloatCC::LessThan, ay, 16777216.0);
    let odd_big = em.and(odd_big, below24);
    let odd = em.sel(small, odd_small, odd_big);
    let not_small = em.not(small);
    let is_int = em.or(exact, not_small);
    // Sign: negative x (including -0 and -inf) with odd integer y.
    let xneg = em.signbit(x);
    let flip = em.and(xneg, odd);
    let nr = em.neg(r);
    let r = em.sel(flip, nr, r);
    // NaN: finite x < 0 with finite non-integer y.
    let xlt = em.fcmpk(FloatCC::LessThan, x, 0.0);
    let xfin = em.fcmpk(FloatCC::GreaterThan, x, f64::NEG_INFINITY);
    let yfin = em.fcmpk(FloatCC::LessThan, ay, f64::INFINITY);
    let nonint = em.not(is_int);
    let bad = em.and(xlt, xfin);
    let bad = em.and(bad, yfin);
    let bad = em.and(bad, nonint);
    let r = em.selk(bad, f64::NAN, r);
    // (±1)^±inf = 1, 1^y = 1, x^±0 = 1.
    let x1 = em.fcmpk(FloatCC::Equal, ax, 1.0);
    let yinf = em.fcmpk(FloatCC::Equal, ay, f64::INFINITY);
    let one_a = em.and(x1, yinf);
    let xone = em.fcmpk(FloatCC::Equal, x, 1.0);
    let yzero = em.fcmpk(FloatCC::Equal, y, 0.0);
    let one_b = em.or(xone, yzero);
    let one = em.or(one_a, one_b);
    em.selk(one, 1.0, r)
}
