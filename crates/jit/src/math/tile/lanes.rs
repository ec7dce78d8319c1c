//! The tile routines written once, over a vector of f32 lanes ([`Lanes`]) that `x86`
//! implements at 256 bits (AVX2 + FMA) and at 512 bits (AVX-512F): the operations of the
//! inline kernels of `math::explog`, in their order, so that both widths give the same bits
//! as each other and as the inline code.
//!
//! Everything here is `#[inline(always)]` and free of closures: the routines are
//! instantiated inside the `#[target_feature]` entry points of `x86`, where the intrinsics
//! behind [`Lanes`] inline and compile to that width's instructions (a closure would be
//! compiled without those features, and every intrinsic in it would stay a call).

use super::super::explog::{EXP32, LN2_HI32, LN2_LO32, TANH32_CLAMP, TANH32_SMALL, TANH32_SMALL_MAX};

/// A vector of f32 lanes and the operations the routines use on it. Every method is the
/// single instruction of that name, lane by lane (IEEE round to nearest, as the inline
/// kernels compute).
pub(super) trait Lanes: Copy {
    /// Lanes per vector.
    const N: usize;
    /// The same lanes as i32.
    type I: Copy;
    /// Reads `N` values at `p`.
    ///
    /// # Safety
    /// `p` is valid for `N` reads; the host has the vector's instructions.
    unsafe fn load(p: *const f32) -> Self;
    /// Writes the lanes at `p`.
    ///
    /// # Safety
    /// `p` is valid for `N` writes; the host has the vector's instructions.
    unsafe fn store(self, p: *mut f32);
    /// `v` in every lane.
    fn splat(v: f32) -> Self;
    /// `self + b`.
    fn add(self, b: Self) -> Self;
    /// `self − b`.
    fn sub(self, b: Self) -> Self;
    /// `self · b`.
    fn mul(self, b: Self) -> Self;
    /// `self / b`.
    fn div(self, b: Self) -> Self;
    /// `self · b + c`, rounded once.
    fn fma(self, b: Self, c: Self) -> Self;
    /// `self > b ? self : b` (`b` when either is NaN: `maxps`).
    fn max(self, b: Self) -> Self;
    /// `self < b ? self : b` (`b` when either is NaN: `minps`).
    fn min(self, b: Self) -> Self;
    /// The bitwise and.
    fn and(self, b: Self) -> Self;
    /// The bitwise or.
    fn or(self, b: Self) -> Self;
    /// Per lane, `if_less` where `self < b` (ordered: false if either is NaN), else `other`.
    fn where_less(self, b: Self, if_less: Self, other: Self) -> Self;
    /// Whether every lane lies in `[lo, hi]` (false if one is NaN).
    fn all_within(self, lo: Self, hi: Self) -> bool;
    /// The lanes' bits.
    fn bits(self) -> Self::I;
    /// Lanes with bits `i`.
    fn from_bits(i: Self::I) -> Self;
    /// `v` in every i32 lane.
    fn isplat(v: i32) -> Self::I;
    /// `a + b` (i32, wrapping).
    fn iadd(a: Self::I, b: Self::I) -> Self::I;
    /// `a − b` (i32, wrapping).
    fn isub(a: Self::I, b: Self::I) -> Self::I;
    /// `a << 23`.
    fn shl23(a: Self::I) -> Self::I;
    /// `a >> 1`, arithmetic.
    fn sra1(a: Self::I) -> Self::I;
}

/// A lane-wise f32 function a tile routine maps over its values.
pub(super) trait Map {
    /// The function on one vector.
    fn map<L: Lanes>(x: L) -> L;
}

/// Below this, `eˣ` may need a subnormal scale 2ⁿ (n < −126: 87·log₂e ≈ 125.5).
const NORMAL_LO: f32 = -87.0;
/// Above this, 2ⁿ may overflow (n > 127: 88·log₂e ≈ 126.96).
const NORMAL_HI: f32 = 88.0;

/// The f32 constant `v` in every lane (rounded as the inline kernels round it).
#[inline(always)]
fn k<L: Lanes>(v: f64) -> L {
    L::splat(v as f32)
}

/// Horner evaluation of `coeffs` (highest degree first) at `x`, one fma a step.
#[inline(always)]
fn poly<L: Lanes>(x: L, coeffs: &[f64]) -> L {
    // A loop, not a fold: a closure would be compiled without the entry point's target
    // features and stay an out-of-line call.
    let mut acc = k::<L>(coeffs[0]);
    for &c in &coeffs[1..] {
        acc = acc.fma(x, k(c));
    }
    acc
}

/// `2ⁿ` for integer lanes `n` in the normal exponent range.
#[inline(always)]
fn pow2<L: Lanes>(n: L::I) -> L {
    L::from_bits(L::shl23(L::iadd(n, L::isplat(127))))
}

/// eˣ = 2ⁿ(1 + y) for `x` within exp's range: n = rint(x·log₂e) (the magic-number
/// rounding), the Cody-Waite r = x − n·ln 2 in two parts, and y = r + r²·P(r).
#[inline(always)]
fn reduce<L: Lanes>(x: L) -> (L::I, L) {
    let kx = x.mul(k(std::f64::consts::LOG2_E));
    let magic = k::<L>(12582912.0);
    let t = kx.add(magic);
    let fl = t.sub(magic);
    let n = L::isub(t.bits(), magic.bits());
    let r = fl.fma(k(-LN2_HI32), x);
    let r = fl.fma(k(-LN2_LO32), r);
    (n, poly(r, &EXP32).fma(r.mul(r), r))
}

/// `eˣ` for `x` within exp's range: Cody-Waite reduction, the polynomial, and the scaling
/// by `2ⁿ` in one step (`NORMAL`: n is known to be in [−126, 127]) or two (gradual
/// underflow, and 2¹²⁸ at the top).
#[inline(always)]
fn exp_core<L: Lanes, const NORMAL: bool>(x: L) -> L {
    let (n, y) = reduce(x);
    let y = y.add(k(1.0));
    if NORMAL {
        y.mul(pow2(n))
    } else {
        let n1 = L::sra1(n);
        let n2 = L::isub(n, n1);
        y.mul(pow2(n1)).mul(pow2(n2))
    }
}

/// `eˣ` (the clamps of `explog::exp`, then [`exp_core`]). The clamps are `max`/`min` with x
/// second, which pass NaN on as the inline compare-and-select does. `NORMAL`: the caller
/// knows every lane lies in [[`NORMAL_LO`], [`NORMAL_HI`]].
#[inline(always)]
fn exp<L: Lanes, const NORMAL: bool>(x: L) -> L {
    let x = k::<L>(-104.0).max(x);
    let x = k::<L>(89.0).min(x);
    exp_core::<L, NORMAL>(x)
}

/// The lanes with only the sign bit of `x` kept.
#[inline(always)]
fn sign<L: Lanes>(x: L) -> L {
    x.and(L::from_bits(L::isplat(i32::MIN)))
}

/// `|x|`, bitwise.
#[inline(always)]
fn abs<L: Lanes>(x: L) -> L {
    x.and(L::from_bits(L::isplat(i32::MAX)))
}

/// `tanh x` (`explog::tanh32`, the same operations in the same order): with a = |x|,
/// `a + a·t·c(t)` below the threshold, `1 − 2/(2ⁿ·y + (2ⁿ + 1))` from it on (e^{2a} = 2ⁿ(1 + y),
/// a clamped by `min` with a second, which passes NaN on as the inline compare-and-select
/// does), then x's sign.
#[inline(always)]
fn tanh<L: Lanes>(x: L) -> L {
    let ax = abs(x);
    let t = ax.mul(ax);
    let small = ax.mul(t).fma(poly(t, &TANH32_SMALL), ax);
    let a = k::<L>(TANH32_CLAMP).min(ax);
    let (n, y) = reduce(a.add(a));
    let s = pow2::<L>(n);
    let one = k::<L>(1.0);
    let d = s.fma(y, s.add(one));
    let big = one.sub(k::<L>(2.0).div(d));
    let r = ax.where_less(k(TANH32_SMALL_MAX), small, big);
    abs(r).or(sign(x))
}

/// `1/(1 + e^{−x})` (`explog::logistic`); `NORMAL` as for [`exp`], for −|x|.
#[inline(always)]
fn logistic<L: Lanes, const NORMAL: bool>(x: L) -> L {
    let nax = x.or(L::from_bits(L::isplat(i32::MIN)));
    let e = exp::<L, NORMAL>(nax);
    let one = k::<L>(1.0);
    x.where_less(k(0.0), e, one).div(one.add(e))
}

/// [`exp`] as a [`Map`].
pub(super) struct Exp<const NORMAL: bool>;
impl<const NORMAL: bool> Map for Exp<NORMAL> {
    #[inline(always)]
    fn map<L: Lanes>(x: L) -> L {
        exp::<L, NORMAL>(x)
    }
}

/// [`tanh`] as a [`Map`].
pub(super) struct Tanh;
impl Map for Tanh {
    #[inline(always)]
    fn map<L: Lanes>(x: L) -> L {
        tanh(x)
    }
}

/// [`logistic`] as a [`Map`].
pub(super) struct Logistic<const NORMAL: bool>;
impl<const NORMAL: bool> Map for Logistic<NORMAL> {
    #[inline(always)]
    fn map<L: Lanes>(x: L) -> L {
        logistic::<L, NORMAL>(x)
    }
}

/// `F` on the `n` values at `p`, in place: two independent vectors an iteration (their
/// dependency chains interleave), then one, then the tail through a zero-padded copy.
///
/// # Safety
/// `p` is valid for `n` reads and writes; the host has `L`'s instructions.
#[inline(always)]
pub(super) unsafe fn map_tile<L: Lanes, F: Map>(p: *mut f32, n: usize) {
    let mut i = 0;
    while i + 2 * L::N <= n {
        // SAFETY: i + 2N <= n.
        unsafe {
            let (x0, x1) = (L::load(p.add(i)), L::load(p.add(i + L::N)));
            let (y0, y1) = (F::map(x0), F::map(x1));
            y0.store(p.add(i));
            y1.store(p.add(i + L::N));
        }
        i += 2 * L::N;
    }
    while i + L::N <= n {
        // SAFETY: i + N <= n.
        unsafe { F::map(L::load(p.add(i))).store(p.add(i)) };
        i += L::N;
    }
    if i < n {
        let mut buf = [0f32; 16];
        assert!(L::N <= buf.len());
        // SAFETY: the n - i < N values from i are in bounds and fit the buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(p.add(i), buf.as_mut_ptr(), n - i);
            F::map(L::load(buf.as_ptr())).store(buf.as_mut_ptr());
            std::ptr::copy_nonoverlapping(buf.as_ptr(), p.add(i), n - i);
        }
    }
}

/// Whether all `n` values at `p` lie in [`lo`, `hi`] (false if one is NaN).
///
/// # Safety
/// `p` is valid for `n` reads; the host has `L`'s instructions.
#[inline(always)]
unsafe fn within<L: Lanes>(p: *const f32, n: usize, lo: f32, hi: f32) -> bool {
    let (vlo, vhi) = (L::splat(lo), L::splat(hi));
    let mut i = 0;
    while i + L::N <= n {
        // SAFETY: i + N <= n.
        if !unsafe { L::load(p.add(i)) }.all_within(vlo, vhi) {
            return false;
        }
        i += L::N;
    }
    for j in i..n {
        // SAFETY: j < n.
        if !(lo..=hi).contains(&unsafe { *p.add(j) }) {
            return false;
        }
    }
    true
}

/// `eˣ` on `n` values at `p`, in place: a first pass checks whether every value lies where
/// eˣ is scaled by a normal 2ⁿ in one step, which saves the two-step scaling of gradual
/// underflow (the same bits: a multiplication by a power of two rounds only where the
/// result is subnormal, once, either way).
///
/// # Safety
/// `p` is valid for `n` reads and writes; the host has `L`'s instructions.
#[inline(always)]
pub(super) unsafe fn exp_tile<L: Lanes>(p: *mut f32, n: usize) {
    // SAFETY: as this function's contract.
    unsafe {
        if within::<L>(p, n, NORMAL_LO, NORMAL_HI) {
            map_tile::<L, Exp<true>>(p, n)
        } else {
            map_tile::<L, Exp<false>>(p, n)
        }
    }
}

/// `1/(1 + e^{−x})` on `n` values at `p`, in place, with the check of [`exp_tile`] on −|x|.
///
/// # Safety
/// `p` is valid for `n` reads and writes; the host has `L`'s instructions.
#[inline(always)]
pub(super) unsafe fn logistic_tile<L: Lanes>(p: *mut f32, n: usize) {
    // SAFETY: as this function's contract.
    unsafe {
        if within::<L>(p, n, NORMAL_LO, -NORMAL_LO) {
            map_tile::<L, Logistic<true>>(p, n)
        } else {
            map_tile::<L, Logistic<false>>(p, n)
        }
    }
}

/// `tanh x` on `n` values at `p`, in place.
///
/// # Safety
/// `p` is valid for `n` reads and writes; the host has `L`'s instructions.
#[inline(always)]
pub(super) unsafe fn tanh_tile<L: Lanes>(p: *mut f32, n: usize) {
    // SAFETY: as this function's contract.
    unsafe { map_tile::<L, Tanh>(p, n) }
}
