//! Elementwise binary primitives: arithmetic, logic, comparisons, `select`, `clamp`.
//!
//! No implicit broadcasting or promotion: operands have the same type (the tracer
//! inserts `broadcast_in_dim` and `convert`).

use super::ad::LinearIn;
use super::shape::instantiate;
use super::unary::{UnaryDomain, UnaryOp, expect_domain};
use super::{expect_arity, expect_same};
use crate::Type;
use crate::emit::add_optional;
use crate::{Emitter, Prim, Value};
use ferrax_array::DType;

mod eval;
pub(crate) use eval::{eval, eval_comparison, eval_ternary};
#[cfg(test)]
use eval::{eval_binary, eval_clamp, eval_compare, eval_select};

/// An elementwise binary operation with a result of the operands' type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `x + y` (wrapping for i32).
    Add,
    /// `x - y`.
    Sub,
    /// `x * y`.
    Mul,
    /// `x / y`; i32 truncates and never traps (x/0 = -1, MIN/-1 = MIN).
    Div,
    /// Remainder with the sign of `x`; i32 rem(x, 0) = x, rem(MIN, -1) = 0.
    Rem,
    /// `x^y` (floats).
    Pow,
    /// Maximum; NaN propagates.
    Max,
    /// Minimum; NaN propagates.
    Min,
    /// `atan2(x, y)` (floats).
    Atan2,
    /// Logical (bool) or bitwise (i32) and.
    And,
    /// Logical (bool) or bitwise (i32) or.
    Or,
}

impl BinaryOp {
    /// Every binary operation.
    pub const ALL: [BinaryOp; 11] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Pow,
        BinaryOp::Max,
        BinaryOp::Min,
        BinaryOp::Atan2,
        BinaryOp::And,
        BinaryOp::Or,
    ];

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::Pow => "pow",
            BinaryOp::Max => "max",
            BinaryOp::Min => "min",
            BinaryOp::Atan2 => "atan2",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
        }
    }

    /// The operation named `name`.
    pub fn from_name(name: &str) -> Option<BinaryOp> {
        BinaryOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The dtypes the operation accepts.
    pub fn domain(self) -> UnaryDomain {
        match self {
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Rem
            | BinaryOp::Max
            | BinaryOp::Min => UnaryDomain::Numeric,
            BinaryOp::Pow | BinaryOp::Atan2 => UnaryDomain::Float,
            BinaryOp::And | BinaryOp::Or => UnaryDomain::Logical,
        }
    }
}

/// An elementwise comparison; the result is `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `==` (NaN is unequal to everything).
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CompareOp {
    /// Every comparison.
    pub const ALL: [CompareOp; 6] =
        [CompareOp::Eq, CompareOp::Ne, CompareOp::Lt, CompareOp::Le, CompareOp::Gt, CompareOp::Ge];

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }

    /// The comparison named `name`.
    pub fn from_name(name: &str) -> Option<CompareOp> {
        CompareOp::ALL.into_iter().find(|op| op.name() == name)
    }
}

/// The shorthands for this family's ops that rules of every family build with.
impl Emitter {
    /// `x + y`.
    pub fn add(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.binary(BinaryOp::Add, x, y)
    }

    /// `x - y`.
    pub fn sub(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.binary(BinaryOp::Sub, x, y)
    }

    /// `x * y` (no equation when one side is a constant one of the other's type).
    pub fn mul(&mut self, x: Value, y: Value) -> Result<Value, String> {
        if self.ty(x) == self.ty(y) && self.ty(x).dtype.is_float() {
            if self.splat(y) == Some(1.0) {
                return Ok(x);
            }
            if self.splat(x) == Some(1.0) {
                return Ok(y);
            }
        }
        self.binary(BinaryOp::Mul, x, y)
    }

    /// `x / y`.
    pub fn div(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.binary(BinaryOp::Div, x, y)
    }

    /// `x & y` (logical on bool, bitwise on i32).
    pub fn and(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.binary(BinaryOp::And, x, y)
    }

    /// `x == y`, a bool result.
    pub fn eq(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.compare(CompareOp::Eq, x, y)
    }

    /// `x < y`, a bool result.
    pub fn lt(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.compare(CompareOp::Lt, x, y)
    }

    /// `x > y`, a bool result.
    pub fn gt(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.compare(CompareOp::Gt, x, y)
    }

    /// `x <= y`, a bool result.
    pub fn le(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.compare(CompareOp::Le, x, y)
    }

    /// `x >= y`, a bool result.
    pub fn ge(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.compare(CompareOp::Ge, x, y)
    }

    /// `select(pred, on_true, on_false)`.
    pub fn select(&mut self, pred: Value, on_true: Value, on_false: Value) -> Result<Value, String> {
        self.op(Prim::Ternary(TernaryOp::Select), &[pred, on_true, on_false])
    }
}

// ---- type rules ----

pub(crate) fn infer_binary(op: BinaryOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 2)?;
    expect_same(op.name(), &inputs[0], &inputs[1])?;
    expect_domain(op.name(), op.domain(), &inputs[0])?;
    Ok(vec![inputs[0].clone()])
}

pub(crate) fn infer_compare(op: CompareOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 2)?;
    expect_same(op.name(), &inputs[0], &inputs[1])?;
    Ok(vec![inputs[0].with_dtype(DType::Bool)])
}

pub(crate) fn infer_select(inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("select", inputs, 3)?;
    let (pred, on_true, on_false) = (&inputs[0], &inputs[1], &inputs[2]);
    if pred.dtype != DType::Bool {
        return Err(format!("select: the predicate must be bool, got {pred}"));
    }
    expect_same("select", on_true, on_false)?;
    if pred.shape != on_true.shape {
        return Err(format!("select: predicate shape differs from the operands: {pred} vs {on_true}"));
    }
    Ok(vec![on_true.clone()])
}

pub(crate) fn infer_clamp(inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("clamp", inputs, 3)?;
    expect_same("clamp", &inputs[0], &inputs[1])?;
    expect_same("clamp", &inputs[1], &inputs[2])?;
    expect_domain("clamp", UnaryDomain::Numeric, &inputs[1])?;
    Ok(vec![inputs[1].clone()])
}

/// The type rule of `select` and `clamp`.
pub(crate) fn infer_ternary(op: TernaryOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    match op {
        TernaryOp::Select => infer_select(inputs),
        TernaryOp::Clamp => infer_clamp(inputs),
    }
}

// ---- differentiation rules (jvp; transpose for the linear primitives) ----

/// `a - b` for optional (symbolically zero when `None`) tangents: `a` when `b` is zero,
/// `-b` when `a` is.
fn sub_optional(em: &mut Emitter, a: Option<Value>, b: Option<Value>) -> Result<Option<Value>, String> {
    match (a, b) {
        (Some(a), Some(b)) => em.sub(a, b).map(Some),
        (a, None) => Ok(a),
        (None, Some(b)) => em.neg(b).map(Some),
    }
}

/// `tangent * factor` when the tangent is not zero (`factor` is built by `make` only
/// then, from primal values: it is not linear in any tangent).
fn scaled(
    em: &mut Emitter,
    tangent: Option<Value>,
    make: impl FnOnce(&mut Emitter) -> Result<Value, String>,
) -> Result<Option<Value>, String> {
    match tangent {
        Some(t) => {
            let factor = make(em)?;
            em.mul(t, factor).map(Some)
        }
        None => Ok(None),
    }
}

/// `select(pred, a, b)` with constants of `like`'s type as the cases.
fn select_consts(em: &mut Emitter, pred: Value, like: Value, a: f64, b: f64) -> Result<Value, String> {
    let on_true = em.full_like(like, a)?;
    let on_false = em.full_like(like, b)?;
    em.select(pred, on_true, on_false)
}

/// JAX's "balanced" weight of operand `x` in `max(x, y)` or `min(x, y)`, whose
/// result is `out`: 1 where only `x` equals the result, 1/2 where both do (a tie), 0
/// elsewhere (also where the result is NaN).
fn balanced_weight(em: &mut Emitter, x_hit: Value, y_hit: Value, like: Value) -> Result<Value, String> {
    let share = select_consts(em, y_hit, like, 0.5, 1.0)?;
    let zero = em.full_like(like, 0.0)?;
    em.select(x_hit, share, zero)
}

/// The jvp rule of the elementwise binary operations; integer and bool results have
/// zero tangents.
///
/// - `add`, `sub`: the sum (difference) of the non-zero tangents.
/// - `mul`: `tx*y + x*ty`; `div`: `tx/y` for `tx` alone, `ty*(-out/y)` for `ty` alone,
///   `(tx - ty*out)/y` for both.
/// - `rem(x, y) = x - y*q` with `q = trunc(x/y)`: `tx - ty*q`. `q` is computed as
///   `round((x - out)/y)` (the quotient of the computed remainder, an integer up to
///   rounding), so that the tangent belongs to the same tooth of the sawtooth as the
///   value even where `x/y` rounds across an integer. It is NaN where `y = 0` (as the
///   value is).
/// - `pow(x, y) = out`: `tx * (y * x^(y-1)) + ty * (log(x) * out)`, as JAX: the `tx`
///   factor is 0 where `y = 0` (`x^0` is constant, and `0 * 0^-1` would be NaN), and
///   the `ty` factor uses `log(1) = 0` where `x = 0` (so `pow(0, y)` for `y > 0` gets 0
///   rather than `-inf * 0 = NaN`). A negative `x` gives a NaN `ty` factor.
/// - `max`, `min`: JAX's balanced rule: where `x` is the result alone the tangent is
///   `tx`, where `y` is, `ty`, and at ties `(tx + ty)/2`; where the result is NaN the
///   tangent is 0 (neither operand equals it).
/// - `atan2(x, y)`: `(tx*y - ty*x) / (x^2 + y^2)`, NaN at `x = y = 0`.
/// - `and`, `or`: zero.
pub(crate) fn jvp_binary(
    em: &mut Emitter,
    op: BinaryOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[x, y], &[out], &[tx, ty]) = (primals, outputs, tangents) else {
        return Err(format!(
            "{}: expects 2 operands, 2 tangents and 1 result, got {}, {} and {}",
            op.name(),
            primals.len(),
            tangents.len(),
            outputs.len()
        ));
    };
    if !em.ty(out).dtype.is_float() || (tx.is_none() && ty.is_none()) {
        return Ok(vec![None]);
    }
    let tangent = match op {
        BinaryOp::Add => add_optional(em, tx, ty)?,
        BinaryOp::Sub => sub_optional(em, tx, ty)?,
        BinaryOp::Mul => {
            let from_x = scaled(em, tx, |_| Ok(y))?;
            let from_y = scaled(em, ty, |_| Ok(x))?;
            add_optional(em, from_x, from_y)?
        }
        BinaryOp::Div => jvp_div(em, y, out, tx, ty)?,
        BinaryOp::Rem => jvp_rem(em, x, y, out, tx, ty)?,
        BinaryOp::Pow => jvp_pow(em, x, y, out, tx, ty)?,
        BinaryOp::Max | BinaryOp::Min => {
            let x_hit = em.compare(CompareOp::Eq, x, out)?;
            let y_hit = em.compare(CompareOp::Eq, y, out)?;
            let from_x = scaled(em, tx, |em| balanced_weight(em, x_hit, y_hit, out))?;
            let from_y = scaled(em, ty, |em| balanced_weight(em, y_hit, x_hit, out))?;
            add_optional(em, from_x, from_y)?
        }
        BinaryOp::Atan2 => jvp_atan2(em, x, y, tx, ty)?,
        BinaryOp::And | BinaryOp::Or => None,
    };
    Ok(vec![tangent])
}

/// The tangent of `out = div(x, y)`: `tx/y`, `ty*(-out/y)` or `(tx - ty*out)/y`, so that
/// a tangent of `x` alone costs one division.
fn jvp_div(
    em: &mut Emitter,
    y: Value,
    out: Value,
    tx: Option<Value>,
    ty: Option<Value>,
) -> Result<Option<Value>, String> {
    Ok(match (tx, ty) {
        (Some(tx), None) => Some(em.div(tx, y)?),
        (None, Some(ty)) => scaled(em, Some(ty), |em| {
            let minus_out = em.neg(out)?;
            em.div(minus_out, y)
        })?,
        (Some(tx), Some(ty)) => {
            let moved = em.mul(ty, out)?;
            let numerator = em.sub(tx, moved)?;
            Some(em.div(numerator, y)?)
        }
        (None, None) => None,
    })
}

/// The tangent of `out = rem(x, y)`: `tx - ty*q`, with the quotient `q` recovered from
/// the computed remainder (see [`jvp_binary`]).
fn jvp_rem(
    em: &mut Emitter,
    x: Value,
    y: Value,
    out: Value,
    tx: Option<Value>,
    ty: Option<Value>,
) -> Result<Option<Value>, String> {
    let quotient = |em: &mut Emitter| {
        let multiple = em.sub(x, out)?;
        let ratio = em.div(multiple, y)?;
        em.unary(UnaryOp::Round, ratio)
    };
    Ok(match (tx, ty) {
        (tx, None) => tx,
        (None, Some(ty)) => scaled(em, Some(ty), |em| {
            let q = quotient(em)?;
            em.neg(q)
        })?,
        (Some(tx), Some(ty)) => {
            let q = quotient(em)?;
            let moved = em.mul(ty, q)?;
            Some(em.sub(tx, moved)?)
        }
    })
}

/// The tangent of `out = pow(x, y)`: `tx * (y * x^(y-1)) + ty * (log(x) * out)`, each
/// factor guarded where it would make a NaN the value does not have (see [`jvp_binary`]).
fn jvp_pow(
    em: &mut Emitter,
    x: Value,
    y: Value,
    out: Value,
    tx: Option<Value>,
    ty: Option<Value>,
) -> Result<Option<Value>, String> {
    let from_x = scaled(em, tx, |em| {
        let zero = em.full_like(y, 0.0)?;
        let y_is_zero = em.compare(CompareOp::Eq, y, zero)?;
        let one = em.full_like(y, 1.0)?;
        let safe_y = em.select(y_is_zero, one, y)?;
        let y_minus_one = em.sub(y, one)?;
        let power = em.binary(BinaryOp::Pow, x, y_minus_one)?;
        let slope = em.mul(safe_y, power)?;
        em.select(y_is_zero, zero, slope)
    })?;
    let from_y = scaled(em, ty, |em| {
        let zero = em.full_like(x, 0.0)?;
        let x_is_zero = em.compare(CompareOp::Eq, x, zero)?;
        let one = em.full_like(x, 1.0)?;
        let safe_x = em.select(x_is_zero, one, x)?;
        let log = em.unary(UnaryOp::Log, safe_x)?;
        em.mul(log, out)
    })?;
    add_optional(em, from_x, from_y)
}

/// The tangent of `atan2(x, y)`: `(tx*y - ty*x) / (x^2 + y^2)`.
fn jvp_atan2(
    em: &mut Emitter,
    x: Value,
    y: Value,
    tx: Option<Value>,
    ty: Option<Value>,
) -> Result<Option<Value>, String> {
    let from_x = scaled(em, tx, |_| Ok(y))?;
    let from_y = scaled(em, ty, |_| Ok(x))?;
    let numerator = sub_optional(em, from_x, from_y)?;
    Ok(match numerator {
        Some(numerator) => {
            let xx = em.mul(x, x)?;
            let yy = em.mul(y, y)?;
            let denominator = em.add(xx, yy)?;
            Some(em.div(numerator, denominator)?)
        }
        None => None,
    })
}

/// The jvp rule of `select` and `clamp`.
pub(crate) fn jvp_ternary(
    em: &mut Emitter,
    op: TernaryOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        TernaryOp::Select => jvp_select(em, primals, outputs, tangents),
        TernaryOp::Clamp => jvp_clamp(em, primals, outputs, tangents),
    }
}

/// The jvp rule of `select(pred, on_true, on_false)`: `select(pred, t_true, t_false)`,
/// a zero case tangent instantiated as zeros (the predicate is bool: no tangent).
pub(crate) fn jvp_select(
    em: &mut Emitter,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[pred, on_true, on_false], &[out], &[_, t_true, t_false]) = (primals, outputs, tangents) else {
        return Err(format!("select: expects 3 operands and tangents, got {} and {}", primals.len(), tangents.len()));
    };
    if !em.ty(out).dtype.is_float() || (t_true.is_none() && t_false.is_none()) {
        return Ok(vec![None]);
    }
    let t_true = instantiate(em, t_true, on_true)?;
    let t_false = instantiate(em, t_false, on_false)?;
    Ok(vec![Some(em.select(pred, t_true, t_false)?)])
}

/// The jvp rule of `clamp(lo, x, hi) = min(max(x, lo), hi)`: the tangent of the operand
/// the result is, `select(hi < x or hi < lo, t_hi, select(x < lo, t_lo, t_x))`, zero
/// tangents instantiated only where a `select` needs them.
///
/// At ties (`x = lo` or `x = hi`) the tangent is `t_x` (JAX's rule gives 0 there), and
/// where `lo > hi` (the result is `hi`) it is `t_hi`. Where `x` is NaN it is `t_x`
/// (comparisons with NaN are false).
pub(crate) fn jvp_clamp(
    em: &mut Emitter,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[lo, x, hi], &[out], &[t_lo, t_x, t_hi]) = (primals, outputs, tangents) else {
        return Err(format!("clamp: expects 3 operands and tangents, got {} and {}", primals.len(), tangents.len()));
    };
    if !em.ty(out).dtype.is_float() {
        return Ok(vec![None]);
    }
    let below = match (t_lo, t_x) {
        (None, None) => None,
        (t_lo, t_x) => {
            let take_lo = em.compare(CompareOp::Lt, x, lo)?;
            let t_lo = instantiate(em, t_lo, lo)?;
            let t_x = instantiate(em, t_x, x)?;
            Some(em.select(take_lo, t_lo, t_x)?)
        }
    };
    let tangent = match (t_hi, below) {
        (None, None) => None,
        (t_hi, below) => {
            let above_x = em.compare(CompareOp::Lt, hi, x)?;
            let above_lo = em.compare(CompareOp::Lt, hi, lo)?;
            let take_hi = em.binary(BinaryOp::Or, above_x, above_lo)?;
            let t_hi = instantiate(em, t_hi, hi)?;
            let below = instantiate(em, below, x)?;
            Some(em.select(take_hi, t_hi, below)?)
        }
    };
    Ok(vec![tangent])
}

/// The transpose rule of a binary operation. `add` and `sub` are linear in both
/// operands jointly (`add` passes the cotangent to each linear operand, `sub` negates
/// it for the subtrahend); `mul` is linear in one operand when the other is a residual
/// (`ct * r`); `div` is linear in its numerator when the denominator is a residual
/// (`ct / r`). Every other operation, and `mul`/`div` used in a non-linear way, is an
/// error.
pub(crate) fn transpose_binary(
    em: &mut Emitter,
    op: BinaryOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let ([x, y], [ct]) = (inputs, cts) else {
        return Err(format!(
            "{}: transpose expects 2 inputs and 1 cotangent, got {} and {}",
            op.name(),
            inputs.len(),
            cts.len()
        ));
    };
    match op {
        BinaryOp::Add | BinaryOp::Sub => {
            let Some(ct) = *ct else {
                return Ok(vec![None, None]);
            };
            let ct_y = match (y.is_linear(), op) {
                (true, BinaryOp::Sub) => Some(em.neg(ct)?),
                (true, _) => Some(ct),
                (false, _) => None,
            };
            Ok(vec![x.is_linear().then_some(ct), ct_y])
        }
        BinaryOp::Mul => match (x, y) {
            (LinearIn::Linear(_), LinearIn::Linear(_)) => {
                Err("mul of two linear operands is not linear (one operand must be a residual), \
                     so it has no transpose rule"
                    .into())
            }
            (LinearIn::Linear(_), LinearIn::Residual(r)) => Ok(vec![scale(em, BinaryOp::Mul, *ct, *r)?, None]),
            (LinearIn::Residual(r), LinearIn::Linear(_)) => Ok(vec![None, scale(em, BinaryOp::Mul, *ct, *r)?]),
            (LinearIn::Residual(_), LinearIn::Residual(_)) => Ok(vec![None, None]),
        },
        BinaryOp::Div => match (x, y) {
            (_, LinearIn::Linear(_)) => {
                Err("div with a linear denominator is not linear (only the numerator may be linear), \
                     so it has no transpose rule"
                    .into())
            }
            (LinearIn::Linear(_), LinearIn::Residual(r)) => Ok(vec![scale(em, BinaryOp::Div, *ct, *r)?, None]),
            (LinearIn::Residual(_), LinearIn::Residual(_)) => Ok(vec![None, None]),
        },
        BinaryOp::Rem
        | BinaryOp::Pow
        | BinaryOp::Max
        | BinaryOp::Min
        | BinaryOp::Atan2
        | BinaryOp::And
        | BinaryOp::Or => Err(format!("{} is not linear, so it has no transpose rule", op.name())),
    }
}

/// `op(ct, r)` for a non-zero cotangent; a zero stays symbolic.
fn scale(em: &mut Emitter, op: BinaryOp, ct: Option<Value>, r: Value) -> Result<Option<Value>, String> {
    ct.map(|ct| em.binary(op, ct, r)).transpose()
}

/// The transpose rule of `select` (linear in its cases); `clamp` is not linear.
pub(crate) fn transpose_ternary(
    em: &mut Emitter,
    op: TernaryOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        TernaryOp::Select => transpose_select(em, inputs, cts),
        TernaryOp::Clamp => Err(super::ad::not_linear(op.name())),
    }
}

/// The transpose rule of `select(p, a, b)` with a residual predicate: `a` gets the
/// cotangent where `p` holds and zero elsewhere, `b` the other way round.
pub(crate) fn transpose_select(
    em: &mut Emitter,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let ([pred, on_true, on_false], [ct]) = (inputs, cts) else {
        return Err(format!(
            "select: transpose expects 3 inputs and 1 cotangent, got {} and {}",
            inputs.len(),
            cts.len()
        ));
    };
    let pred = pred.residual("the predicate of select")?;
    let Some(ct) = *ct else {
        return Ok(vec![None, None, None]);
    };
    if !on_true.is_linear() && !on_false.is_linear() {
        return Ok(vec![None, None, None]);
    }
    let ty = em.ty(ct).clone();
    let zeros = em.zeros(&ty)?;
    let ct_true = if on_true.is_linear() { Some(em.select(pred, ct, zeros)?) } else { None };
    let ct_false = if on_false.is_linear() { Some(em.select(pred, zeros, ct)?) } else { None };
    Ok(vec![None, ct_true, ct_false])
}

/// An elementwise primitive of three operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TernaryOp {
    /// `select(pred, on_true, on_false)`.
    Select,
    /// `clamp(lo, x, hi)`.
    Clamp,
}

impl TernaryOp {
    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            TernaryOp::Select => "select",
            TernaryOp::Clamp => "clamp",
        }
    }

    /// The operation named `name`.
    pub fn from_name(name: &str) -> Option<TernaryOp> {
        [TernaryOp::Select, TernaryOp::Clamp].into_iter().find(|op| op.name() == name)
    }
}

/// The property-table row of a binary op: `div`, `rem`, `pow` and `atan2` are
/// expensive; `pow` and `atan2` count as transcendentals and, with `rem`, are
/// approximated by a backend.
pub(crate) fn props(op: BinaryOp) -> super::props::Props {
    use super::props::{Flops, Props};
    let base = Props::elementwise(op.domain());
    match op {
        BinaryOp::Pow | BinaryOp::Atan2 => {
            Props { expensive: true, flops: Flops::Transcendental, inexact: true, ..base }
        }
        BinaryOp::Rem => Props { expensive: true, inexact: true, ..base },
        BinaryOp::Div => Props { expensive: true, ..base },
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Max
        | BinaryOp::Min
        | BinaryOp::And
        | BinaryOp::Or => base,
    }
}

/// The property-table row of `select` and `clamp` (a max and a min: two flops).
pub(crate) fn ternary_props(op: TernaryOp) -> super::props::Props {
    use super::props::{Flops, Props};
    let base = Props::elementwise(UnaryDomain::Any);
    match op {
        TernaryOp::Select => base,
        TernaryOp::Clamp => Props { flops: Flops::PerOutput(2), domain: UnaryDomain::Numeric, ..base },
    }
}

#[cfg(test)]
#[path = "tests/binary.rs"]
mod tests;
