//! The reference evaluation of the unary family: the interpreter's definition of each
//! op on f32, f64, i32 and bool buffers (16-bit floats arrive widened to f32, except
//! for `convert`, which rounds to and from them itself).

use super::UnaryOp;
use crate::prim::elements::{Float, Num, array, bad_dtype, div_i32, map};
use ferrax_array::{Array, DType, Data};

/// Evaluates a unary operation elementwise.
///
/// Floats use Rust's std math (and `libm` for `erf`). `neg` and `abs` wrap on i32
/// (`abs(i32::MIN) = i32::MIN`). `sign` gives -1, 0 or 1, returns a NaN or a signed
/// zero unchanged. `round` rounds half to even. `logistic(x) = 1 / (1 + e^-x)` (as `e^x / (1 +
/// e^x)` for negative x), which underflows gracefully for large negative x and is 1 for
/// large positive x (never NaN unless x is).
/// `rsqrt(x) = 1 / sqrt(x)`. `not` is logical on bool and bitwise on i32.
pub(crate) fn eval_unary(op: UnaryOp, x: &Array) -> Result<Array, String> {
    match op {
        UnaryOp::IntegerPow { y } => return eval_integer_pow(y, x),
        UnaryOp::Convert { dtype } => return eval_convert(dtype, x),
        UnaryOp::StopGradient => return Ok(x.clone()),
        _ => {}
    }
    let data = match x.data() {
        Data::F32(v) => unary_float(op, v),
        Data::F64(v) => unary_float(op, v),
        Data::I32(v) => unary_i32(op, v),
        Data::Bool(v) => unary_bool(op, v),
        Data::BF16(_) | Data::F16(_) => None,
    };
    array(x.shape(), data.ok_or_else(|| bad_dtype(op.name(), x.dtype()))?)
}

/// `1 / (1 + e^-x)`, as `e^x / (1 + e^x)` for negative x so that the subnormal results
/// of large negative x are not lost to an early overflow of `e^-x`.
fn logistic<T: Float>(a: T) -> T {
    if a < T::ZERO {
        let e = a.exp();
        e / T::add(T::ONE, e)
    } else {
        T::ONE / T::add(T::ONE, (-a).exp())
    }
}

/// A unary operation over float elements; `None` for the integer-only ones.
fn unary_float<T: Float>(op: UnaryOp, v: &[T]) -> Option<Data> {
    let out = match op {
        UnaryOp::Neg => map(v, |a| -a),
        UnaryOp::Exp => map(v, T::exp),
        UnaryOp::Log => map(v, T::ln),
        UnaryOp::Log1p => map(v, T::ln_1p),
        UnaryOp::Expm1 => map(v, T::exp_m1),
        UnaryOp::Sin => map(v, T::sin),
        UnaryOp::Cos => map(v, T::cos),
        UnaryOp::Tan => map(v, T::tan),
        UnaryOp::Tanh => map(v, T::tanh),
        UnaryOp::Logistic => map(v, logistic),
        UnaryOp::Sqrt => map(v, T::sqrt),
        UnaryOp::Rsqrt => map(v, |a| T::ONE / a.sqrt()),
        UnaryOp::Abs => map(v, T::abs),
        UnaryOp::Sign => map(v, float_sign),
        UnaryOp::Floor => map(v, T::floor),
        UnaryOp::Ceil => map(v, T::ceil),
        UnaryOp::Round => map(v, T::round_ties_even),
        UnaryOp::Erf => map(v, T::erf),
        UnaryOp::IsFinite => return Some(Data::Bool(map(v, T::is_finite))),
        UnaryOp::Not | UnaryOp::IntegerPow { .. } | UnaryOp::Convert { .. } | UnaryOp::StopGradient => return None,
    };
    Some(T::into_data(out))
}

/// -1 or 1 with the sign of `a`; a zero or NaN is returned unchanged.
fn float_sign<T: Float>(a: T) -> T {
    if a == T::ZERO || a.is_nan() { a } else { T::ONE.copysign(a) }
}

/// A unary operation over i32 elements; `None` for the float-only ones.
fn unary_i32(op: UnaryOp, v: &[i32]) -> Option<Data> {
    let out = match op {
        UnaryOp::Neg => map(v, i32::wrapping_neg),
        UnaryOp::Abs => map(v, i32::wrapping_abs),
        UnaryOp::Sign => map(v, i32::signum),
        UnaryOp::Not => map(v, |a| !a),
        UnaryOp::Exp
        | UnaryOp::Log
        | UnaryOp::Log1p
        | UnaryOp::Expm1
        | UnaryOp::Sin
        | UnaryOp::Cos
        | UnaryOp::Tan
        | UnaryOp::Tanh
        | UnaryOp::Logistic
        | UnaryOp::Sqrt
        | UnaryOp::Rsqrt
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Erf
        | UnaryOp::IsFinite
        | UnaryOp::IntegerPow { .. }
        | UnaryOp::Convert { .. }
        | UnaryOp::StopGradient => return None,
    };
    Some(Data::I32(out))
}

/// A unary operation over bool elements: only `not`.
fn unary_bool(op: UnaryOp, v: &[bool]) -> Option<Data> {
    match op {
        UnaryOp::Not => Some(Data::Bool(map(v, |a| !a))),
        UnaryOp::Neg
        | UnaryOp::Exp
        | UnaryOp::Log
        | UnaryOp::Log1p
        | UnaryOp::Expm1
        | UnaryOp::Sin
        | UnaryOp::Cos
        | UnaryOp::Tan
        | UnaryOp::Tanh
        | UnaryOp::Logistic
        | UnaryOp::Sqrt
        | UnaryOp::Rsqrt
        | UnaryOp::Abs
        | UnaryOp::Sign
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Erf
        | UnaryOp::IsFinite
        | UnaryOp::IntegerPow { .. }
        | UnaryOp::Convert { .. }
        | UnaryOp::StopGradient => None,
    }
}

/// Evaluates `x^y` elementwise by repeated squaring, as `jax.lax.integer_pow` does:
/// the bits of `|y|` from the lowest pick which squarings `x, x^2, x^4, ...` multiply
/// into the accumulator (with wrapping multiplication on i32). `y = 0` gives 1 for
/// every `x` (NaN included). For `y < 0` the result is `1 / x^|y|`: float division on
/// floats, and on i32 the non-trapping truncating division of `div` applied to the
/// wrapped power (so it is -1 when `x^|y|` wraps to 0, 1 or -1 when it is ±1, else 0).
pub(super) fn eval_integer_pow(y: i32, x: &Array) -> Result<Array, String> {
    let n = y.unsigned_abs();
    let data = match x.data() {
        Data::F32(v) => Data::F32(map(v, |a| float_integer_pow(a, n, y < 0))),
        Data::F64(v) => Data::F64(map(v, |a| float_integer_pow(a, n, y < 0))),
        Data::I32(v) if y < 0 => Data::I32(map(v, |a| div_i32(1, pow_by_squaring(a, n)))),
        Data::I32(v) => Data::I32(map(v, |a| pow_by_squaring(a, n))),
        Data::Bool(_) | Data::BF16(_) | Data::F16(_) => return Err(bad_dtype("integer_pow", x.dtype())),
    };
    array(x.shape(), data)
}

/// `x^n`, or `1 / x^n` when `reciprocal`.
fn float_integer_pow<T: Float>(x: T, n: u32, reciprocal: bool) -> T {
    let p = pow_by_squaring(x, n);
    if reciprocal { T::ONE / p } else { p }
}

/// `x^n` by repeated squaring with the element type's multiplication.
fn pow_by_squaring<T: Num>(x: T, mut n: u32) -> T {
    let (mut acc, mut base) = (T::ONE, x);
    while n > 0 {
        if n & 1 == 1 {
            acc = T::mul(acc, base);
        }
        n >>= 1;
        if n > 0 {
            base = T::mul(base, base);
        }
    }
    acc
}

/// Evaluates `convert`: float to i32 truncates toward zero, saturates at the i32 range
/// and maps NaN to 0; i32 to float rounds to nearest; bool to a number is 0 or 1; a
/// number to bool is `x != 0` (so NaN is true, as in XLA); f64 to f32 rounds to
/// nearest (overflowing to ±inf); converting to the same dtype copies.
pub(super) fn eval_convert(dtype: DType, x: &Array) -> Result<Array, String> {
    let data = match x.data() {
        Data::Bool(v) => convert_slice(v, dtype),
        Data::I32(v) => convert_slice(v, dtype),
        Data::F32(v) => convert_slice(v, dtype),
        Data::F64(v) => convert_slice(v, dtype),
        // A 16-bit operand widens exactly to f32 first.
        Data::BF16(_) | Data::F16(_) => convert_slice(&x.data().widen_half().unwrap_or_default(), dtype),
    };
    array(x.shape(), data)
}

/// Converts every element of `v` to `dtype`.
fn convert_slice<T: Cast>(v: &[T], dtype: DType) -> Data {
    match dtype {
        DType::Bool => Data::Bool(map(v, T::to_bool)),
        DType::I32 => Data::I32(map(v, T::to_i32)),
        DType::F32 => Data::F32(map(v, T::to_f32)),
        DType::F64 => Data::F64(map(v, T::to_f64)),
        // One rounding from the exact value (every operand dtype is exact in f64).
        DType::BF16 => Data::BF16(map(v, |x| ferrax_array::bf16_from_f64(x.to_f64()))),
        DType::F16 => Data::F16(map(v, |x| ferrax_array::f16_from_f64(x.to_f64()))),
    }
}

/// An element convertible to every dtype with `convert`'s semantics.
trait Cast: Copy {
    /// `x != 0`.
    fn to_bool(self) -> bool;
    /// Truncating, saturating, NaN to 0.
    fn to_i32(self) -> i32;
    /// Rounding to nearest.
    fn to_f32(self) -> f32;
    /// Exact for every source dtype.
    fn to_f64(self) -> f64;
}

impl Cast for bool {
    fn to_bool(self) -> bool {
        self
    }

    fn to_i32(self) -> i32 {
        i32::from(self)
    }

    fn to_f32(self) -> f32 {
        f32::from(u8::from(self))
    }

    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
}

impl Cast for i32 {
    fn to_bool(self) -> bool {
        self != 0
    }

    fn to_i32(self) -> i32 {
        self
    }

    fn to_f32(self) -> f32 {
        self as f32
    }

    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Cast for f32 {
    fn to_bool(self) -> bool {
        self != 0.0
    }

    fn to_i32(self) -> i32 {
        self as i32
    }

    fn to_f32(self) -> f32 {
        self
    }

    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Cast for f64 {
    fn to_bool(self) -> bool {
        self != 0.0
    }

    fn to_i32(self) -> i32 {
        self as i32
    }

    fn to_f32(self) -> f32 {
        self as f32
    }

    fn to_f64(self) -> f64 {
        self
    }
}

/// Evaluates a unary op on its operands (see [`eval_unary`]).
pub(crate) fn eval(op: UnaryOp, a: &[&Array]) -> Result<Array, String> {
    let [x] = crate::prim::operands(a)?;
    eval_unary(op, x)
}
