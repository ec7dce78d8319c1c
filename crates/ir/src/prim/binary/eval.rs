//! The reference evaluation of the binary, comparison and ternary families: the
//! interpreter's definition of each op on f32, f64, i32 and bool buffers (16-bit floats
//! arrive widened to f32).

use super::{BinaryOp, CompareOp, TernaryOp};
use crate::prim::elements::{Elem, Float, Num, array, bad_dtype, div_i32, rem_i32, same_shape, zip_map};
use ferrax_array::{Array, Data};

/// Evaluates a binary operation elementwise.
///
/// i32 `add`/`sub`/`mul` wrap; i32 `div`/`rem` truncate toward zero and never trap
/// (`x / 0 = -1`, `rem(x, 0) = x`, `i32::MIN / -1 = i32::MIN`, `rem(i32::MIN, -1) = 0`).
/// Float `rem` is C `fmod` (the sign of `x`), `pow` is `powf`, `atan2(x, y)` is the
/// four-quadrant `atan(x / y)`. `max`/`min` return NaN when either operand is NaN and
/// order signed zeros (`max(-0, +0) = +0`, `min(-0, +0) = -0`). `and`/`or` are logical
/// on bool and bitwise on i32.
pub(crate) fn eval_binary(op: BinaryOp, x: &Array, y: &Array) -> Result<Array, String> {
    same_shape(op.name(), x, y)?;
    let data = match (x.data(), y.data()) {
        (Data::F32(a), Data::F32(b)) => binary_float(op, a, b),
        (Data::F64(a), Data::F64(b)) => binary_float(op, a, b),
        (Data::I32(a), Data::I32(b)) => binary_i32(op, a, b),
        (Data::Bool(a), Data::Bool(b)) => binary_bool(op, a, b),
        _ => None,
    };
    array(x.shape(), data.ok_or_else(|| bad_pair(op.name(), x, y))?)
}

/// The error for operand dtypes a rule does not handle (the verifier rejects these).
fn bad_pair(op: &str, x: &Array, y: &Array) -> String {
    if x.dtype() == y.dtype() {
        bad_dtype(op, x.dtype())
    } else {
        format!("{op}: operand dtypes differ: {} vs {}", x.dtype(), y.dtype())
    }
}

/// A binary operation over float elements; `None` for the logical ones.
fn binary_float<T: Float>(op: BinaryOp, a: &[T], b: &[T]) -> Option<Data> {
    let out = match op {
        BinaryOp::Add => zip_map(a, b, T::add),
        BinaryOp::Sub => zip_map(a, b, T::sub),
        BinaryOp::Mul => zip_map(a, b, T::mul),
        BinaryOp::Div => zip_map(a, b, |p, q| p / q),
        BinaryOp::Rem => zip_map(a, b, T::fmod),
        BinaryOp::Pow => zip_map(a, b, T::powf),
        BinaryOp::Max => zip_map(a, b, T::max),
        BinaryOp::Min => zip_map(a, b, T::min),
        BinaryOp::Atan2 => zip_map(a, b, T::atan2),
        BinaryOp::And | BinaryOp::Or => return None,
    };
    Some(T::into_data(out))
}

/// A binary operation over i32 elements; `None` for the float-only ones.
fn binary_i32(op: BinaryOp, a: &[i32], b: &[i32]) -> Option<Data> {
    let out = match op {
        BinaryOp::Add => zip_map(a, b, i32::wrapping_add),
        BinaryOp::Sub => zip_map(a, b, i32::wrapping_sub),
        BinaryOp::Mul => zip_map(a, b, i32::wrapping_mul),
        BinaryOp::Div => zip_map(a, b, div_i32),
        BinaryOp::Rem => zip_map(a, b, rem_i32),
        BinaryOp::Max => zip_map(a, b, Ord::max),
        BinaryOp::Min => zip_map(a, b, Ord::min),
        BinaryOp::And => zip_map(a, b, |p, q| p & q),
        BinaryOp::Or => zip_map(a, b, |p, q| p | q),
        BinaryOp::Pow | BinaryOp::Atan2 => return None,
    };
    Some(Data::I32(out))
}

/// A binary operation over bool elements: only `and` and `or`.
fn binary_bool(op: BinaryOp, a: &[bool], b: &[bool]) -> Option<Data> {
    let out = match op {
        BinaryOp::And => zip_map(a, b, |p, q| p & q),
        BinaryOp::Or => zip_map(a, b, |p, q| p | q),
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Div
        | BinaryOp::Rem
        | BinaryOp::Pow
        | BinaryOp::Max
        | BinaryOp::Min
        | BinaryOp::Atan2 => return None,
    };
    Some(Data::Bool(out))
}

/// Evaluates a comparison elementwise; the result is bool. Floats compare as IEEE
/// values: NaN is unordered (only `ne` is true) and `-0 == +0`; bools order
/// `false < true`.
pub(crate) fn eval_compare(op: CompareOp, x: &Array, y: &Array) -> Result<Array, String> {
    same_shape(op.name(), x, y)?;
    let out = match (x.data(), y.data()) {
        (Data::F32(a), Data::F32(b)) => compare_slices(op, a, b),
        (Data::F64(a), Data::F64(b)) => compare_slices(op, a, b),
        (Data::I32(a), Data::I32(b)) => compare_slices(op, a, b),
        (Data::Bool(a), Data::Bool(b)) => compare_slices(op, a, b),
        _ => return Err(bad_pair(op.name(), x, y)),
    };
    array(x.shape(), Data::Bool(out))
}

/// Compares corresponding elements.
fn compare_slices<T: Elem>(op: CompareOp, a: &[T], b: &[T]) -> Vec<bool> {
    match op {
        CompareOp::Eq => zip_map(a, b, |p, q| p == q),
        CompareOp::Ne => zip_map(a, b, |p, q| p != q),
        CompareOp::Lt => zip_map(a, b, |p, q| p < q),
        CompareOp::Le => zip_map(a, b, |p, q| p <= q),
        CompareOp::Gt => zip_map(a, b, |p, q| p > q),
        CompareOp::Ge => zip_map(a, b, |p, q| p >= q),
    }
}

/// Evaluates `select(pred, on_true, on_false)`: element `i` is `on_true[i]` where
/// `pred[i]` holds and `on_false[i]` elsewhere.
pub(crate) fn eval_select(pred: &Array, on_true: &Array, on_false: &Array) -> Result<Array, String> {
    same_shape("select", pred, on_true)?;
    same_shape("select", on_true, on_false)?;
    let Data::Bool(p) = pred.data() else {
        return Err(format!("select: the predicate must be bool, got {}", pred.dtype()));
    };
    let data = match (on_true.data(), on_false.data()) {
        (Data::F32(t), Data::F32(f)) => Data::F32(select_slices(p, t, f)),
        (Data::F64(t), Data::F64(f)) => Data::F64(select_slices(p, t, f)),
        (Data::I32(t), Data::I32(f)) => Data::I32(select_slices(p, t, f)),
        (Data::Bool(t), Data::Bool(f)) => Data::Bool(select_slices(p, t, f)),
        _ => return Err(bad_pair("select", on_true, on_false)),
    };
    array(on_true.shape(), data)
}

/// Picks from `t` where `p` holds, else from `f`.
fn select_slices<T: Copy>(p: &[bool], t: &[T], f: &[T]) -> Vec<T> {
    p.iter().zip(t.iter().zip(f)).map(|(&c, (&a, &b))| if c { a } else { b }).collect()
}

/// Evaluates `clamp(lo, x, hi) = min(max(x, lo), hi)` elementwise, with the NaN
/// propagation and signed-zero order of `max`/`min`; where `lo > hi` the result is `hi`.
pub(crate) fn eval_clamp(lo: &Array, x: &Array, hi: &Array) -> Result<Array, String> {
    same_shape("clamp", lo, x)?;
    same_shape("clamp", x, hi)?;
    let data = match (lo.data(), x.data(), hi.data()) {
        (Data::F32(l), Data::F32(v), Data::F32(h)) => Data::F32(clamp_slices(l, v, h)),
        (Data::F64(l), Data::F64(v), Data::F64(h)) => Data::F64(clamp_slices(l, v, h)),
        (Data::I32(l), Data::I32(v), Data::I32(h)) => Data::I32(clamp_slices(l, v, h)),
        _ if lo.dtype() != x.dtype() => return Err(bad_pair("clamp", lo, x)),
        _ if hi.dtype() != x.dtype() => return Err(bad_pair("clamp", x, hi)),
        _ => return Err(bad_dtype("clamp", x.dtype())),
    };
    array(x.shape(), data)
}

/// `min(max(v, l), h)` per element.
fn clamp_slices<T: Num>(l: &[T], v: &[T], h: &[T]) -> Vec<T> {
    v.iter().zip(l.iter().zip(h)).map(|(&a, (&lo, &hi))| T::min(T::max(a, lo), hi)).collect()
}

/// Evaluates a binary op on its operands.
pub(crate) fn eval(op: BinaryOp, a: &[&Array]) -> Result<Array, String> {
    let [x, y] = crate::prim::operands(a)?;
    eval_binary(op, x, y)
}

/// Evaluates a comparison on its operands.
pub(crate) fn eval_comparison(op: CompareOp, a: &[&Array]) -> Result<Array, String> {
    let [x, y] = crate::prim::operands(a)?;
    eval_compare(op, x, y)
}

/// Evaluates `select` or `clamp` on its operands.
pub(crate) fn eval_ternary(op: TernaryOp, a: &[&Array]) -> Result<Array, String> {
    let [a, b, c] = crate::prim::operands(a)?;
    match op {
        TernaryOp::Select => eval_select(a, b, c),
        TernaryOp::Clamp => eval_clamp(a, b, c),
    }
}
