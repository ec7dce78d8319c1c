//! Accuracy tests of the math kernels: a tiny JIT compiles `out[i] = f(a[i] [, b[i]])` over arrays for each value
//! type (scalar and vector) with and without fma, runs it over a sweep of every exponent, a dense sweep of each
//! function's interesting range and the edge values, and compares with the `libm` crate in ulps.

use cranelift_codegen::ir::{AbiParam, FuncRef, InstBuilder, MemFlagsData, Signature, Value, types};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};

use super::{MathCtx, MathFn, emit, symbols};

/// The compiled loop: `(a, b, out, n)`, `n` a multiple of the lane count.
type Kernel = unsafe extern "C" fn(*const u8, *const u8, *mut u8, i64);

struct Ctx<'m> {
    module: &'m mut JITModule,
    fma: bool,
}

impl MathCtx for Ctx<'_> {
    fn float(&mut self, fb: &mut FunctionBuilder, ty: types::Type, value: f64) -> Value {
        let lane = ty.lane_type();
        let s = if lane == types::F32 { fb.ins().f32const(value as f32) } else { fb.ins().f64const(value) };
        if ty.is_vector() { fb.ins().splat(ty, s) } else { s }
    }
    fn import(&mut self, fb: &mut FunctionBuilder, name: &str, sig: Signature) -> FuncRef {
        let id = self.module.declare_function(name, Linkage::Import, &sig).expect("declare runtime function");
        self.module.declare_func_in_func(id, fb.func)
    }
    fn has_fma(&self) -> bool {
        self.fma
    }
    fn has_sse41(&self) -> bool {
        std::is_x86_feature_detected!("sse4.1")
    }
}

fn isa() -> OwnedTargetIsa {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").unwrap();
    flags.set("enable_verifier", "true").unwrap();
    flags.set("is_pic", "false").unwrap();
    cranelift_native::builder().unwrap().finish(settings::Flags::new(flags)).unwrap()
}

/// A JIT module holding one compiled kernel; frees its code on drop.
pub(super) struct Compiled {
    module: Option<JITModule>,
    kernel: Kernel,
    lanes: usize,
}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the kernel pointer is not used after the Compiled is dropped.
            unsafe { m.free_memory() };
        }
    }
}

/// Compiles `out[i] = f(a[i], b[i]..)` for values of type `ty`.
pub(super) fn compile(f: MathFn, ty: types::Type, fma: bool) -> Compiled {
    compile_with(ty, fma, f.arity(), |fb, cx, args| emit(fb, cx, f, args, ty))
}

/// Compiles `out[i] = kernel_body(a[i], b[i]..)` (`arity` arguments) for values of type `ty`.
pub(super) fn compile_with(
    ty: types::Type,
    fma: bool,
    arity: usize,
    kernel_body: impl Fn(&mut FunctionBuilder, &mut dyn MathCtx, &[Value]) -> Value,
) -> Compiled {
    let mut jb = JITBuilder::with_isa(isa(), cranelift_module::default_libcall_names());
    for (name, ptr) in symbols() {
        jb.symbol(name, ptr);
    }
    let mut module = JITModule::new(jb);
    let mut sig = module.make_signature();
    for _ in 0..4 {
        sig.params.push(AbiParam::new(types::I64));
    }
    let id = module.declare_function("k", Linkage::Export, &sig).unwrap();
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    let fe_config = module.isa().frontend_config();
    let mut fbc = FunctionBuilderContext::new();
    {
        let mut fb = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let entry = fb.create_block();
        let header = fb.create_block();
        let body = fb.create_block();
        let exit = fb.create_block();
        fb.append_block_params_for_function_params(entry);
        fb.append_block_param(header, types::I64);
        fb.switch_to_block(entry);
        let p = fb.block_params(entry).to_vec();
        let zero = fb.ins().iconst(types::I64, 0);
        fb.ins().jump(header, &[zero.into()]);
        fb.switch_to_block(header);
        let i = fb.block_params(header)[0];
        let more = fb.ins().icmp(cranelift_codegen::ir::condcodes::IntCC::SignedLessThan, i, p[3]);
        fb.ins().brif(more, body, &[], exit, &[]);
        fb.switch_to_block(body);
        let elem = i64::from(ty.lane_type().bytes());
        let off = fb.ins().imul_imm_s(i, elem);
        let flags = MemFlagsData::trusted();
        let mut args = Vec::new();
        for &base in &p[..arity] {
            let addr = fb.ins().iadd(base, off);
            args.push(fb.ins().load(ty, flags, addr, 0));
        }
        let mut cx = Ctx { module: &mut module, fma };
        let r = kernel_body(&mut fb, &mut cx, &args);
        let addr = fb.ins().iadd(p[2], off);
        fb.ins().store(flags, r, addr, 0);
        let next = fb.ins().iadd_imm_s(i, i64::from(ty.lane_count()));
        fb.ins().jump(header, &[next.into()]);
        fb.switch_to_block(exit);
        fb.ins().return_(&[]);
        fb.seal_all_blocks();
        fb.finalize(fe_config);
    }
    module.define_function(id, &mut ctx).unwrap();
    module.finalize_definitions().unwrap();
    let ptr = module.get_finalized_function(id);
    // SAFETY: the function was declared with this signature.
    let kernel = unsafe { std::mem::transmute::<*const u8, Kernel>(ptr) };
    Compiled { module: Some(module), kernel, lanes: ty.lane_count() as usize }
}

impl Compiled {
    /// Runs the kernel over `a` (and `b` for two-argument functions), padding to whole vectors.
    pub(super) fn run<T: Copy + Default>(&self, a: &[T], b: Option<&[T]>) -> Vec<T> {
        let n = a.len().div_ceil(self.lanes) * self.lanes;
        let mut a = a.to_vec();
        a.resize(n, T::default());
        let mut b = b.map_or_else(|| vec![T::default(); n], <[T]>::to_vec);
        b.resize(n, T::default());
        let mut out = vec![T::default(); n];
        // SAFETY: three buffers of n elements of the kernel's lane type.
        unsafe { (self.kernel)(a.as_ptr().cast(), b.as_ptr().cast(), out.as_mut_ptr().cast(), n as i64) };
        out.truncate(a.len());
        out
    }
}

/// Distance in ulps on the ordered integer line (±0 are equal); NaN vs NaN is 0, NaN vs number is `u64::MAX`.
pub(super) fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() { 0 } else { u64::MAX };
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 { i64::from(i32::MIN) - i64::from(i) } else { i64::from(i) }
    };
    key(a).abs_diff(key(b))
}

/// As [`ulps32`] for f64.
pub(super) fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() { 0 } else { u64::MAX };
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 { i128::from(i64::MIN) - i128::from(i) } else { i128::from(i) }
    };
    u64::try_from(key(a).abs_diff(key(b))).unwrap_or(u64::MAX)
}

/// Two calls in one kernel, each with a cold libm branch (`sin` then `cos` of the result plus `cos x`): the second
/// emit continues in the block the first left the builder in, for scalars and vectors.
#[test]
fn calls_compose_across_cold_blocks() {
    let xs: Vec<f32> = vec![0.5, -3.0, 2e6, f32::INFINITY, 1e-40, -0.0, 7.0, 1e30];
    for ty in [types::F32, types::F32X4] {
        let k = compile_with(ty, false, 1, |fb, cx, args| {
            let s = emit(fb, cx, MathFn::Sin, args, ty);
            let cs = emit(fb, cx, MathFn::Cos, &[s], ty);
            let c = emit(fb, cx, MathFn::Cos, args, ty);
            fb.ins().fadd(cs, c)
        });
        let got = k.run(&xs, None);
        for (&x, &g) in xs.iter().zip(&got) {
            let want = libm::cos(libm::sin(f64::from(x)) as f32 as f64) as f32 + libm::cos(f64::from(x)) as f32;
            assert!(ulps32(g, want) <= 4, "{ty}: cos(sin({x})) + cos({x}) = {g}, libm {want}");
        }
    }
}

mod accuracy;
