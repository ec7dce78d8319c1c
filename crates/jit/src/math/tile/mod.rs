//! Tile routines: `exp`, `tanh` and `logistic` on f32 slices, precompiled Rust for kernels
//! to call once per L1-sized tile in the host's widest vectors (Cranelift
//! emits at most 128-bit vectors on x64, so the expensive math would otherwise run at a
//! quarter or half of the width the host has). `lanes` writes each routine once over a
//! vector of f32 lanes; `x86` compiles it at 512 bits (AVX-512F) and at 256 bits (AVX2 +
//! FMA), and [`symbols`] registers the width that `crate::isa::selected` picks (the host's,
//! or less under `FERRAX_MAX_ISA`).
//!
//! Each routine performs, lane by lane, exactly the operations of the kernel that
//! [`super::explog`] emits with FMA (same constants, rounded to f32; same order; one fused
//! multiply-add where that one has one), so a value computed here has the same bits as the kernel's inline code on an
//! FMA host (NaN payloads aside) at either width: a kernel may stage a value through a tile
//! routine or compute it inline without changing its results, and the ulp bounds of
//! [`super`] hold unchanged. [`available`] says whether the host can run them; on other
//! hosts (and other architectures) kernels keep the inline code.
//!
//! The routines work in place on `n` elements (`extern "C"`, registered as JIT symbols by
//! [`symbols`]); a tail shorter than a vector goes through a zero-padded copy. `exp` and
//! `logistic` first check the whole tile: when every value lies where eˣ's scale 2ⁿ is a
//! normal float (`exp`: x in [−87, 88]; `logistic`: |x| ≤ 87), they scale in one
//! multiplication instead of the two that gradual underflow needs (the same bits; about 15%
//! less time). `tanh` runs both of its branches in every lane (an odd polynomial, and
//! `1 − 2/(e^{2|x|} + 1)`) with one f32 division: on an AVX-512 host it takes about 0.6 of the
//! time of an equally accurate rational in f64 lanes, whose two f64 divisions per vector hold
//! it to the divider's rate (2 cycles per f64 lane at 256 and at 512 bits alike).
//!
//! One more routine rounds f32 values to f16 and widens them back (`vcvtps2ph` and
//! `vcvtph2ps`, F16C, 256 bits at every level): the rounding a 16-bit program makes after
//! each f16 result, which the JIT computes in f32. Round to nearest even, overflow to ±inf,
//! f16 subnormals kept (MXCSR's flush modes do not apply to these instructions): the bits
//! of the inline integer code of `kernel::half` except NaN payloads, which F16C keeps and
//! the inline code makes canonical (both give a quiet NaN of the same sign). It needs F16C
//! beside AVX2 and FMA ([`f16c_available`]); without, kernels keep the inline code.

#[cfg(target_arch = "x86_64")]
mod lanes;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::isa::{self, VectorIsa};

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

/// Whether this host runs the tile routines (x86-64 with AVX2 and FMA, not capped below).
pub(crate) fn available() -> bool {
    isa::selected() >= VectorIsa::Avx2
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

/// The routine computing `f` at the width `level`, if there is one (`RoundF16` is 256 bits
/// wide at every level and needs F16C).
fn routine(level: VectorIsa, f: TileFn) -> Option<unsafe extern "C" fn(*mut f32, usize)> {
    #[cfg(target_arch = "x86_64")]
    {
        let wide = level == VectorIsa::Avx512;
        match f {
            _ if level < VectorIsa::Avx2 || level > isa::host_isa() => None,
            TileFn::Exp => Some(if wide { x86::exp_avx512 } else { x86::exp_avx2 }),
            TileFn::Tanh => Some(if wide { x86::tanh_avx512 } else { x86::tanh_avx2 }),
            TileFn::Logistic => Some(if wide { x86::logistic_avx512 } else { x86::logistic_avx2 }),
            TileFn::RoundF16 => f16c_available().then_some(x86::round_f16_tile as _),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (level, f);
        None
    }
}

/// The routines to register on every `JITBuilder`, at the selected width (none where they
/// cannot run).
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    let level = isa::selected();
    [TileFn::Exp, TileFn::Tanh, TileFn::Logistic, TileFn::RoundF16]
        .into_iter()
        .filter_map(|f| routine(level, f).map(|r| (f.symbol(), r as *const u8)))
        .collect()
}

/// Runs `f` on `xs` in place with the tile routine of width `level` (for tests); false,
/// and `xs` unchanged, where the host has no such routine.
#[cfg(test)]
pub(crate) fn apply_at(level: VectorIsa, f: TileFn, xs: &mut [f32]) -> bool {
    let Some(r) = routine(level, f) else { return false };
    // SAFETY: `xs` is valid for `len` reads and writes; `routine` returns only routines whose
    // instructions the host has.
    unsafe { r(xs.as_mut_ptr(), xs.len()) };
    true
}

/// Runs `f` on `xs` in place with the selected tile routine (for tests; the host must be
/// [`available`]).
#[cfg(test)]
pub(crate) fn apply(f: TileFn, xs: &mut [f32]) {
    assert!(apply_at(isa::selected(), f, xs), "no tile routine for {f:?} on this host");
}
