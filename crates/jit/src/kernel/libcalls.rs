//! A private stand-in for `crate::math::emit` (the math part of the JIT, built in
//! parallel): transcendental functions as calls of registered runtime functions, one call
//! per element, computing exactly what the reference interpreter computes (Rust std and
//! `libm`), so results are bit-identical. At merge the lead switches the call sites in
//! `ops.rs` to `math::emit` (vector polynomial kernels with stated ulp bounds) and drops
//! this file; the symbols must then come from `math::symbols()`.

use cranelift_codegen::ir::{AbiParam, FuncRef, InstBuilder, Signature, Type, Value, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};
use std::collections::HashMap;

/// The functions of the stand-in (the `MathFn` of the math interface).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum MathFn {
    Exp,
    Log,
    Log1p,
    Expm1,
    Tanh,
    Logistic,
    Sin,
    Cos,
    Tan,
    Erf,
    Pow,
    Atan2,
    Fmod,
}

impl MathFn {
    fn name(self, ty: Type) -> String {
        let base = match self {
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

    fn arity(self) -> usize {
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

/// Imported runtime functions of the function being built, by symbol.
#[derive(Default)]
pub(crate) struct Imports {
    refs: HashMap<String, FuncRef>,
}

impl Imports {
    /// Emits `f(args)` on scalars of type `ty` (F32 or F64) as a call.
    pub(crate) fn emit(
        &mut self,
        fb: &mut FunctionBuilder,
        jit: &mut JITModule,
        f: MathFn,
        args: &[Value],
        ty: Type,
    ) -> Result<Value, String> {
        let name = f.name(ty);
        let fref = match self.refs.get(&name) {
            Some(&r) => r,
            None => {
                let mut sig = Signature::new(jit.isa().default_call_conv());
                (0..f.arity()).for_each(|_| sig.params.push(AbiParam::new(ty)));
                sig.returns.push(AbiParam::new(ty));
                let id = jit.declare_function(&name, Linkage::Import, &sig).map_err(|e| format!("{name}: {e}"))?;
                let r = jit.declare_func_in_func(id, fb.func);
                self.refs.insert(name, r);
                r
            }
        };
        let call = fb.ins().call(fref, args);
        Ok(fb.inst_results(call)[0])
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

/// The runtime functions kernels may call, to register on every `JITBuilder`
/// (`jb.symbol(name, ptr)`).
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
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
    ]
}
