//! Transcendental functions emitted as Cranelift IR: branch-free polynomial kernels that run on scalars (`F32`,
//! `F64`) and 128-bit vectors (`F32X4`, `F64X2`) alike, for the kernel lowering to call on any elementwise value.
//!
//! The lineage is Cephes → Eigen → XLA (range reduction, a short polynomial, special values by compare + select);
//! the coefficients are this crate's own near-minimax fits. `sqrt` is not here: it is one instruction. Every kernel
//! uses `fma` when [`MathCtx::has_fma`] says the host has it, and a separate multiply and add otherwise (Cranelift
//! would otherwise call `fmaf` per lane); both paths are tested.
//!
//! # Exactness policy
//!
//! * Denormals are **not** flushed: subnormal inputs are handled (`log` rescales them, odd functions return them
//!   unchanged) and results underflow gradually (`exp` scales by 2^n in two steps, so a subnormal result is rounded
//!   once).
//! * inf, −inf, NaN, ±0 and the overflow/underflow thresholds give the IEEE/C99 answers; NaN in gives NaN out
//!   (except `pow(x, ±0) = pow(1, y) = 1`, as in C99).
//! * Each function stays within the ulp bound below, measured against the `libm` crate (for f32 the `f64` libm
//!   function rounded to f32, so the figure includes up to ½ ulp of that rounding) over a sweep of every exponent
//!   (2^18 bit patterns; 2^17 random pairs for two arguments), a dense sweep of the interesting range (2^17
//!   points), and the edge values (±0, ±inf, NaN, subnormals, largest/smallest normals, overflow and underflow
//!   thresholds); ulps are counted across zero on the ordered integer line, and zeros must have libm's sign. The
//!   tests (`tests/accuracy.rs`) assert these bounds on scalar and vector code, with and without fma. A one-off
//!   sweep 64× denser (2^24 bit patterns, 2^22 pairs) found the same maxima except `cos` (1 → 2 ulp).
//!
//! | function | dtype | how | domain of the dense sweep | measured max ulp | asserted bound |
//! |---|---|---|---|---|---|
//! | `exp` | f32 | poly deg 5, Cody-Waite | [−105, 90] (dense), all exponents | 1 | 1 |
//! | `log` | f32 | Cephes form, deg 8 | [−1, 10], all exponents incl. subnormals | 1 | 1 |
//! | `log1p` | f32 | Kahan on `log` | [−1, 10] | 2 | 2 |
//! | `expm1` | f32 | Kahan on `exp`, `log` | [−20, 20] | 2 | 2 |
//! | `tanh` | f32 | poly deg 5 in x² / `1 − 2/(e^{2|x|}+1)` | [−10, 10] | 1 | 1 |
//! | `logistic` | f32 | via `exp`, one division | [−110, 40] | 2 | 2 |
//! | `sin` | f32 | f64 reduction, f32 poly | [−50, 50] and [−1.1e6, 1.1e6] | 2 | 2 |
//! | `cos` | f32 | f64 reduction, f32 poly | [−50, 50] and [−1.1e6, 1.1e6] | 2 | 2 |
//! | `tan` | f32 | f64 reduction, f32 poly | [−50, 50] and [−1.1e6, 1.1e6] | 2 | 2 |
//! | `erf` | f32 | poly deg 6 / `1 − e^{−x²}·R` | [−6, 6] | 2 | 2 |
//! | `pow` | f32 | `exp(y·ln x)` in f64 | x ∈ [0, 4] × y ∈ [−60, 60]; x < 0 with integer y; random bits | 1 | 1 |
//! | `atan2` | f32 | Cephes reduction, deg 5 | [−10, 10]²; random bits | 3 | 3 |
//! | `fmod` | f32 | libm `fmodf` per lane | [−10, 10]²; random bits | 0 | 0 |
//! | `exp` | f64 | poly deg 10, Cody-Waite | [−750, 712] | 1 | 1 |
//! | `log` | f64 | `s = f/(2+f)`, deg 8 in s² | [−1, 10] | 1 | 1 |
//! | `log1p` | f64 | Kahan on `log` | [−1, 10] | 2 | 2 |
//! | `expm1` | f64 | Kahan on `exp`, `log` | [−20, 20] | 2 | 2 |
//! | `tanh` | f64 | odd poly deg 12 / via `exp` | [−6, 6] | 2 | 2 |
//! | `logistic` | f64 | via `exp` (reference: the same formula on libm `exp`) | [−110, 40] | 2 | 2 |
//! | `sin` `cos` `tan` `erf` `pow` `atan2` `fmod` | f64 | libm per lane | as f32 | 0 | 0 |
//!
//! `sin`/`cos`/`tan` (f32) call libm per lane in a cold block when some lane has |x| ≥ 2^20 (or is infinite).
//! The f64 functions without a polynomial (`sin`, `cos`, `tan`, `erf`, `pow`, `atan2`) call libm per lane through
//! the runtime functions of [`symbols`] (extract lane, call, insert): exact to libm's accuracy, but a call per lane
//! clobbers every vector register. `Fmod` (float `rem`) is always `fmodf`/`fmod` per lane: exact.
//!
//! # Cost
//!
//! Release, 1M f32 elements, `out[i] = f(a[i])`, on a loaded 2-vCPU host (where libm's `expf` in a Rust loop
//! takes 7.2 ns/elem), ns/elem, scalar+fma / F32X4 / F32X4+fma: exp 4.7 / 1.9 / 1.3, log 7.4 / 3.0 / 2.6,
//! sin 5.5 / 2.7 / 2.3, logistic 7.3 / 2.3 / 2.0, erf 12.0 / 5.4 / 3.5. Constants come from
//! [`MathCtx::float`]: the kernel lowering decides whether they are splats or loads from a constant table
//! (tables measured faster: hoisted splats spill).
//!
//! [`tile`] has the f32 `exp`, `tanh` and `logistic` again as precompiled Rust in 256-bit
//! AVX2 + FMA and 512-bit AVX-512 vectors, the same operations lane by lane (same bits), for
//! kernels to call per tile: Cranelift emits at most 128-bit vectors. The f32 `tanh` is
//! evaluated in f32 lanes because a rational in f64 lanes (accurate to the same 1 ulp) is held to
//! the f64 divider's rate: measured on a 2-vCPU AVX-512 host, W3's forward pass takes 0.86x of the
//! f64 rational's time with it (2.10 against 2.45 ms, n = 4·10⁶; its gradient 0.89x).
//!
//! The f32 `tanh`'s polynomial is made by `crates/jit/fits/tanh32.py` (numpy + mpmath,
//! not needed to build or test): the script is the record of how the constants were made.

mod explog;
mod ops;
mod pow;
#[cfg(test)]
mod tests;
pub(crate) mod tile;
mod trig;

use cranelift_codegen::ir::{FuncRef, Signature, Value, types};
use cranelift_frontend::FunctionBuilder;

use ops::Em;
use trig::Trig;

/// A function the math emitters provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum MathFn {
    /// `eˣ`.
    Exp,
    /// `ln x`.
    Log,
    /// `ln(1 + x)`.
    Log1p,
    /// `eˣ − 1`.
    Expm1,
    /// `tanh x`.
    Tanh,
    /// `1/(1 + e^{−x})`.
    Logistic,
    /// `sin x`.
    Sin,
    /// `cos x`.
    Cos,
    /// `tan x`.
    Tan,
    /// The error function.
    Erf,
    /// `x^y` (arguments `[x, y]`).
    Pow,
    /// `atan2(y, x)` (arguments `[y, x]`, as C's `atan2`).
    Atan2,
    /// The float remainder `x − trunc(x/y)·y` (arguments `[x, y]`), exact.
    Fmod,
}

impl MathFn {
    /// How many arguments [`emit`] takes for this function.
    pub(crate) fn arity(self) -> usize {
        match self {
            MathFn::Pow | MathFn::Atan2 | MathFn::Fmod => 2,
            MathFn::Exp
            | MathFn::Log
            | MathFn::Log1p
            | MathFn::Expm1
            | MathFn::Tanh
            | MathFn::Logistic
            | MathFn::Sin
            | MathFn::Cos
            | MathFn::Tan
            | MathFn::Erf => 1,
        }
    }
}

/// What the math emitters need from the kernel being built.
pub(crate) trait MathCtx {
    /// A float constant of type `ty` (F32, F64, F32X4 or F64X2: splat for vectors).
    fn float(&mut self, fb: &mut FunctionBuilder, ty: types::Type, value: f64) -> Value;
    /// A callable reference to a runtime function registered by `math::symbols()`.
    fn import(&mut self, fb: &mut FunctionBuilder, name: &str, sig: Signature) -> FuncRef;
    /// Whether the host has FMA (then emit `fma`), and SSE4.1 (`floor`/`nearest` instructions).
    fn has_fma(&self) -> bool;
    /// Whether the host has SSE4.1. The kernels round with the add-a-magic-constant trick and do not need it.
    #[allow(dead_code, reason = "part of the interface; the kernels round without SSE4.1")]
    fn has_sse41(&self) -> bool;
}

/// Emits `f(args)` on values of type `ty` (F32, F64, F32X4, F64X2); returns the result (same type).
///
/// `args.len()` must be [`MathFn::arity`]. The builder may be left in a new block (`sin`/`cos`/`tan` branch to a
/// cold block for huge arguments): callers continue emitting at the builder's current position.
pub(crate) fn emit(
    fb: &mut FunctionBuilder,
    cx: &mut dyn MathCtx,
    f: MathFn,
    args: &[Value],
    ty: types::Type,
) -> Value {
    debug_assert_eq!(args.len(), f.arity(), "math::emit: {f:?} takes {} arguments", f.arity());
    let mut em = Em { fb, cx, ty };
    let is64 = ty.lane_type() == types::F64;
    let x = args[0];
    match f {
        MathFn::Exp => explog::exp(&mut em, x),
        MathFn::Log => explog::log(&mut em, x),
        MathFn::Log1p => explog::log1p(&mut em, x),
        MathFn::Expm1 => explog::expm1(&mut em, x),
        MathFn::Tanh => explog::tanh(&mut em, x),
        MathFn::Logistic => explog::logistic(&mut em, x),
        MathFn::Sin if is64 => em.call_lanes("ferrax_math_sin", args),
        MathFn::Cos if is64 => em.call_lanes("ferrax_math_cos", args),
        MathFn::Tan if is64 => em.call_lanes("ferrax_math_tan", args),
        MathFn::Erf if is64 => em.call_lanes("ferrax_math_erf", args),
        MathFn::Pow if is64 => em.call_lanes("ferrax_math_pow", args),
        MathFn::Atan2 if is64 => em.call_lanes("ferrax_math_atan2", args),
        MathFn::Fmod if is64 => em.call_lanes("ferrax_math_fmod", args),
        MathFn::Sin => trig::trig(&mut em, x, Trig::Sin),
        MathFn::Cos => trig::trig(&mut em, x, Trig::Cos),
        MathFn::Tan => trig::trig(&mut em, x, Trig::Tan),
        MathFn::Erf => trig::erf(&mut em, x),
        MathFn::Pow => pow::pow(&mut em, x, args[1]),
        MathFn::Atan2 => trig::atan2(&mut em, x, args[1]),
        MathFn::Fmod => em.call_lanes("ferrax_math_fmodf", args),
    }
}

// The runtime functions: libm behind the C ABI (libm never panics, so nothing unwinds into JIT frames).
extern "C" fn rt_sin(x: f64) -> f64 {
    libm::sin(x)
}
extern "C" fn rt_cos(x: f64) -> f64 {
    libm::cos(x)
}
extern "C" fn rt_tan(x: f64) -> f64 {
    libm::tan(x)
}
extern "C" fn rt_erf(x: f64) -> f64 {
    libm::erf(x)
}
extern "C" fn rt_pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}
extern "C" fn rt_atan2(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}
extern "C" fn rt_fmod(x: f64, y: f64) -> f64 {
    libm::fmod(x, y)
}
extern "C" fn rt_fmodf(x: f32, y: f32) -> f32 {
    libm::fmodf(x, y)
}
extern "C" fn rt_sinf(x: f32) -> f32 {
    libm::sinf(x)
}
extern "C" fn rt_cosf(x: f32) -> f32 {
    libm::cosf(x)
}
extern "C" fn rt_tanf(x: f32) -> f32 {
    libm::tanf(x)
}

/// Runtime functions emitted code may call (name, address), registered on every JITBuilder.
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    let f64_1: [(&'static str, extern "C" fn(f64) -> f64); 4] = [
        ("ferrax_math_sin", rt_sin),
        ("ferrax_math_cos", rt_cos),
        ("ferrax_math_tan", rt_tan),
        ("ferrax_math_erf", rt_erf),
    ];
    let f64_2: [(&'static str, extern "C" fn(f64, f64) -> f64); 3] =
        [("ferrax_math_pow", rt_pow), ("ferrax_math_atan2", rt_atan2), ("ferrax_math_fmod", rt_fmod)];
    let f32_1: [(&'static str, extern "C" fn(f32) -> f32); 3] =
        [("ferrax_math_sinf", rt_sinf), ("ferrax_math_cosf", rt_cosf), ("ferrax_math_tanf", rt_tanf)];
    let mut v: Vec<(&'static str, *const u8)> = Vec::new();
    v.extend(f64_1.iter().map(|&(n, f)| (n, f as *const u8)));
    v.extend(f64_2.iter().map(|&(n, f)| (n, f as *const u8)));
    v.extend(f32_1.iter().map(|&(n, f)| (n, f as *const u8)));
    v.push(("ferrax_math_fmodf", rt_fmodf as extern "C" fn(f32, f32) -> f32 as *const u8));
    v
}
