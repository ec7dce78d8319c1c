//! Elementwise unary primitives: math, logic, `integer_pow`, `convert`,
//! `stop_gradient` and `name`.

use super::ad::LinearIn;
use super::expect_arity;
use crate::Type;
use crate::attr::AttrVisitor;
use crate::{Emitter, Prim, Value};
use ferrax_array::DType;

mod eval;
pub(crate) use eval::eval;
#[cfg(test)]
use eval::{eval_convert, eval_integer_pow, eval_unary};

/// An elementwise unary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `e^x`.
    Exp,
    /// Natural logarithm.
    Log,
    /// `log(1 + x)`, accurate near 0.
    Log1p,
    /// `e^x - 1`, accurate near 0.
    Expm1,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Tangent.
    Tan,
    /// Hyperbolic tangent.
    Tanh,
    /// `1 / (1 + e^-x)`.
    Logistic,
    /// Square root.
    Sqrt,
    /// `1 / sqrt(x)`.
    Rsqrt,
    /// Absolute value (wraps for `i32::MIN`).
    Abs,
    /// -1, 0 or 1 (NaN for NaN, signed zero kept).
    Sign,
    /// Round toward -inf.
    Floor,
    /// Round toward +inf.
    Ceil,
    /// Round half to even.
    Round,
    /// The error function.
    Erf,
    /// Logical not (bool) or bitwise not (i32).
    Not,
    /// Neither inf nor NaN; the result is bool.
    IsFinite,
    /// `x^y` for a static integer `y`.
    IntegerPow {
        /// The exponent.
        y: i32,
    },
    /// Elementwise dtype conversion (float→int saturates, NaN→0).
    Convert {
        /// Target dtype.
        dtype: DType,
    },
    /// Identity whose derivative is zero.
    StopGradient,
}

impl Prim {
    /// `convert[dtype]`: each element converted to `dtype`.
    pub fn convert(dtype: DType) -> Prim {
        Prim::Unary(UnaryOp::Convert { dtype })
    }

    /// The target dtype of a `convert`; `None` for any other primitive.
    pub fn convert_dtype(&self) -> Option<DType> {
        if let Prim::Unary(UnaryOp::Convert { dtype }) = self { Some(*dtype) } else { None }
    }
}

impl UnaryOp {
    /// The op named `name` in the text form, with placeholder parameters that
    /// [`UnaryOp::visit_attrs`] then fills.
    pub(crate) fn blank(name: &str) -> Option<UnaryOp> {
        match name {
            "integer_pow" => Some(UnaryOp::IntegerPow { y: 0 }),
            "convert" => Some(UnaryOp::Convert { dtype: DType::F32 }),
            "stop_gradient" => Some(UnaryOp::StopGradient),
            other => UnaryOp::from_name(other),
        }
    }

    /// Hands every attribute of the op to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            UnaryOp::IntegerPow { y } => v.i32("y", y),
            UnaryOp::Convert { dtype } => v.dtype("dtype", dtype, None),
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
            | UnaryOp::Not
            | UnaryOp::IsFinite
            | UnaryOp::StopGradient => Ok(()),
        }
    }
}

/// Which dtypes a unary operation accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryDomain {
    /// f32, f64.
    Float,
    /// i32, f32, f64.
    Numeric,
    /// bool, i32.
    Logical,
    /// Every dtype.
    Any,
}

impl UnaryOp {
    /// The math and logic operations (every op but `integer_pow`, `convert` and
    /// `stop_gradient`).
    pub const MATH: [UnaryOp; 20] = [
        UnaryOp::Neg,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Log1p,
        UnaryOp::Expm1,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::Tanh,
        UnaryOp::Logistic,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Abs,
        UnaryOp::Sign,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Erf,
        UnaryOp::Not,
        UnaryOp::IsFinite,
    ];

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Log1p => "log1p",
            UnaryOp::Expm1 => "expm1",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tan => "tan",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Logistic => "logistic",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Abs => "abs",
            UnaryOp::Sign => "sign",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Round => "round",
            UnaryOp::Erf => "erf",
            UnaryOp::Not => "not",
            UnaryOp::IsFinite => "is_finite",
            UnaryOp::IntegerPow { .. } => "integer_pow",
            UnaryOp::Convert { .. } => "convert",
            UnaryOp::StopGradient => "stop_gradient",
        }
    }

    /// The operation named `name`.
    pub fn from_name(name: &str) -> Option<UnaryOp> {
        UnaryOp::MATH.into_iter().find(|op| op.name() == name)
    }

    /// The dtypes the operation accepts.
    pub fn domain(self) -> UnaryDomain {
        match self {
            UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign | UnaryOp::IntegerPow { .. } => UnaryDomain::Numeric,
            UnaryOp::Convert { .. } | UnaryOp::StopGradient => UnaryDomain::Any,
            UnaryOp::Not => UnaryDomain::Logical,
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
            | UnaryOp::IsFinite => UnaryDomain::Float,
        }
    }
}

impl UnaryDomain {
    /// True when `dtype` is in the domain.
    pub fn accepts(self, dtype: DType) -> bool {
        match self {
            UnaryDomain::Float => dtype.is_float(),
            UnaryDomain::Numeric => dtype != DType::Bool,
            UnaryDomain::Logical => matches!(dtype, DType::Bool | DType::I32),
            UnaryDomain::Any => true,
        }
    }

    /// A description for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            UnaryDomain::Float => "a float operand (f32, f64)",
            UnaryDomain::Numeric => "a numeric operand (i32, f32, f64)",
            UnaryDomain::Logical => "a bool or i32 operand",
            UnaryDomain::Any => "an operand",
        }
    }
}

/// Checks that a dtype is in a domain: `exp: expects a float operand (f32, f64), got i32[3]`.
pub(crate) fn expect_domain(op: &str, domain: UnaryDomain, ty: &Type) -> Result<(), String> {
    if domain.accepts(ty.dtype) { Ok(()) } else { Err(format!("{op}: expects {}, got {ty}", domain.describe())) }
}

// ---- type rules ----

/// The shorthands for this family's ops that rules of every family build with.
impl Emitter {
    /// `-x`.
    pub fn neg(&mut self, x: Value) -> Result<Value, String> {
        self.unary(UnaryOp::Neg, x)
    }

    /// `x` converted to `dtype` (no equation when it already is).
    pub fn convert(&mut self, x: Value, dtype: DType) -> Result<Value, String> {
        if self.ty(x).dtype == dtype { Ok(x) } else { self.unary(UnaryOp::Convert { dtype }, x) }
    }

    /// `stop_gradient(x)`.
    pub fn stop_gradient(&mut self, x: Value) -> Result<Value, String> {
        self.unary(UnaryOp::StopGradient, x)
    }
}

/// The type rule of every unary op: one operand in the op's domain; the result has
/// the operand's shape and dtype, except `is_finite` (bool) and `convert` (its dtype).
pub(crate) fn infer_unary(op: &UnaryOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 1)?;
    expect_domain(op.name(), op.domain(), &inputs[0])?;
    let dtype = match *op {
        UnaryOp::IsFinite => DType::Bool,
        UnaryOp::Convert { dtype } => dtype,
        _ => inputs[0].dtype,
    };
    Ok(vec![inputs[0].with_dtype(dtype)])
}

pub(crate) fn infer_identity(op: &str, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op, inputs, 1)?;
    Ok(vec![inputs[0].clone()])
}

// ---- differentiation rules (jvp; transpose for the linear primitives) ----

/// The jvp rule of the elementwise unary operations (JAX's rules).
///
/// The tangent is `t` times the derivative, which is computed from the primal `x` or
/// the output `y` only, so the part linear in `t` is a single `mul` (or `div`, `neg`):
/// `exp: t*y`, `log: t/x`, `log1p: t/(1+x)`, `expm1: t*(y+1)`, `sin: t*cos(x)`,
/// `cos: t*(-sin(x))`, `tan: t*(1+y^2)`, `tanh: t*(1-y^2)`, `logistic: t*(y*(1-y))`,
/// `sqrt: t*(0.5/y)`, `rsqrt: t*(-0.5*y/x)`, `erf: t*(2/sqrt(pi)*exp(-x^2))`.
///
/// `abs` is `t` where `x >= 0` and `-t` elsewhere, JAX's rule: at `x = ±0` the tangent
/// is `t` (the subgradient 1, which the norms of `ferrax::linalg` inherit, as
/// `jnp.linalg.norm`'s do), and a NaN `x` gives `-t`. `sign`, `floor`, `ceil`, `round` are piecewise
/// constant and `not`, `is_finite` have integer or bool results: their tangent is zero.
pub(crate) fn jvp_unary(
    em: &mut Emitter,
    op: UnaryOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        UnaryOp::IntegerPow { y } => return jvp_integer_pow(em, y, primals, outputs, tangents),
        UnaryOp::Convert { dtype } => return jvp_convert(em, dtype, primals, outputs, tangents),
        UnaryOp::StopGradient => return Ok(vec![None]),
        _ => {}
    }
    let (Some(&x), Some(&y), Some(&Some(t))) = (primals.first(), outputs.first(), tangents.first()) else {
        return Ok(vec![None]);
    };
    if !em.ty(y).dtype.is_float() {
        return Ok(vec![None]);
    }
    let tangent = match op {
        UnaryOp::Neg => em.neg(t)?,
        UnaryOp::Exp => em.mul(t, y)?,
        UnaryOp::Log => em.div(t, x)?,
        UnaryOp::Log1p => {
            let one = em.full_like(x, 1.0)?;
            let denom = em.add(one, x)?;
            em.div(t, denom)?
        }
        UnaryOp::Expm1
        | UnaryOp::Sin
        | UnaryOp::Cos
        | UnaryOp::Tan
        | UnaryOp::Tanh
        | UnaryOp::Logistic
        | UnaryOp::Sqrt
        | UnaryOp::Rsqrt
        | UnaryOp::Abs
        | UnaryOp::Erf => match slope(em, op, x, y)? {
            Some(factor) => em.mul(t, factor)?,
            None => return Ok(vec![None]),
        },
        UnaryOp::Sign
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Not
        | UnaryOp::IsFinite
        | UnaryOp::IntegerPow { .. }
        | UnaryOp::Convert { .. }
        | UnaryOp::StopGradient => {
            return Ok(vec![None]);
        }
    };
    Ok(vec![Some(tangent)])
}

/// The derivative of `op` at `x`, computed from `x` and the output `y` only, for the ops
/// whose tangent is `t` times it (see [`jvp_unary`]); `None` for the ops whose tangent
/// is one operation on `t` (`neg`, `exp`, `log`, `log1p`) or zero.
fn slope(em: &mut Emitter, op: UnaryOp, x: Value, y: Value) -> Result<Option<Value>, String> {
    let factor = match op {
        UnaryOp::Expm1 => {
            let one = em.full_like(y, 1.0)?;
            em.add(y, one)?
        }
        UnaryOp::Sin => em.unary(UnaryOp::Cos, x)?,
        UnaryOp::Cos => {
            let sin = em.unary(UnaryOp::Sin, x)?;
            em.neg(sin)?
        }
        UnaryOp::Tan => {
            let one = em.full_like(y, 1.0)?;
            let square = em.mul(y, y)?;
            em.add(one, square)?
        }
        UnaryOp::Tanh => {
            let one = em.full_like(y, 1.0)?;
            let square = em.mul(y, y)?;
            em.sub(one, square)?
        }
        UnaryOp::Logistic => {
            let one = em.full_like(y, 1.0)?;
            let rest = em.sub(one, y)?;
            em.mul(y, rest)?
        }
        UnaryOp::Sqrt => {
            let half = em.full_like(y, 0.5)?;
            em.div(half, y)?
        }
        UnaryOp::Rsqrt => {
            let minus_half = em.full_like(y, -0.5)?;
            let scaled = em.mul(minus_half, y)?;
            em.div(scaled, x)?
        }
        UnaryOp::Abs => {
            let zero = em.full_like(x, 0.0)?;
            let nonnegative = em.compare(super::CompareOp::Ge, x, zero)?;
            let one = em.full_like(x, 1.0)?;
            let minus_one = em.full_like(x, -1.0)?;
            em.select(nonnegative, one, minus_one)?
        }
        UnaryOp::Erf => {
            let scale = em.full_like(x, std::f64::consts::FRAC_2_SQRT_PI)?;
            let square = em.mul(x, x)?;
            let minus_square = em.neg(square)?;
            let gauss = em.unary(UnaryOp::Exp, minus_square)?;
            em.mul(scale, gauss)?
        }
        UnaryOp::Neg
        | UnaryOp::Exp
        | UnaryOp::Log
        | UnaryOp::Log1p
        | UnaryOp::Sign
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Not
        | UnaryOp::IsFinite
        | UnaryOp::IntegerPow { .. }
        | UnaryOp::Convert { .. }
        | UnaryOp::StopGradient => return Ok(None),
    };
    Ok(Some(factor))
}

/// The jvp rule of `integer_pow[y]`: `t * (y * x^(y-1))`, zero for `y = 0` (so that
/// `x = 0` gives no `0 * inf`), and `t` itself for `y = 1`.
///
/// `x^(y-1)` is `x` for `y = 2` and `integer_pow[y-1](x)` otherwise; for `y = i32::MIN`,
/// whose `y - 1` does not fit, it is `x^y * x^-1` (the output times `integer_pow[-1](x)`).
fn jvp_integer_pow(
    em: &mut Emitter,
    y: i32,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (Some(&x), Some(&out), Some(&Some(t))) = (primals.first(), outputs.first(), tangents.first()) else {
        return Ok(vec![None]);
    };
    if y == 0 || !em.ty(out).dtype.is_float() {
        return Ok(vec![None]);
    }
    if y == 1 {
        return Ok(vec![Some(t)]);
    }
    let power = match y.checked_sub(1) {
        Some(1) => x,
        Some(y_minus_one) => em.op(Prim::Unary(UnaryOp::IntegerPow { y: y_minus_one }), &[x])?,
        None => {
            let reciprocal = em.op(Prim::Unary(UnaryOp::IntegerPow { y: -1 }), &[x])?;
            em.mul(out, reciprocal)?
        }
    };
    let scale = em.full_like(x, f64::from(y))?;
    let factor = em.mul(scale, power)?;
    Ok(vec![Some(em.mul(t, factor)?)])
}

/// The jvp rule of `convert[dtype]`: the tangent converted to `dtype` between float
/// dtypes; zero when either side is an integer or bool (JAX's float0), since such a
/// conversion is piecewise constant or has no tangent space.
fn jvp_convert(
    em: &mut Emitter,
    dtype: DType,
    primals: &[Value],
    _outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (Some(&x), Some(&Some(t))) = (primals.first(), tangents.first()) else {
        return Ok(vec![None]);
    };
    if !em.ty(x).dtype.is_float() || !dtype.is_float() {
        return Ok(vec![None]);
    }
    Ok(vec![Some(em.convert(t, dtype)?)])
}

/// The transpose rule of a unary operation: `neg` is linear and its own transpose
/// (`x -> -x` gives `ct -> -ct`), `convert` between float dtypes is linear (see
/// [`transpose_convert`]). Every other operation is an error.
pub(crate) fn transpose_unary(
    em: &mut Emitter,
    op: UnaryOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        UnaryOp::Convert { dtype } => return transpose_convert(em, dtype, inputs, cts),
        UnaryOp::IntegerPow { .. } | UnaryOp::StopGradient => return Err(super::ad::not_linear(op.name())),
        _ => {}
    }
    let (x, ct) = unary_operands(op.name(), inputs, cts)?;
    match op {
        UnaryOp::Neg => {}
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
        | UnaryOp::Abs
        | UnaryOp::Sign
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Erf
        | UnaryOp::Not
        | UnaryOp::IsFinite
        | UnaryOp::IntegerPow { .. }
        | UnaryOp::Convert { .. }
        | UnaryOp::StopGradient => {
            return Err(format!("{} is not linear, so it has no transpose rule", op.name()));
        }
    }
    match (x, ct) {
        (LinearIn::Linear(_), Some(ct)) => Ok(vec![Some(em.neg(ct)?)]),
        (LinearIn::Linear(_) | LinearIn::Residual(_), _) => Ok(vec![None]),
    }
}

/// The transpose rule of `convert`: between float dtypes the conversion is linear, and
/// its transpose converts the cotangent back to the operand's dtype.
fn transpose_convert(
    em: &mut Emitter,
    dtype: DType,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (x, ct) = unary_operands("convert", inputs, cts)?;
    let LinearIn::Linear(x_ty) = x else {
        return Ok(vec![None]);
    };
    if !x_ty.dtype.is_float() || !dtype.is_float() {
        return Err(format!(
            "convert from {} to {dtype} is not linear (only conversions between float dtypes are), \
             so it has no transpose rule",
            x_ty.dtype
        ));
    }
    match ct {
        Some(ct) => Ok(vec![Some(em.convert(ct, x_ty.dtype)?)]),
        None => Ok(vec![None]),
    }
}

/// The one input and the one output cotangent of a unary equation being transposed.
fn unary_operands<'a>(
    op: &str,
    inputs: &'a [LinearIn],
    cts: &[Option<Value>],
) -> Result<(&'a LinearIn, Option<Value>), String> {
    match (inputs, cts) {
        ([x], [ct]) => Ok((x, *ct)),
        _ => Err(format!("{op}: transpose expects 1 input and 1 cotangent, got {} and {}", inputs.len(), cts.len())),
    }
}

// ---- batching rules (vmap) ----

/// The batching rule of every elementwise primitive: the unary operations,
/// `integer_pow`, `convert`, `stop_gradient`, `name`, the binary operations, the
/// comparisons, `select` and `clamp`.
///
/// Operands of an elementwise primitive have one shape and the IR has no implicit
/// broadcasting, so every operand is brought to the batched shape: the output takes the
/// batch axis of the first batched operand, the other batched operands have theirs
/// moved there (no equation when it already is), and the unbatched operands are
/// broadcast along a new axis of `size` at that position. `prim` is then emitted once,
/// and its output is batched at that axis.
pub(crate) fn batch_elementwise(
    em: &mut Emitter,
    prim: &Prim,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<super::batch::Batched, String> {
    let op = prim.name();
    if !prim.is_elementwise() {
        return Err(format!("{op}: not an elementwise primitive"));
    }
    if inputs.len() != dims.len() {
        return Err(format!("{op}: {} operands but {} batch axes", inputs.len(), dims.len()));
    }
    let Some((first, at)) = inputs.iter().zip(dims).find_map(|(&x, &d)| d.map(|d| (x, d))) else {
        return Err(format!("{op}: no operand is batched"));
    };
    let rank = example_rank(em, op, first, Some(at), size)?;
    let mut operands = Vec::with_capacity(inputs.len());
    for (&x, &d) in inputs.iter().zip(dims) {
        let x_rank = example_rank(em, op, x, d, size)?;
        if x_rank != rank {
            let ty = em.ty(x);
            return Err(format!("{op}: operand {ty} has rank {x_rank} per example, the first batched one {rank}"));
        }
        operands.push(em.batch_at(x, d, size, at)?);
    }
    let out = em.op(prim.clone(), &operands)?;
    Ok((vec![out], vec![Some(at)]))
}

/// The rank of one example of `x`, a value of the Func `em` builds that is batched at
/// axis `dim` (or unbatched for `None`): an error when `x` is unknown, or when the
/// batch axis is out of range or does not have `size` elements. Shared by the batching
/// rules of the reductions and of `dot_general`.
pub(super) fn example_rank(em: &Emitter, op: &str, x: Value, dim: Option<usize>, size: usize) -> Result<usize, String> {
    let ty = em.func().value_type(x).ok_or_else(|| format!("{op}: unknown value {x}"))?;
    let Some(d) = dim else {
        return Ok(ty.rank());
    };
    match ty.shape.get(d) {
        Some(&n) if n == size => Ok(ty.rank() - 1),
        Some(&n) => Err(format!("{op}: batch axis {d} of {ty} has {n} elements, expected {size}")),
        None => Err(format!("{op}: batch axis {d} is out of range for {ty}")),
    }
}

/// The property-table row of a unary op: `expensive` for the ops that cost a call or
/// a long sequence per element; transcendental flops for `exp`, `log`, `log1p`,
/// `expm1`, `sin`, `cos`, `tan`, `tanh`, `logistic`, `erf`; inexact (approximated by
/// a backend) for those and `rsqrt`.
pub(crate) fn props(op: UnaryOp) -> super::props::Props {
    use super::props::{Flops, Props};
    let base = Props::elementwise(op.domain());
    match op {
        UnaryOp::Exp
        | UnaryOp::Log
        | UnaryOp::Log1p
        | UnaryOp::Expm1
        | UnaryOp::Sin
        | UnaryOp::Cos
        | UnaryOp::Tan
        | UnaryOp::Tanh
        | UnaryOp::Logistic
        | UnaryOp::Erf => Props { expensive: true, flops: Flops::Transcendental, inexact: true, ..base },
        UnaryOp::Rsqrt => Props { expensive: true, inexact: true, ..base },
        UnaryOp::Sqrt => Props { expensive: true, ..base },
        UnaryOp::Neg
        | UnaryOp::Abs
        | UnaryOp::Sign
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Not
        | UnaryOp::IsFinite => base,
        UnaryOp::IntegerPow { y } => Props { flops: Flops::IntegerPow(y), ..base },
        UnaryOp::Convert { .. } => Props { flops: Flops::None, ..base },
        UnaryOp::StopGradient => Props { flops: Flops::None, identity: true, ..base },
    }
}

#[cfg(test)]
#[path = "tests/unary.rs"]
mod tests;
