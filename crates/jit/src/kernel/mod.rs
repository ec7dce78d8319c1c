//! The kernel compiler: lowers one kernel Func (a `[kind="fusion"]` Func obeying the kernel
//! contract of the fusion pass) to one Cranelift function with a loop nest over its output.
//!
//! Design (XLA's elemental emitter, "compute at index"): the kernel's loop nest runs over its
//! *loop shape*; each result is generated at the loop's multi-index, and every value is
//! computed at an index derived from it through the views ([`index`]): broadcast drops or
//! zeroes axes, transpose permutes, reshape linearises and delinearises with constant
//! div/mod, slice is `start + i*stride`, rev `size-1-i`, pad an in-range test and a select
//! of the pad value, concatenate a branch-free choice among the operands by index range,
//! iota the index itself, dynamic_slice a clamped start plus `i`, gather a loaded and
//! clamped index. Values are memoised per (value, index) within one loop body, so a shared
//! subexpression is computed once. Every index that reaches a load is in bounds by
//! construction (out-of-range choices are clamped before they are selected away), so a
//! kernel never reads outside its buffers.
//!
//! Loop shapes ([`plan`]): without a reduction, the common shape L of the results; with one
//! reduction of input shape S_in, the kept axes (outer loops) then the reduced axes (inner
//! loops, in increasing axis order). Results of shape S_in are written inside the inner
//! loop (multi-output); the reduction's epilogue (values depending on its result) runs once
//! per S_out element after its inner loop. The outermost loop runs `[start, end)` of its
//! extent (clamped to it), so threads can split a kernel without recompiling; a kernel with
//! rank-0 loop shape, or a full reduction, has an outer extent of 1 (but a large vectorised full
//! reduction is cut into fixed chunks, reduced in two phases: [`chunked`]). A `reduce_*` that keeps the
//! innermost axis and is returned as is loops over S_in in natural order instead, accumulating
//! into its result buffer ([`outer`]: contiguous and vectorised, a left fold per element).
//!
//! Exactness ([`ops`]): integer, bool, comparison, select, convert, structural and
//! data-movement work matches the reference interpreter bit for bit, and so do the
//! correctly rounded float operations (add, sub, mul, div, sqrt, rsqrt = 1/sqrt, floor,
//! ceil, round-half-even, max/min with NaN propagation and ±0 ordering). Reductions follow
//! the interpreter's blocked pairwise order (`ferrax_ir::prim::sum_order`, [`ordered`]):
//! the vector reduction loop (inner-axis `reduce_*` with `KernelOptions::simd`, four
//! vector accumulators per block of 1024, blocks and outer reduced axes combined
//! pairwise), the scalar loop (the same slots in scalar accumulators) and the chunked
//! full reduction ([`chunked`]) give the interpreter's bits for float sums and products
//! too, with its error bound `γ_d·Σ|x_i|`, `d <= 72 + ⌈log2⌈n/1024⌉⌉` for an f32 row of
//! `n`. The one exception is the outer-axis path ([`outer`], with SIMD): a left fold per
//! output element, within `(γ_{n-1} + γ_d)·Σ|x_i|` of the interpreter. i32 and
//! max/min results are exact on every path (a NaN may carry another payload).
//! With `KernelOptions::fma` on (and an FMA
//! host), `a*b ± c` where the product has one use is contracted to one `fma` in scalar and
//! vector code alike: that result differs from the interpreter's by at most 0.5 ulp of the
//! product plus 0.5 ulp of the result (it is the more accurate
//! one). Transcendentals are the vectorised polynomial kernels of `math` (ulp bounds in its
//! docs: at most 1–3 ulp in f32), or, with `KernelOptions::precise_math`, per-element calls
//! of the same Rust std/libm functions the interpreter uses (bit-identical; see [`libcalls`]).
//! Denormals are not flushed (no MXCSR change).
//!
//! SIMD: see [`vector`]: when every value on the way from the loads to the results is read
//! contiguously along the innermost loop axis (elementwise work, broadcasts) or does not
//! depend on it (computed once in scalar code and splat), and no bool is loaded or stored
//! (bools computed in the loop are lane masks: [`mask`]), the innermost loop runs F32X4 / F64X2 / I32X4 vectors with a scalar tail; other kernels
//! (transposed or strided reads, gathers, interior pads...) keep the scalar loop; slices and
//! pads along the innermost axis are shifted vector reads, with a scalar head and tail
//! outside a pad's interior. Cranelift
//! on x64 lowers only 128-bit vectors, so that is the widest
//! width on every host; without SSE4.1 or FMA the same code lowers to SSE2 sequences or
//! libcalls. On AVX2 + FMA hosts the f32 `exp`/`tanh`/`logistic` of a vector loop run at full
//! width through precompiled Rust tile routines, called once per 512-element tile on a stack
//! scratch tile ([`tile`]): same bits as the inline code, about 1.7x faster per value.
//!
//! `KernelOptions::dump` returns the Cranelift IR and the disassembly of the kernel.

mod analysis;
mod carry;
mod chunked;
pub(crate) mod half;
pub(crate) mod libcalls;
mod lower;
mod mask;
mod ops;
mod ordered;
pub(crate) mod outer;
mod scalar;
mod shape;
mod tile;
mod vector;

use cranelift_codegen::Context;
use cranelift_codegen::ir::{AbiParam, types};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage, Module as _};
use ferrax_ir::{Error, Func, Module, Place, Prim};

/// The size, in 8-byte elements, of the scratch buffer of partials of a chunked kernel.
pub(crate) const MAX_PARTIALS: usize = chunked::MAX_CHUNKS;

/// The ABI of a compiled kernel: `bufs` holds the kernel's parameters then its results, in
/// order; the kernel runs the slice `[start, end)` of its outermost loop.
pub(crate) type KernelFn = unsafe extern "C" fn(bufs: *const *mut u8, start: i64, end: i64);

/// How to compile a kernel.
#[derive(Clone, Debug)]
pub(crate) struct KernelOptions {
    /// Contract `a*b + c` (single-use product) into `fma` on hosts with FMA.
    pub fma: bool,
    /// Use vector instructions where the kernel allows it.
    pub simd: bool,
    /// Return the Cranelift IR and disassembly in [`KernelInfo::dump`].
    pub dump: bool,
    /// Transcendentals as calls of the interpreter's own functions (bit-identical to it, one
    /// call per element) instead of the vectorised polynomial kernels of `math`.
    pub precise_math: bool,
    /// Stage f32 `exp`/`tanh`/`logistic` of vector loops through the AVX2 tile routines of
    /// `math::tile` where the host has them ([`tile`]; same bits as the inline code).
    pub tiles: bool,
}

impl Default for KernelOptions {
    fn default() -> Self {
        KernelOptions { fma: true, simd: true, dump: false, precise_math: false, tiles: true }
    }
}

/// What the caller needs to know about a compiled kernel.
#[derive(Clone, Debug)]
pub(crate) struct KernelInfo {
    /// The extent of the outermost loop: valid calls use `0 <= start <= end <= outer`.
    pub outer: i64,
    /// A cost estimate of one outer iteration (elements times operations), for splitting.
    pub work_per_outer: f64,
    /// The partial results of a two-stage full reduction ([`chunked`]), 0 for a one-phase
    /// kernel. When non-zero, the kernel takes one more buffer after its results, a scratch
    /// array of at least [`MAX_PARTIALS`] 8-byte elements, and the caller runs
    /// `f(bufs, -1, -1)` after the outer loop `[0, outer)` (one chunk per iteration) to
    /// combine the partials and store the epilogue.
    pub partials: usize,
    /// The CLIF text and disassembly, when `KernelOptions::dump` was set.
    pub dump: Option<String>,
}

/// Reusable Cranelift contexts (one per compiling thread).
pub(crate) struct KernelCompiler {
    ctx: Context,
    fbc: FunctionBuilderContext,
}

impl KernelCompiler {
    /// Fresh contexts.
    pub(crate) fn new() -> Self {
        KernelCompiler { ctx: Context::new(), fbc: FunctionBuilderContext::new() }
    }
}

impl Default for KernelCompiler {
    fn default() -> Self {
        KernelCompiler::new()
    }
}

/// An error about kernel `func`, optionally at one equation.
pub(crate) fn kernel_error(func: &Func, eqn: Option<usize>, message: impl Into<String>) -> Error {
    let prim = eqn.and_then(|i| func.eqns.get(i)).map(|e| e.prim.name().to_string());
    Error::eval(Place { func: func.name.clone(), eqn, prim }, format!("jit kernel: {}", message.into()))
}

/// Declares and defines `kernel` (a Func of `module` obeying the kernel contract) in `jit`
/// under `symbol`; the caller finalizes. The returned info holds the outer loop extent and,
/// when `opts.dump`, the CLIF text and disassembly.
pub(crate) fn define_kernel(
    jit: &mut JITModule,
    cc: &mut KernelCompiler,
    module: &Module,
    kernel: &Func,
    symbol: &str,
    opts: &KernelOptions,
) -> Result<(FuncId, KernelInfo), Error> {
    let _ = module; // Kernels call no other Func: everything they need is in `kernel`.
    let plan = analysis::Plan::new(kernel)?;
    let ptr = jit.isa().pointer_type();
    if ptr != types::I64 {
        return Err(kernel_error(kernel, None, "the JIT needs a 64-bit target"));
    }
    jit.clear_context(&mut cc.ctx);
    let sig = &mut cc.ctx.func.signature;
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    let id = jit
        .declare_function(symbol, Linkage::Export, &cc.ctx.func.signature)
        .map_err(|e| kernel_error(kernel, None, format!("declaring {symbol}: {e}")))?;
    let chunks = lower::build(jit, &mut cc.ctx, &mut cc.fbc, kernel, &plan, opts)?;
    let clif = opts.dump.then(|| cc.ctx.func.display().to_string());
    cc.ctx.set_disasm(opts.dump);
    jit.define_function(id, &mut cc.ctx)
        .map_err(|e| kernel_error(kernel, None, format!("compiling {symbol}: {e:?}")))?;
    let dump = clif.map(|clif| {
        let asm = cc.ctx.compiled_code().and_then(|c| c.vcode.clone()).unwrap_or_default();
        format!("; kernel {symbol}: Cranelift IR\n{clif}\n; disassembly\n{asm}")
    });
    jit.clear_context(&mut cc.ctx);
    let (outer, work_per_outer) = if let Some(ch) = chunks {
        let total = plan.work_per_outer(kernel) * plan.outer_extent() as f64;
        (ch.count, total / ch.count as f64)
    } else if outer::applies(kernel, &plan, opts.simd) {
        let outer = outer::outer_extent(&plan);
        let total = plan.work_per_outer(kernel) * plan.outer_extent() as f64;
        (outer, total / outer.max(1) as f64)
    } else {
        (plan.outer_extent(), plan.work_per_outer(kernel))
    };
    let partials = chunks.map_or(0, |ch| ch.count as usize);
    let info = KernelInfo { outer, work_per_outer, partials, dump };
    Ok((id, info))
}

/// Whether `prim` may appear inside a kernel (the kernel-able set of the contract).
pub(crate) fn is_kernel_prim(prim: &Prim) -> bool {
    // One definition of the contract's kernel-able set: the fusion pass's.
    ferrax_fuse::is_kernel_prim(prim)
}

#[cfg(test)]
mod tests;
