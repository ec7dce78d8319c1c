//! Transcendental functions in kernels, two ways.
//!
//! By default (`KernelOptions::precise_math = false`) they are the vectorisable polynomial
//! kernels of `math` (stated ulp bounds, see its docs). With `precise_math` they are calls of
//! registered runtime functions, one per element (lane by lane for vectors), computing exactly
//! what the reference interpreter computes (Rust std and `libm`), so results are bit-identical
//! to it: the opt-in "precise" mode of the exactness policy, and what the kernel tests use to
//! compare every other operation bit for bit.

use super::super::math::{self, MathCtx, MathFn};
use cranelift_codegen::ir::{AbiParam, ExtFuncData, ExternalName, FuncRef, InstBuilder, Signature, Type, Value, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
use std::collections::HashMap;

/// The symbol of the precise runtime function for `f` on `ty` (F32 or F64).
fn symbol(f: MathFn, ty: Type) -> String {
    let base = match f {
        MathFn::Exp => "exp",
        MathFn::Log => "log",
        MathFn::Log1p => "log1p",
        MathFn::Expm1 => "expm1",
        MathFn::Tanh => "tanh",
        MathFn::Logistic => "logistic",
        MathFn::Sin => "sin",
        MathFn::Cos => "cos",
        MathFn::Tan => "tan",
        MathFn::Erf => "erf",
        MathFn::Pow => "pow",
        MathFn::Atan2 => "atan2",
        MathFn::Fmod => "fmod",
    };
    let suffix = if ty == types::F32 { "f32" } else { "f64" };
    format!("ferrax_kmath_{base}_{suffix}")
}

/// Imported runtime functions of the function being built, by symbol, and how math is emitted.
#[derive(Default)]
pub(crate) struct Imports {
    refs: HashMap<String, FuncRef>,
    /// Calls of the interpreter's functions instead of `math`'s polynomial kernels.
    pub precise: bool,
    /// The host has FMA (the polynomial kernels then use it).
    pub has_fma: bool,
    /// The host has SSE4.1.
    pub has_sse41: bool,
}

impl Imports {
    /// No imports yet; math emitted as `precise` says, for a host with or without FMA/SSE4.1.
    pub(crate) fn new(precise: bool, has_fma: bool, has_sse41: bool) -> Imports {
        Imports { refs: HashMap::new(), precise, has_fma, has_sse41 }
    }

    /// A reference to the imported function `name` with signature `sig`.
    pub(crate) fn import(
        &mut self,
        fb: &mut FunctionBuilder,
        jit: &mut JITModule,
        name: &str,
        sig: Signature,
    ) -> Result<FuncRef, String> {
        if let Some(&r) = self.refs.get(name) {
            return Ok(r);
        }
        let id = jit.declare_function(name, Linkage::Import, &sig).map_err(|e| format!("{name}: {e}"))?;
        let r = jit.declare_func_in_func(id, fb.func);
        self.refs.insert(name.to_string(), r);
        Ok(r)
    }

    /// Emits `f(args)` on values of type `ty` (F32, F64, F32X4 or F64X2).
    pub(crate) fn emit(
        &mut self,
        fb: &mut FunctionBuilder,
        jit: &mut JITModule,
        f: MathFn,
        args: &[Value],
        ty: Type,
    ) -> Result<Value, String> {
        if args.len() != f.arity() {
            return Err(format!("{f:?} takes {} operands, not {}", f.arity(), args.len()));
        }
        if !self.precise {
            let mut cx = Ctx { imports: self, jit, error: None };
            let v = math::emit(fb, &mut cx, f, args, ty);
            return match cx.error {
                Some(e) => Err(e),
                None => Ok(v),
            };
        }
        if !ty.is_vector() {
            return self.call(fb, jit, f, args, ty);
        }
        let mut out = None;
        for lane in 0..ty.lane_count() as u8 {
            let xs: Vec<Value> = args.iter().map(|&a| fb.ins().extractlane(a, lane)).collect();
            let r = self.call(fb, jit, f, &xs, ty.lane_type())?;
            out = Some(match out {
                None => fb.ins().splat(ty, r),
                Some(v) => fb.ins().insertlane(v, r, lane),
            });
        }
        out.ok_or_else(|| "a vector has lanes".to_string())
    }

    /// One call of the precise runtime function on scalars of type `ty`.
    fn call(
        &mut self,
        fb: &mut FunctionBuilder,
        jit: &mut JITModule,
        f: MathFn,
        args: &[Value],
        ty: Type,
    ) -> Result<Value, String> {
        let name = symbol(f, ty);
        let mut sig = Signature::new(jit.isa().default_call_conv());
        (0..f.arity()).for_each(|_| sig.params.push(AbiParam::new(ty)));
        sig.returns.push(AbiParam::new(ty));
        let fref = self.import(fb, jit, &name, sig)?;
        let call = fb.ins().call(fref, args);
        Ok(fb.inst_results(call)[0])
    }
}

/// The kernel seen by `math::emit`.
struct Ctx<'a> {
    imports: &'a mut Imports,
    jit: &'a mut JITModule,
    /// The first failure to import a runtime function (the kernel is then not compiled).
    error: Option<String>,
}

impl MathCtx for Ctx<'_> {
    fn float(&mut self, fb: &mut FunctionBuilder, ty: Type, value: f64) -> Value {
        let c = if ty.lane_type() == types::F32 { fb.ins().f32const(value as f32) } else { fb.ins().f64const(value) };
        if ty.is_vector() { fb.ins().splat(ty, c) } else { c }
    }

    fn import(&mut self, fb: &mut FunctionBuilder, name: &str, sig: Signature) -> FuncRef {
        match self.imports.import(fb, self.jit, name, sig.clone()) {
            Ok(r) => r,
            Err(e) => {
                self.error.get_or_insert(e);
                // A placeholder reference: the caller returns the error, so this is never compiled.
                let signature = fb.import_signature(sig);
                fb.import_function(ExtFuncData {
                    name: ExternalName::testcase(name),
                    signature,
                    colocated: false,
                    patchable: false,
                })
            }
        }
    }

    fn has_fma(&self) -> bool {
        self.imports.has_fma
    }

    fn has_sse41(&self) -> bool {
        self.imports.has_sse41
    }
}

macro_rules! unary_fns {
    ($($name:ident: $t:ty => $body:expr;)*) => {
        $(extern "C" fn $name(x: $t) -> $t {
            let f: fn($t) -> $t = $body;
            f(x)
        })*
    };
}

unary_fns! {
    exp_f32: f32 => f32::exp;
    exp_f64: f64 => f64::exp;
    log_f32: f32 => f32::ln;
    log_f64: f64 => f64::ln;
    log1p_f32: f32 => f32::ln_1p;
    log1p_f64: f64 => f64::ln_1p;
    expm1_f32: f32 => f32::exp_m1;
    expm1_f64: f64 => f64::exp_m1;
    tanh_f32: f32 => f32::tanh;
    tanh_f64: f64 => f64::tanh;
    sin_f32: f32 => f32::sin;
    sin_f64: f64 => f64::sin;
    cos_f32: f32 => f32::cos;
    cos_f64: f64 => f64::cos;
    tan_f32: f32 => f32::tan;
    tan_f64: f64 => f64::tan;
    erf_f32: f32 => libm::erff;
    erf_f64: f64 => libm::erf;
    logistic_f32: f32 => |a| if a < 0.0 { let e = a.exp(); e / (1.0 + e) } else { 1.0 / (1.0 + (-a).exp()) };
    logistic_f64: f64 => |a| if a < 0.0 { let e = a.exp(); e / (1.0 + e) } else { 1.0 / (1.0 + (-a).exp()) };
}

extern "C" fn pow_f32(x: f32, y: f32) -> f32 {
    x.powf(y)
}
extern "C" fn pow_f64(x: f64, y: f64) -> f64 {
    x.powf(y)
}
extern "C" fn atan2_f32(x: f32, y: f32) -> f32 {
    x.atan2(y)
}
extern "C" fn atan2_f64(x: f64, y: f64) -> f64 {
    x.atan2(y)
}
extern "C" fn fmod_f32(x: f32, y: f32) -> f32 {
    x % y
}
extern "C" fn fmod_f64(x: f64, y: f64) -> f64 {
    x % y
}

/// The runtime functions kernels may call (the precise ones and `math`'s), to register on
/// every `JITBuilder` (`jb.symbol(name, ptr)`).
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut v = math::symbols();
    v.extend(math::tile::symbols());
    v.extend([
        ("ferrax_kmath_exp_f32", exp_f32 as *const u8),
        ("ferrax_kmath_exp_f64", exp_f64 as *const u8),
        ("ferrax_kmath_log_f32", log_f32 as *const u8),
        ("ferrax_kmath_log_f64", log_f64 as *const u8),
        ("ferrax_kmath_log1p_f32", log1p_f32 as *const u8),
        ("ferrax_kmath_log1p_f64", log1p_f64 as *const u8),
        ("ferrax_kmath_expm1_f32", expm1_f32 as *const u8),
        ("ferrax_kmath_expm1_f64", expm1_f64 as *const u8),
        ("ferrax_kmath_tanh_f32", tanh_f32 as *const u8),
        ("ferrax_kmath_tanh_f64", tanh_f64 as *const u8),
        ("ferrax_kmath_logistic_f32", logistic_f32 as *const u8),
        ("ferrax_kmath_logistic_f64", logistic_f64 as *const u8),
        ("ferrax_kmath_sin_f32", sin_f32 as *const u8),
        ("ferrax_kmath_sin_f64", sin_f64 as *const u8),
        ("ferrax_kmath_cos_f32", cos_f32 as *const u8),
        ("ferrax_kmath_cos_f64", cos_f64 as *const u8),
        ("ferrax_kmath_tan_f32", tan_f32 as *const u8),
        ("ferrax_kmath_tan_f64", tan_f64 as *const u8),
        ("ferrax_kmath_erf_f32", erf_f32 as *const u8),
        ("ferrax_kmath_erf_f64", erf_f64 as *const u8),
        ("ferrax_kmath_pow_f32", pow_f32 as *const u8),
        ("ferrax_kmath_pow_f64", pow_f64 as *const u8),
        ("ferrax_kmath_atan2_f32", atan2_f32 as *const u8),
        ("ferrax_kmath_atan2_f64", atan2_f64 as *const u8),
        ("ferrax_kmath_fmod_f32", fmod_f32 as *const u8),
        ("ferrax_kmath_fmod_f64", fmod_f64 as *const u8),
    ]);
    v
}
