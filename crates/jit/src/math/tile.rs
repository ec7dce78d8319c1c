//! Tile routines: `exp`, `tanh` and `logistic` on f32 slices in 256-bit AVX2 + FMA vectors,
//! precompiled Rust for kernels to call once per L1-sized tile (cranelift-backend notes §7:
//! Cranelift emits at most 128-bit vectors, so the expensive math runs at half the width the
//! host has).
//!
//! Each routine performs, lane by lane, exactly the operations of the kernel that
//! [`super::explog`] emits with FMA (same constants, rounded to f32 for `exp`/`logistic` and
//! kept in f64 for `tanh`'s f64 rational; same order; one fused multiply-add where that one
//! has one), so a value computed here has the same bits as the
//! kernel's inline code on an FMA host (NaN payloads aside): a kernel may stage a value through
//! a tile routine or compute it inline without changing its results, and the ulp bounds of
//! [`super`] hold unchanged. [`available`] says whether the host can run them; on other hosts
//! (and other architectures) kernels keep the inline code.
//!
//! The routines work in place on `n` elements (`extern "C"`, registered as JIT symbols by
//! [`symbols`]); a tail of fewer than 8 elements goes through a zero-padded 8-lane copy.
//! `exp` and `logistic` first check the whole tile: when every value lies where eˣ's scale 2ⁿ
//! is a normal float (`exp`: x in [−87, 88]; `logistic`: |x| ≤ 87), they scale in one multiplication instead of the two
//! that gradual underflow needs (the same bits; about 15% less time). `tanh` is the f32
//! rational of [`super::explog`] evaluated in f64 lanes, four at a time.
//!
//! One more routine rounds f32 values to f16 and widens them back (`vcvtps2ph` and
//! `vcvtph2ps`, F16C): the rounding a 16-bit program makes after each f16 result, which
//! the JIT computes in f32. Round to nearest even, overflow to ±inf, f16 subnormals kept
//! (MXCSR's flush modes do not apply to these instructions): the bits of the inline
//! integer code of `kernel::half` except NaN payloads, which F16C keeps and the inline
//! code makes canonical (both give a quiet NaN of the same sign). It needs F16C beside
//! AVX2 and FMA ([`f16c_available`]); without, kernels keep the inline code.

/// Which tile routine: the unary f32 function it computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TileFn {
    /// `eˣ`.
    Exp,
    /// `tanh x`.
    Tanh,
    /// `1/(1 + e^{−x})`.
    Logistic,
    /// `f32(f16(x))`: rounded to f16 and widened back.
    RoundF16,
}

impl TileFn {
    /// The JIT symbol of the routine.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            TileFn::Exp => "ferrax_tile_exp_f32",
            TileFn::Tanh => "ferrax_tile_tanh_f32",
            TileFn::Logistic => "ferrax_tile_logistic_f32",
            TileFn::RoundF16 => "ferrax_tile_round_f16",
        }
    }
}

/// Whether this host runs the tile routines (x86-64 with AVX2 and FMA).
pub(crate) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this host also runs [`TileFn::RoundF16`] (F16C beside AVX2 and FMA).
pub(crate) fn f16c_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        available() && std::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The routines to register on every `JITBuilder` (none where they cannot run).
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut out = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if available() {
            out.push((TileFn::Exp.symbol(), avx2::exp_tile as *const u8));
            out.push((TileFn::Tanh.symbol(), avx2::tanh_tile as *const u8));
            out.push((TileFn::Logistic.symbol(), avx2::logistic_tile as *const u8));
        }
        if f16c_available() {
            out.push((TileFn::RoundF16.symbol(), avx2::round_f16_tile as *const u8));
        }
    }
    out
}

/// Runs `f` on `xs` in place with the tile routine (for tests; the host must be
/// [`available`]).
#[cfg(test)]
pub(crate) fn apply(f: TileFn, xs: &mut [f32]) {
    assert!(available(), "tile routines need AVX2 and FMA");
    #[cfg(target_arch = "x86_64")]
    {
        let r = match f {
            TileFn::Exp => avx2::exp_tile,
            TileFn::Tanh => avx2::tanh_tile,
            TileFn::Logistic => avx2::logistic_tile,
            TileFn::RoundF16 => {
                assert!(f16c_available(), "the f16 tile routine needs F16C");
                avx2::round_f16_tile
            }
        };
        // SAFETY: `xs` is valid for `len` reads and writes; the host has AVX2 and FMA
        // (and F16C for the f16 routine).
        unsafe { r(xs.as_mut_ptr(), xs.len()) }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::super::explog::{EXP32, LN2_HI32, LN2_LO32, TANH32_CLAMP, TANH32_P, TANH32_Q};
    use std::arch::x86_64::*;

    /// The f32 constant `k` in every lane (rounded as the inline kernels round it).
    #[inline(always)]
    fn k(v: f64) -> __m256 {
        // SAFETY: only called from functions compiled with AVX enabled.
        unsafe { _mm256_set1_ps(v as f32) }
    }

    /// Horner evaluation of `coeffs` (highest degree first) at `x`, one fma a step.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn poly(x: __m256, coeffs: &[f64]) -> __m256 {
        let mut acc = k(coeffs[0]);
        for &c in &coeffs[1..] {
            acc = _mm256_fmadd_ps(acc, x, k(c));
        }
        acc
    }

    /// `2ⁿ` for integer lanes `n` in the normal exponent range.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn pow2(n: __m256i) -> __m256 {
        _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(n, _mm256_set1_epi32(127))))
    }

    /// Below this, `eˣ` may need a subnormal scale 2ⁿ (n < −126: 87·log₂e ≈ 125.5).
    const NORMAL_LO: f32 = -87.0;
    /// Above this, 2ⁿ may overflow (n > 127: 88·log₂e ≈ 126.96).
    const NORMAL_HI: f32 = 88.0;

    /// `eˣ` for `x` within exp's range: Cody-Waite reduction, the polynomial, and the scaling
    /// by `2ⁿ` in one step (`normal`: n is known to be in [−126, 127]) or two (gradual
    /// underflow, and 2¹²⁸ at the top).
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn exp_core(x: __m256, normal: bool) -> __m256 {
        let kx = _mm256_mul_ps(x, k(std::f64::consts::LOG2_E));
        let magic = k(12582912.0);
        let t = _mm256_add_ps(kx, magic);
        let fl = _mm256_sub_ps(t, magic);
        let n = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(magic));
        let r = _mm256_fmadd_ps(fl, k(-LN2_HI32), x);
        let r = _mm256_fmadd_ps(fl, k(-LN2_LO32), r);
        let p = poly(r, &EXP32);
        let r2 = _mm256_mul_ps(r, r);
        let y = _mm256_fmadd_ps(p, r2, r);
        let y = _mm256_add_ps(y, k(1.0));
        if normal {
            _mm256_mul_ps(y, pow2(n))
        } else {
            let n1 = _mm256_srai_epi32::<1>(n);
            let n2 = _mm256_sub_epi32(n, n1);
            _mm256_mul_ps(_mm256_mul_ps(y, pow2(n1)), pow2(n2))
        }
    }

    /// `eˣ` (the clamps of `explog::exp`, then [`exp_core`]). The clamps are `max`/`min`
    /// with x second, which pass NaN on as the inline compare-and-select does. `NORMAL`: the
    /// caller knows every lane lies in [[`NORMAL_LO`], [`NORMAL_HI`]] (see [`exp_core`]).
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn exp8<const NORMAL: bool>(x: __m256) -> __m256 {
        let x = _mm256_max_ps(k(-104.0), x);
        let x = _mm256_min_ps(k(89.0), x);
        exp_core(x, NORMAL)
    }

    /// Horner evaluation of `coeffs` (highest degree first) at `x` in f64 lanes.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn poly64(x: __m256d, coeffs: &[f64]) -> __m256d {
        let mut acc = _mm256_set1_pd(coeffs[0]);
        for &c in &coeffs[1..] {
            acc = _mm256_fmadd_pd(acc, x, _mm256_set1_pd(c));
        }
        acc
    }

    /// `x·P(x²)/Q(x²)` of the f32 `tanh`, in four f64 lanes.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn tanh_rational(x: __m256d) -> __m256d {
        let t = _mm256_mul_pd(x, x);
        let p = poly64(t, &TANH32_P);
        let q = poly64(t, &TANH32_Q);
        _mm256_div_pd(_mm256_mul_pd(x, p), q)
    }

    /// `tanh x` (`explog::tanh` for f32): the clamp (`min`/`max` with x second pass NaN on,
    /// as the inline compare-and-select does), then the rational in two f64 halves.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn tanh8(x: __m256) -> __m256 {
        let x = _mm256_min_ps(k(TANH32_CLAMP), x);
        let x = _mm256_max_ps(k(-TANH32_CLAMP), x);
        let lo = tanh_rational(_mm256_cvtps_pd(_mm256_castps256_ps128(x)));
        let hi = tanh_rational(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)));
        _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi))
    }

    /// `1/(1 + e^{−x})` (`explog::logistic`); `NORMAL` as for [`exp8`], for −|x|.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn logistic8<const NORMAL: bool>(x: __m256) -> __m256 {
        let sign = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MIN));
        let nax = _mm256_or_ps(x, sign);
        let e = exp8::<NORMAL>(nax);
        let one = k(1.0);
        let d = _mm256_add_ps(one, e);
        let neg = _mm256_cmp_ps::<_CMP_LT_OQ>(x, _mm256_setzero_ps());
        let num = _mm256_blendv_ps(one, e, neg);
        _mm256_div_ps(num, d)
    }

    /// Whether all `n` values at `p` lie in [`lo`, `hi`] (false if one is NaN).
    ///
    /// # Safety
    /// `p` is valid for `n` reads; the host has AVX2.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn within(p: *const f32, n: usize, lo: f32, hi: f32) -> bool {
        // NaN lanes fail the ordered compares.
        let (vlo, vhi) = (_mm256_set1_ps(lo), _mm256_set1_ps(hi));
        let mut ok = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: i + 8 <= n.
            let x = unsafe { _mm256_loadu_ps(p.add(i)) };
            let inside = _mm256_and_ps(_mm256_cmp_ps::<_CMP_GE_OQ>(x, vlo), _mm256_cmp_ps::<_CMP_LE_OQ>(x, vhi));
            ok = _mm256_and_ps(ok, inside);
            i += 8;
        }
        // SAFETY: i < n for each tail element read.
        _mm256_movemask_ps(ok) == 0xff && (i..n).all(|j| (lo..=hi).contains(&unsafe { *p.add(j) }))
    }

    /// Defines `unsafe extern "C" fn $name(p: *mut f32, n: usize)`: `$f` on the `n` values at
    /// `p`, in place, 8 lanes at a time and the tail through a zero-padded copy.
    macro_rules! tile {
        ($name:ident, $f:expr, $what:literal) => {
            #[doc = concat!("`", $what, "` on `n` values at `p`, in place.")]
            ///
            /// # Safety
            /// `p` is valid for `n` reads and writes; the host has AVX2 and FMA.
            #[target_feature(enable = "avx2,fma")]
            pub(super) unsafe extern "C" fn $name(p: *mut f32, n: usize) {
                let mut i = 0;
                // Two independent vectors an iteration: their dependency chains interleave.
                while i + 16 <= n {
                    // SAFETY: i + 16 <= n.
                    unsafe {
                        let x0 = _mm256_loadu_ps(p.add(i));
                        let x1 = _mm256_loadu_ps(p.add(i + 8));
                        let (y0, y1) = ($f(x0), $f(x1));
                        _mm256_storeu_ps(p.add(i), y0);
                        _mm256_storeu_ps(p.add(i + 8), y1);
                    }
                    i += 16;
                }
                while i + 8 <= n {
                    // SAFETY: i + 8 <= n.
                    unsafe {
                        let x = _mm256_loadu_ps(p.add(i));
                        _mm256_storeu_ps(p.add(i), $f(x));
                    }
                    i += 8;
                }
                if i < n {
                    let mut buf = [0f32; 8];
                    // SAFETY: the n - i < 8 values from i are in bounds and fit the buffer.
                    unsafe {
                        std::ptr::copy_nonoverlapping(p.add(i), buf.as_mut_ptr(), n - i);
                        let y = $f(_mm256_loadu_ps(buf.as_ptr()));
                        _mm256_storeu_ps(buf.as_mut_ptr(), y);
                        std::ptr::copy_nonoverlapping(buf.as_ptr(), p.add(i), n - i);
                    }
                }
            }
        };
    }

    /// `f32(f16(x))`: F16C's conversions, round to nearest even.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    fn round_f16_8(x: __m256) -> __m256 {
        _mm256_cvtph_ps(_mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(x))
    }

    /// `f32(f16(x))` on `n` values at `p`, in place (8 lanes at a time, the tail through a
    /// zero-padded copy).
    ///
    /// # Safety
    /// `p` is valid for `n` reads and writes; the host has AVX2, FMA and F16C.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(super) unsafe extern "C" fn round_f16_tile(p: *mut f32, n: usize) {
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: i + 8 <= n.
            unsafe { _mm256_storeu_ps(p.add(i), round_f16_8(_mm256_loadu_ps(p.add(i)))) };
            i += 8;
        }
        if i < n {
            let mut buf = [0f32; 8];
            // SAFETY: the n - i < 8 values from i are in bounds and fit the buffer.
            unsafe {
                std::ptr::copy_nonoverlapping(p.add(i), buf.as_mut_ptr(), n - i);
                _mm256_storeu_ps(buf.as_mut_ptr(), round_f16_8(_mm256_loadu_ps(buf.as_ptr())));
                std::ptr::copy_nonoverlapping(buf.as_ptr(), p.add(i), n - i);
            }
        }
    }

    tile!(exp_tile_normal, exp8::<true>, "eˣ for x in [NORMAL_LO, NORMAL_HI]");
    tile!(exp_tile_any, exp8::<false>, "eˣ");
    tile!(tanh_tile, tanh8, "tanh x");
    tile!(logistic_tile_normal, logistic8::<true>, "1/(1 + e^{−x}) for |x| ≤ −NORMAL_LO");
    tile!(logistic_tile_any, logistic8::<false>, "1/(1 + e^{−x})");

    /// `eˣ` on `n` values at `p`, in place: a first pass checks whether every value lies
    /// where eˣ is scaled by a normal 2ⁿ in one step, which saves the two-step scaling of
    /// gradual underflow (the same bits: a multiplication by a power of two rounds only
    /// where the result is subnormal, once, either way).
    ///
    /// # Safety
    /// `p` is valid for `n` reads and writes; the host has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe extern "C" fn exp_tile(p: *mut f32, n: usize) {
        // SAFETY: as this function's contract.
        unsafe { if within(p, n, NORMAL_LO, NORMAL_HI) { exp_tile_normal(p, n) } else { exp_tile_any(p, n) } }
    }

    /// `1/(1 + e^{−x})` on `n` values at `p`, in place, with the check of [`exp_tile`] on −|x|.
    ///
    /// # Safety
    /// `p` is valid for `n` reads and writes; the host has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe extern "C" fn logistic_tile(p: *mut f32, n: usize) {
        // SAFETY: as this function's contract.
        unsafe {
            if within(p, n, NORMAL_LO, -NORMAL_LO) { logistic_tile_normal(p, n) } else { logistic_tile_any(p, n) }
        }
    }
}
