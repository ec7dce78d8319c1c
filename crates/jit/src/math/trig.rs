//! `f32` `sin`, `cos`, `tan`, `erf` and `atan2`.
//!
//! * `sin`/`cos`/`tan`: the reduction `r = x − q·π/2` runs in `f64` (an `F32X4` is split into two `F64X2` halves)
//!   with π/2 in three parts (fdlibm's `pio2_1`, `pio2_2`, `pio2_2t`), exact enough for |x| < 2^20; `r` is rounded
//!   to `f32` and the kernels are `f32` polynomials on [−π/4, π/4]: `sin r = r + r³·S(r²)`,
//!   `cos r = 1 − r²/2 + r⁴·C(r²)`, `tan r = r + r³·T(r²)` (`−1/tan r` in odd quadrants). Lanes with
//!   |x| ≥ 2^20 (and ±inf) take a cold branch that calls libm per lane, so the result is correct everywhere.
//! * `erf`: `x·E(x²)` for |x| < 1, `1 − e^{−x²}·R(u)` with `u = (|x| − 2.5)/1.5` on [1, 4] and 1 beyond.
//! * `atan2(y, x)`: `a = min(|x|,|y|)/max(|x|,|y|)`, `atan a` by the Cephes reduction at tan(π/8) and a polynomial,
//!   then the octant fix-ups `π/2 − z`, `π − z` and the sign of y; ±0/±0 and ±inf/±inf per IEEE by selects.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, Value, types};

use super::explog::exp;
use super::ops::Em;

/// (sin r − r)/r³ in t = r² on [0, (π/4)²].
const SIN32: [f64; 4] = [2.7246868722877944e-06, -0.00019840063040804117, 0.00833333183062943, -0.16666666663741367];
/// (cos r − 1 + r²/2)/r⁴ in t = r² on [0, (π/4)²].
const COS32: [f64; 4] = [-2.7298407652795173e-07, 2.4800580601354642e-05, -0.0013888887635227975, 0.04166666666422613];
/// (tan r − r)/r³ in t = r² on [0, (π/4)²].
const TAN32: [f64; 7] = [
    0.003885034862983443,
    0.0011143661809247844,
    0.010006783823341574,
    0.021608335534501855,
    0.05399609764196706,
    0.1333322346369455,
    0.33333334033615675,
];
/// (atan a − a)/a³ in t = a² on [0, (√2−1)²].
const ATAN32: [f64; 6] = [
    0.050280805670111846,
    -0.08616863957438002,
    0.1107031216765306,
    -0.14284094100114464,
    0.19999976194852576,
    -0.33333333276160115,
];
/// erf(x)/x in t = x² on [0, 1].
const ERF32_SMALL: [f64; 7] = [
    7.875875062685488e-05,
    -0.000801686428716587,
    0.005189087423433974,
    -0.026854212010626412,
    0.11283594715160218,
    -0.37612626666720334,
    1.1283791658483509,
];
/// erfc(x)·e^{x²} in u = (x − 2.5)/1.5 on [−1, 1] (x ∈ [1, 4]).
const ERF32_BIG: [f64; 12] = [
    -3.566417876899525e-05,
    9.629120195463984e-05,
    -0.00014741614293549128,
    0.000368151097857375,
    -0.0010136625981274393,
    0.0024256389379578133,
    -0.005568837645570178,
    0.012484123148533609,
    -0.027005458212834586,
    0.05611094755697202,
    -0.11152101793723113,
    0.21080635774313639,
];

/// π/2 in three parts (fdlibm): the first two have 33 significant bits, so `q·part` is exact for q < 2^20.
const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a60_0000);
const PIO2_2T: f64 = f64::from_bits(0x3ba3_198a_2e03_7073);
/// Beyond this |x| the reduction above loses accuracy: libm per lane.
const TRIG_MAX: f64 = 1048576.0;

/// Which trigonometric function.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Trig {
    Sin,
    Cos,
    Tan,
}

/// `(r, q)` in `f64` with `x = q·π/2 + r`, |r| ≤ π/4 (about).
fn reduce64(em: &mut Em, x: Value) -> (Value, Value) {
    let k = em.c(std::f64::consts::FRAC_2_PI);
    let xk = em.mul(x, k);
    let (q, _) = em.rint(xk);
    let r = em.maddk(q, -PIO2_1, x);
    let r = em.maddk(q, -PIO2_2, r);
    let r = em.maddk(q, -PIO2_2T, r);
    (r, q)
}

/// `(r, q)` as `f32` values (r rounded once), the reduction done in `f64`.
fn reduce(em: &mut Em, x: Value) -> (Value, Value) {
    if em.is_vec() {
        let lo = em.widen(x, false);
        let hi = em.widen(x, true);
        let (rl, ql) = em.with_ty(types::F64X2, |em| reduce64(em, lo));
        let (rh, qh) = em.with_ty(types::F64X2, |em| reduce64(em, hi));
        (em.narrow(rl, Some(rh)), em.narrow(ql, Some(qh)))
    } else {
        let xd = em.widen(x, false);
        let (r, q) = em.with_ty(types::F64, |em| reduce64(em, xd));
        (em.narrow(r, None), em.narrow(q, None))
    }
}

/// `sin x`, `cos x` or `tan x` (f32).
pub(super) fn trig(em: &mut Em, x: Value, which: Trig) -> Value {
    let (r, q) = reduce(em, x);
    let (_, k) = em.rint(q);
    let t = em.mul(r, r);
    let rt = em.mul(r, t);
    let fast = if which == Trig::Tan {
        let p = em.poly(t, &TAN32);
        let tn = em.madd(rt, p, r);
        let m1 = em.c(-1.0);
        let cot = em.div(m1, tn);
        let odd = em.iandk(k, 1);
        let odd = em.icmpk(IntCC::NotEqual, odd, 0);
        em.sel(odd, cot, tn)
    } else {
        let ps = em.poly(t, &SIN32);
        let s = em.madd(rt, ps, r);
        let pc = em.poly(t, &COS32);
        let t2 = em.mul(t, t);
        let one = em.c(1.0);
        let c0 = em.maddk(t, -0.5, one);
        let c = em.madd(t2, pc, c0);
        let k = if which == Trig::Cos { em.iaddk(k, 1) } else { k };
        let odd = em.iandk(k, 1);
        let odd = em.icmpk(IntCC::NotEqual, odd, 0);
        let v = em.sel(odd, c, s);
        let sign = em.iandk(k, 2);
        let sign = em.shl(sign, 30);
        let vb = em.bits(v);
        let vb = em.xor(vb, sign);
        em.float_of_bits(vb)
    };
    // sin and tan are odd: keep the sign of ±0.
    let fast = if which == Trig::Cos { fast } else { em.keep_zero(x, fast) };
    let name = match which {
        Trig::Sin => "ferrax_math_sinf",
        Trig::Cos => "ferrax_math_cosf",
        Trig::Tan => "ferrax_math_tanf",
    };
    slow_lanes(em, x, fast, name)
}

/// `fast`, unless some lane has |x| ≥ [`TRIG_MAX`] (or is ±inf): then a cold block recomputes every lane with `name`.
fn slow_lanes(em: &mut Em, x: Value, fast: Value, name: &str) -> Value {
    let ax = em.abs(x);
    let far = em.fcmpk(FloatCC::GreaterThanOrEqual, ax, TRIG_MAX);
    let cond = if em.is_vec() { em.fb.ins().vany_true(far) } else { far };
    let slow = em.fb.create_block();
    let join = em.fb.create_block();
    em.fb.set_cold_block(slow);
    em.fb.append_block_param(join, em.ty);
    em.fb.ins().brif(cond, slow, &[], join, &[fast.into()]);
    em.fb.switch_to_block(slow);
    em.fb.seal_block(slow);
    let v = em.call_lanes(name, &[x]);
    em.fb.ins().jump(join, &[v.into()]);
    em.fb.switch_to_block(join);
    em.fb.seal_block(join);
    em.fb.block_params(join)[0]
}

/// `erf x` (f32).
pub(super) fn erf(em: &mut Em, x: Value) -> Value {
    let ax = em.abs(x);
    let t = em.mul(x, x);
    let ps = em.poly(t, &ERF32_SMALL);
    let small_r = em.mul(x, ps);
    let far = em.fcmpk(FloatCC::GreaterThan, ax, 4.0);
    let axc = em.selk(far, 4.0, ax);
    let off = em.c(-2.5 / 1.5);
    let u = em.maddk(axc, 1.0 / 1.5, off);
    let rr = em.poly(u, &ERF32_BIG);
    let a2 = em.mul(axc, axc);
    let na2 = em.neg(a2);
    let e = exp(em, na2);
    let ne = em.neg(e);
    let one = em.c(1.0);
    let b = em.madd(ne, rr, one);
    let big_r = em.copysign(b, x);
    let small = em.fcmpk(FloatCC::LessThan, ax, 1.0);
    em.sel(small, small_r, big_r)
}

/// `atan2(y, x)` (f32): the angle of the point (x, y).
pub(super) fn atan2(em: &mut Em, y: Value, x: Value) -> Value {
    let ax = em.abs(x);
    let ay = em.abs(y);
    let swap = em.fcmp(FloatCC::GreaterThan, ay, ax);
    let num = em.sel(swap, ax, ay);
    let den = em.sel(swap, ay, ax);
    let a = em.div(num, den);
    // 0/0 -> 0 and inf/inf -> 1 (then the fix-ups below give the IEEE angles).
    let zero = em.fcmpk(FloatCC::Equal, den, 0.0);
    let a = em.selk(zero, 0.0, a);
    let xinf = em.fcmpk(FloatCC::Equal, ax, f64::INFINITY);
    let yinf = em.fcmpk(FloatCC::Equal, ay, f64::INFINITY);
    let both = em.and(xinf, yinf);
    let a = em.selk(both, 1.0, a);
    // atan a for a in [0, 1].
    let big = em.fcmpk(FloatCC::GreaterThan, a, std::f64::consts::SQRT_2 - 1.0);
    let one = em.c(1.0);
    let am1 = em.sub(a, one);
    let ap1 = em.add(a, one);
    let ar = em.div(am1, ap1);
    let a = em.sel(big, ar, a);
    let quarter = em.c(std::f64::consts::FRAC_PI_4);
    let zero_c = em.c(0.0);
    let base = em.sel(big, quarter, zero_c);
    let t = em.mul(a, a);
    let p = em.poly(t, &ATAN32);
    let at = em.mul(a, t);
    let z = em.madd(at, p, a);
    let z = em.add(z, base);
    // Octant fix-ups with π/2 and π in two f32 parts.
    let (pio2_hi, pio2_lo) = split32(std::f64::consts::FRAC_PI_2);
    let (pi_hi, pi_lo) = split32(std::f64::consts::PI);
    let h = em.c(pio2_hi);
    let zs = em.sub(h, z);
    let l = em.c(pio2_lo);
    let zs = em.add(zs, l);
    let z = em.sel(swap, zs, z);
    let h = em.c(pi_hi);
    let zn = em.sub(h, z);
    let l = em.c(pi_lo);
    let zn = em.add(zn, l);
    let xneg = em.signbit(x);
    let z = em.sel(xneg, zn, z);
    let r = em.copysign(z, y);
    let nx = em.isnan(x);
    let ny = em.isnan(y);
    let nan = em.or(nx, ny);
    let s = em.add(x, y);
    em.sel(nan, s, r)
}

/// `v` as the nearest f32 plus the f32 nearest to the remainder.
fn split32(v: f64) -> (f64, f64) {
    let hi = f64::from(v as f32);
    (hi, f64::from((v - hi) as f32))
}
