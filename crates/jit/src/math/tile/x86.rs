//! The two x86-64 widths of [`Lanes`]: 8 f32 lanes in AVX2 + FMA registers and 16 in
//! AVX-512F registers, and the `extern "C"` entry points the JIT calls, each the generic
//! routine of `lanes` compiled inside a `#[target_feature]` function of its width.
//!
//! The methods call the intrinsics from functions without target features (hence the
//! `unsafe` blocks); they are `#[inline(always)]` and only ever inlined into the entry
//! points below, which enable the features the intrinsics need.

use super::lanes::{self, Lanes};
use std::arch::x86_64::*;

/// 8 f32 lanes (AVX2 + FMA).
#[derive(Clone, Copy)]
pub(super) struct Avx2(__m256);

/// 16 f32 lanes (AVX-512F).
#[derive(Clone, Copy)]
pub(super) struct Avx512(__m512);

// SAFETY (every `unsafe` block of the impls below): the intrinsic is an instruction of the
// width's feature set, and these methods run only inlined into the entry points of this
// module, which enable that set and which callers invoke only on hosts that have it.

/// The methods of [`Lanes`] that are one intrinsic on `self` and `b` (or on two i32
/// vectors), wrapped: `binary!(Wrapper; method => intrinsic, ...; imethod => intrinsic, ...)`.
macro_rules! binary {
    ($w:ident; $($name:ident => $f:ident),*; $($iname:ident => $if:ident),*) => {
        $(
            #[inline(always)]
            fn $name(self, b: Self) -> Self {
                $w(unsafe { $f(self.0, b.0) })
            }
        )*
        $(
            #[inline(always)]
            fn $iname(a: Self::I, b: Self::I) -> Self::I {
                unsafe { $if(a, b) }
            }
        )*
    };
}

impl Lanes for Avx2 {
    const N: usize = 8;
    type I = __m256i;
    binary!(Avx2; add => _mm256_add_ps, sub => _mm256_sub_ps, mul => _mm256_mul_ps, div => _mm256_div_ps,
        max => _mm256_max_ps, min => _mm256_min_ps; iadd => _mm256_add_epi32, isub => _mm256_sub_epi32);
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        Avx2(unsafe { _mm256_loadu_ps(p) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        unsafe { _mm256_storeu_ps(p, self.0) }
    }
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Avx2(unsafe { _mm256_set1_ps(v) })
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        Avx2(unsafe { _mm256_fmadd_ps(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        Avx2(unsafe { _mm256_and_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn or(self, b: Self) -> Self {
        Avx2(unsafe { _mm256_or_ps(self.0, b.0) })
    }
    #[inline(always)]
    fn where_less(self, b: Self, if_less: Self, other: Self) -> Self {
        Avx2(unsafe {
            let less = _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, b.0);
            _mm256_blendv_ps(other.0, if_less.0, less)
        })
    }
    #[inline(always)]
    fn all_within(self, lo: Self, hi: Self) -> bool {
        unsafe {
            let ge = _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, lo.0);
            let le = _mm256_cmp_ps::<_CMP_LE_OQ>(self.0, hi.0);
            _mm256_movemask_ps(_mm256_and_ps(ge, le)) == 0xff
        }
    }
    #[inline(always)]
    fn bits(self) -> __m256i {
        unsafe { _mm256_castps_si256(self.0) }
    }
    #[inline(always)]
    fn from_bits(i: __m256i) -> Self {
        Avx2(unsafe { _mm256_castsi256_ps(i) })
    }
    #[inline(always)]
    fn isplat(v: i32) -> __m256i {
        unsafe { _mm256_set1_epi32(v) }
    }
    #[inline(always)]
    fn shl23(a: __m256i) -> __m256i {
        unsafe { _mm256_slli_epi32::<23>(a) }
    }
    #[inline(always)]
    fn sra1(a: __m256i) -> __m256i {
        unsafe { _mm256_srai_epi32::<1>(a) }
    }
}

impl Lanes for Avx512 {
    const N: usize = 16;
    type I = __m512i;
    binary!(Avx512; add => _mm512_add_ps, sub => _mm512_sub_ps, mul => _mm512_mul_ps, div => _mm512_div_ps,
        max => _mm512_max_ps, min => _mm512_min_ps; iadd => _mm512_add_epi32, isub => _mm512_sub_epi32);
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        Avx512(unsafe { _mm512_loadu_ps(p) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        unsafe { _mm512_storeu_ps(p, self.0) }
    }
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Avx512(unsafe { _mm512_set1_ps(v) })
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        Avx512(unsafe { _mm512_fmadd_ps(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        let (a, b) = (self.bits(), b.bits());
        Avx512::from_bits(unsafe { _mm512_and_si512(a, b) })
    }
    #[inline(always)]
    fn or(self, b: Self) -> Self {
        let (a, b) = (self.bits(), b.bits());
        Avx512::from_bits(unsafe { _mm512_or_si512(a, b) })
    }
    #[inline(always)]
    fn where_less(self, b: Self, if_less: Self, other: Self) -> Self {
        Avx512(unsafe {
            let less = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, b.0);
            _mm512_mask_blend_ps(less, other.0, if_less.0)
        })
    }
    #[inline(always)]
    fn all_within(self, lo: Self, hi: Self) -> bool {
        unsafe {
            let ge = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(self.0, lo.0);
            let le = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(self.0, hi.0);
            ge & le == 0xffff
        }
    }
    #[inline(always)]
    fn bits(self) -> __m512i {
        unsafe { _mm512_castps_si512(self.0) }
    }
    #[inline(always)]
    fn from_bits(i: __m512i) -> Self {
        Avx512(unsafe { _mm512_castsi512_ps(i) })
    }
    #[inline(always)]
    fn isplat(v: i32) -> __m512i {
        unsafe { _mm512_set1_epi32(v) }
    }
    #[inline(always)]
    fn shl23(a: __m512i) -> __m512i {
        unsafe { _mm512_slli_epi32::<23>(a) }
    }
    #[inline(always)]
    fn sra1(a: __m512i) -> __m512i {
        unsafe { _mm512_srai_epi32::<1>(a) }
    }
}

/// Defines `unsafe extern "C" fn $name(p: *mut f32, n: usize)`: the generic routine `$f` at
/// the width `$l`, compiled with `$features`.
macro_rules! entry {
    ($name:ident, $f:ident, $l:ty, $features:literal) => {
        #[doc = concat!("`lanes::", stringify!($f), "` in ", stringify!($l), " vectors.")]
        ///
        /// # Safety
        /// `p` is valid for `n` reads and writes; the host has the features enabled here.
        #[target_feature(enable = $features)]
        pub(super) unsafe extern "C" fn $name(p: *mut f32, n: usize) {
            // SAFETY: as this function's contract.
            unsafe { lanes::$f::<$l>(p, n) }
        }
    };
}

entry!(exp_avx2, exp_tile, Avx2, "avx2,fma");
entry!(tanh_avx2, tanh_tile, Avx2, "avx2,fma");
entry!(logistic_avx2, logistic_tile, Avx2, "avx2,fma");
entry!(exp_avx512, exp_tile, Avx512, "avx512f,avx2,fma");
entry!(tanh_avx512, tanh_tile, Avx512, "avx512f,avx2,fma");
entry!(logistic_avx512, logistic_tile, Avx512, "avx512f,avx2,fma");

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
