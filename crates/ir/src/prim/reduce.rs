//! Reductions: `reduce_sum`, `reduce_max`, `reduce_min`, `reduce_prod`, `argmax`,
//! `argmin`, `cumsum`, `cummax`, `cummin`. A reduction over zero elements gives the identity.

use super::ad::LinearIn;
use super::elements::{Num, array, axes_last_perm, bad_dtype, permute};
use super::unary::{UnaryDomain, expect_domain};
use super::{Prim, check_axes, check_axis, expect_arity, sum_order};
use crate::Type;
use crate::attr::AttrVisitor;
use crate::{Emitter, Value};
use ferrax_array::{Array, DType, Data, Shape};

/// A reduction over axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum (identity 0).
    Sum,
    /// Maximum (identity -inf / i32::MIN); NaN propagates.
    Max,
    /// Minimum (identity +inf / i32::MAX); NaN propagates.
    Min,
    /// Product (identity 1).
    Prod,
}

impl ReduceOp {
    /// Every reduction.
    pub const ALL: [ReduceOp; 4] = [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod];

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "reduce_sum",
            ReduceOp::Max => "reduce_max",
            ReduceOp::Min => "reduce_min",
            ReduceOp::Prod => "reduce_prod",
        }
    }

    /// The reduction named `name`.
    pub fn from_name(name: &str) -> Option<ReduceOp> {
        ReduceOp::ALL.into_iter().find(|op| op.name() == name)
    }
}

/// `argmax` or `argmin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgOp {
    /// Index of the first maximum (a NaN counts as the maximum).
    Argmax,
    /// Index of the first minimum (a NaN counts as the minimum).
    Argmin,
}

impl ArgOp {
    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            ArgOp::Argmax => "argmax",
            ArgOp::Argmin => "argmin",
        }
    }
}

// ---- type rules ----

pub(crate) fn infer_reduce(op: ReduceOp, axes: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 1)?;
    let x = &inputs[0];
    expect_domain(op.name(), UnaryDomain::Numeric, x)?;
    check_axes(op.name(), "axis", axes, x.rank())?;
    let shape: Shape = (0..x.rank()).filter(|a| !axes.contains(a)).map(|a| x.shape[a]).collect();
    Ok(vec![Type { dtype: x.dtype, shape }])
}

pub(crate) fn infer_arg_reduce(
    op: ArgOp,
    axis: usize,
    index_dtype: DType,
    inputs: &[Type],
) -> Result<Vec<Type>, String> {
    expect_arity(op.name(), inputs, 1)?;
    let x = &inputs[0];
    expect_domain(op.name(), UnaryDomain::Numeric, x)?;
    check_axis(op.name(), "axis", axis, x.rank())?;
    if x.shape[axis] == 0 {
        return Err(format!("{}: axis {axis} of {x} has no elements", op.name()));
    }
    if index_dtype != DType::I32 {
        return Err(format!("{}: index_dtype must be i32, got {index_dtype}", op.name()));
    }
    let shape: Shape = (0..x.rank()).filter(|&a| a != axis).map(|a| x.shape[a]).collect();
    Ok(vec![Type { dtype: index_dtype, shape }])
}

/// The type rule of the prefix scans (`cumsum`, `cummax`, `cummin`): one numeric
/// operand, an axis inside it, the operand's type out.
pub(crate) fn infer_cumulative(op: &str, axis: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity(op, inputs, 1)?;
    expect_domain(op, UnaryDomain::Numeric, &inputs[0])?;
    check_axis(op, "axis", axis, inputs[0].rank())?;
    Ok(vec![inputs[0].clone()])
}

/// The type rule of a reduction op.
pub(crate) fn infer(op: &ReductionOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    match op {
        ReductionOp::Reduce { op, axes } => infer_reduce(*op, axes, inputs),
        ReductionOp::ArgReduce { op, axis, index_dtype } => infer_arg_reduce(*op, *axis, *index_dtype, inputs),
        ReductionOp::Cumsum { axis, reverse: _ }
        | ReductionOp::Cummax { axis, reverse: _ }
        | ReductionOp::Cummin { axis, reverse: _ } => infer_cumulative(op.name(), *axis, inputs),
    }
}

// ---- evaluation (the reference interpreter's rules) ----

/// Evaluates a reduction over `axes`, which are removed from the shape (an empty list
/// copies the operand; all axes give a scalar).
///
/// Order of evaluation (the interpreter is the executable definition): each result
/// element combines the terms of its reduced sub-array (the reduced axes in increasing
/// order, extent-1 axes included) starting from the identity (0, 1, -inf/+inf,
/// `i32::MIN`/`i32::MAX`), in the element type (i32 wraps). A float `reduce_sum` or
/// `reduce_prod` uses the blocked pairwise order of [`super::sum_order`]: each row of the
/// last reduced axis is cut into blocks of 1024 elements, each block is summed into
/// `4·w` interleaved slots (w = 4 lanes for f32, 2 for f64) combined as
/// `((a0∘a1)∘(a2∘a3))`, then lanes left to right, then the `L mod w` tail, and the
/// blocks, then the slices along every other reduced axis, are combined pairwise (split at
/// the largest power of two below the count). The order depends only on the extents, and
/// the JIT's vector, scalar and chunked reduction loops follow it bit for bit (its
/// outer-axis loop keeps a left fold). Its error is at most `γ_d·Σ|x_i|` with
/// `d = 1024/(4w) + w + 4 + Σ_j ⌈log2 n_j⌉` (`n_j` the items of each pairwise level),
/// `γ_d = d·u/(1-d·u)`, `u = 2^-24` (f32) or `2^-53` (f64): for one f32 row of `n`
/// elements `d <= 72 + ⌈log2⌈n/1024⌉⌉`, against the `n - 1` of a left fold (2×10^7 f32
/// ones sum to 2×10^7, where a left fold stalls at 2^24).
/// Max, min and every i32 reduction fold their terms left to right in C order (any
/// order gives the same value). So a sum of `-0.0` alone is `+0.0`, and zero elements give
/// the identity. `reduce_max`/`reduce_min` propagate NaN and order signed zeros as the
/// binary `max`/`min` do.
pub(crate) fn eval_reduce(op: ReduceOp, axes: &[usize], x: &Array) -> Result<Array, String> {
    check_axes(op.name(), "axis", axes, x.rank())?;
    if axes.is_empty() {
        return Ok(x.clone());
    }
    let mut sorted = axes.to_vec();
    sorted.sort_unstable();
    let kept: Shape = (0..x.rank()).filter(|a| !axes.contains(a)).map(|a| x.shape()[a]).collect();
    let data = match x.data() {
        Data::F32(v) => Data::F32(reduce_slice(op, v, x.shape(), &sorted, DType::F32)),
        Data::F64(v) => Data::F64(reduce_slice(op, v, x.shape(), &sorted, DType::F64)),
        Data::I32(v) => Data::I32(reduce_slice(op, v, x.shape(), &sorted, DType::I32)),
        Data::Bool(_) | Data::BF16(_) | Data::F16(_) => return Err(bad_dtype(op.name(), x.dtype())),
    };
    array(&kept, data)
}

/// Reduces `v` (of `shape`, elements of `dtype`) over the increasing `axes`, one result
/// per kept index.
fn reduce_slice<T: Num>(op: ReduceOp, v: &[T], shape: &[usize], axes: &[usize], dtype: DType) -> Vec<T> {
    let moved = permute(v, shape, &axes_last_perm(shape.len(), axes));
    let dims: Vec<usize> = axes.iter().map(|&a| shape[a]).collect();
    let inner: usize = dims.iter().product();
    let outer: usize = (0..shape.len()).filter(|a| !axes.contains(a)).map(|a| shape[a]).product();
    let float = dtype.is_float();
    match op {
        ReduceOp::Sum if float => ordered_rows(&moved, outer, &dims, dtype, T::ZERO, T::add),
        ReduceOp::Prod if float => ordered_rows(&moved, outer, &dims, dtype, T::ONE, T::mul),
        ReduceOp::Sum => fold_rows(&moved, outer, inner, T::ZERO, T::add),
        ReduceOp::Prod => fold_rows(&moved, outer, inner, T::ONE, T::mul),
        ReduceOp::Max => fold_rows(&moved, outer, inner, T::LOWEST, T::max),
        ReduceOp::Min => fold_rows(&moved, outer, inner, T::HIGHEST, T::min),
    }
}

/// Reduces each of the `outer` consecutive sub-arrays of extents `dims` in the blocked
/// pairwise order of [`super::sum_order`].
fn ordered_rows<T: Num>(v: &[T], outer: usize, dims: &[usize], dtype: DType, init: T, f: fn(T, T) -> T) -> Vec<T> {
    let inner: usize = dims.iter().product();
    let w = sum_order::lanes(dtype);
    (0..outer).map(|r| sum_order::ordered(&v[r * inner..(r + 1) * inner], dims, w, init, &f)).collect()
}

/// Folds each of the `outer` consecutive rows of length `inner` from `init`, in order.
fn fold_rows<T: Copy>(v: &[T], outer: usize, inner: usize, init: T, f: impl Fn(T, T) -> T) -> Vec<T> {
    (0..outer).map(|r| v[r * inner..(r + 1) * inner].iter().fold(init, |acc, &a| f(acc, a))).collect()
}

/// Evaluates `argmax`/`argmin` along `axis` (removed from the shape): the i32 index of
/// the first extreme element; a NaN counts as the extreme, so the first NaN wins.
/// Equal values (including `-0.0` and `+0.0`) keep the earlier index.
pub(crate) fn eval_arg_reduce(op: ArgOp, axis: usize, x: &Array) -> Result<Array, String> {
    check_axis(op.name(), "axis", axis, x.rank())?;
    let n = x.shape()[axis];
    if n == 0 || i32::try_from(n - 1).is_err() {
        return Err(format!("{}: axis {axis} of length {n} has no i32 index of an element", op.name()));
    }
    let kept: Shape = (0..x.rank()).filter(|&a| a != axis).map(|a| x.shape()[a]).collect();
    let out = match x.data() {
        Data::F32(v) => arg_slice(op, v, x.shape(), axis),
        Data::F64(v) => arg_slice(op, v, x.shape(), axis),
        Data::I32(v) => arg_slice(op, v, x.shape(), axis),
        Data::Bool(_) | Data::BF16(_) | Data::F16(_) => return Err(bad_dtype(op.name(), x.dtype())),
    };
    array(&kept, Data::I32(out))
}

/// The index of the first extreme of every row along `axis` of `v` (of `shape`).
fn arg_slice<T: Num>(op: ArgOp, v: &[T], shape: &[usize], axis: usize) -> Vec<i32> {
    let moved = permute(v, shape, &axes_last_perm(shape.len(), &[axis]));
    let n = shape[axis];
    let rows = moved.chunks_exact(n);
    match op {
        ArgOp::Argmax => rows.map(|row| first_extreme(row, |a, b| a > b)).collect(),
        ArgOp::Argmin => rows.map(|row| first_extreme(row, |a, b| a < b)).collect(),
    }
}

/// The index of the first NaN of `row`, else of the first element no other element of
/// `row` is `better` than. The caller checks that every index fits i32.
fn first_extreme<T: Num>(row: &[T], better: impl Fn(T, T) -> bool) -> i32 {
    let mut best = 0;
    for (i, &a) in row.iter().enumerate() {
        if a.is_nan() {
            return i as i32;
        }
        if better(a, row[best]) {
            best = i;
        }
    }
    best as i32
}

/// Evaluates the inclusive prefix sum along `axis`: element `k` is the sum of elements
/// `0..=k` (with `reverse`, of `k..n`). Each running sum starts from 0 and adds the
/// elements one at a time in the element type (i32 wraps): a sequential order, so for
/// floats the last partial sum may differ from `reduce_sum` over the axis (blocked and
/// pairwise, see [`eval_reduce`]) by the two orders' rounding (a lone `-0.0` sums to `+0.0`).
pub(crate) fn eval_cumsum(axis: usize, reverse: bool, x: &Array) -> Result<Array, String> {
    check_axis("cumsum", "axis", axis, x.rank())?;
    let shape = x.shape();
    let (n, inner) = (shape[axis], shape[axis + 1..].iter().product());
    let data = match x.data() {
        Data::F32(v) => Data::F32(cumsum_slice(v, n, inner, reverse)),
        Data::F64(v) => Data::F64(cumsum_slice(v, n, inner, reverse)),
        Data::I32(v) => Data::I32(cumsum_slice(v, n, inner, reverse)),
        Data::Bool(_) | Data::BF16(_) | Data::F16(_) => return Err(bad_dtype("cumsum", x.dtype())),
    };
    array(shape, data)
}

/// Evaluates the running maximum (`max`) or minimum along `axis`: element `k` is the
/// extreme of elements `0..=k` (with `reverse`, of `k..n`), as `jax.lax.cummax` and
/// `cummin`. A NaN propagates to every later element; `max(-0, +0)` is `+0` and
/// `min(-0, +0)` is `-0`, as `reduce_max`/`reduce_min` and the binary `max`/`min`.
pub(crate) fn eval_cum_extreme(max: bool, axis: usize, reverse: bool, x: &Array) -> Result<Array, String> {
    let op = if max { "cummax" } else { "cummin" };
    check_axis(op, "axis", axis, x.rank())?;
    let shape = x.shape();
    let (n, inner) = (shape[axis], shape[axis + 1..].iter().product());
    fn running<T: Num>(v: &[T], n: usize, inner: usize, reverse: bool, max: bool) -> Vec<T> {
        scan_slice(v, n, inner, reverse, if max { T::max } else { T::min })
    }
    let data = match x.data() {
        Data::F32(v) => Data::F32(running(v, n, inner, reverse, max)),
        Data::F64(v) => Data::F64(running(v, n, inner, reverse, max)),
        Data::I32(v) => Data::I32(running(v, n, inner, reverse, max)),
        Data::Bool(_) | Data::BF16(_) | Data::F16(_) => return Err(bad_dtype(op, x.dtype())),
    };
    array(shape, data)
}

/// Running `combine` over the middle axis of `v` seen as `[outer, n, inner]`, row by
/// row in the scan's direction.
fn scan_slice<T: Num>(v: &[T], n: usize, inner: usize, reverse: bool, combine: fn(T, T) -> T) -> Vec<T> {
    let mut out = v.to_vec();
    if out.is_empty() {
        return out;
    }
    for block in out.chunks_exact_mut(n * inner) {
        for step in 1..n {
            let (from, to) = if reverse { (n - step, n - step - 1) } else { (step - 1, step) };
            combine_row(block, from, to, inner, combine);
        }
    }
    out
}

/// Prefix sums over the middle axis of `v` seen as `[outer, n, inner]`.
fn cumsum_slice<T: Num>(v: &[T], n: usize, inner: usize, reverse: bool) -> Vec<T> {
    let mut out = v.to_vec();
    if out.is_empty() {
        return out;
    }
    for block in out.chunks_exact_mut(n * inner) {
        let first = if reverse { n - 1 } else { 0 };
        block[first * inner..(first + 1) * inner].iter_mut().for_each(|e| *e = T::add(T::ZERO, *e));
        for step in 1..n {
            let (from, to) = if reverse { (n - step, n - step - 1) } else { (step - 1, step) };
            combine_row(block, from, to, inner, T::add);
        }
    }
    out
}

/// Combines row `from` of `block` (rows of length `inner`) into the adjacent row `to`:
/// `to = combine(from, to)`.
fn combine_row<T: Num>(block: &mut [T], from: usize, to: usize, inner: usize, combine: fn(T, T) -> T) {
    let (low, high) = block.split_at_mut(from.max(to) * inner);
    let (src, dst) =
        if from < to { (&low[from * inner..], &mut high[..inner]) } else { (&high[..inner], &mut low[to * inner..]) };
    dst.iter_mut().zip(src).for_each(|(d, &s)| *d = combine(s, *d));
}

// ---- differentiation rules (jvp; transpose for the linear primitives) ----

/// For each element of `x`, the product of the other elements of its reduction (over
/// `axes`; `kept` are the other axes), written so that it is right at zeros and so is
/// its own derivative (which second derivatives of `reduce_prod` use).
///
/// With `q` the product of the *non-zero* others (the product of the non-zero
/// elements divided by the element unless it is zero) and `m` the number of zeros
/// among the others, the value is `q` where `m = 0`, and 0 where `m >= 1`. Where
/// `m = 1` it is written `q * z`, with `z` the sum of the zeros among the others: `z`
/// is 0 but carries their tangent, so the derivative there is `q` times the zero's
/// tangent, as for the exact product. Where `m >= 2` it is the constant 0, whose
/// derivative (0) is also exact; only third and higher derivatives of `reduce_prod` at
/// an input with two or more zeros in one reduction are not. The division is exact up
/// to rounding; where an element is infinite (or the product overflows) the result
/// can be NaN or inf though the product of the others is finite.
fn product_of_others(em: &mut Emitter, x: Value, axes: &[usize], kept: &[usize]) -> Result<Value, String> {
    let ty = em.ty(x).clone();
    let zero = em.zeros(&ty)?;
    let one = em.full(&ty, 1.0)?;
    let is_zero = em.eq(x, zero)?;
    let safe = em.select(is_zero, one, x)?;
    let nonzero_product = em.op(ReductionOp::Reduce { op: ReduceOp::Prod, axes: axes.to_vec() }, &[safe])?;
    let nonzero_product = em.broadcast_in_dim(nonzero_product, &ty.shape, kept)?;
    let nonzero_others = em.div(nonzero_product, safe)?;
    let zero_here = em.convert(is_zero, ty.dtype)?;
    let zeros_elsewhere = sum_of_others(em, zero_here, axes, kept)?;
    let zero_values = em.select(is_zero, x, zero)?;
    let zero_sum_elsewhere = sum_of_others(em, zero_values, axes, kept)?;
    let none_elsewhere = em.eq(zeros_elsewhere, zero)?;
    let indicator = em.convert(none_elsewhere, ty.dtype)?;
    let factor = em.add(indicator, zero_sum_elsewhere)?;
    let product = em.mul(nonzero_others, factor)?;
    let many_elsewhere = em.lt(one, zeros_elsewhere)?;
    em.select(many_elsewhere, zero, product)
}

/// For each element of `v`, the sum of the other elements of its reduction over `axes`
/// (`kept` are the other axes): the sum broadcast back, minus the element.
fn sum_of_others(em: &mut Emitter, v: Value, axes: &[usize], kept: &[usize]) -> Result<Value, String> {
    let shape = em.ty(v).shape.clone();
    let total = em.reduce_sum(v, axes)?;
    let total = em.broadcast_in_dim(total, &shape, kept)?;
    em.sub(total, v)
}

/// The jvp rule of a reduction op (an arg-reduction's index has no tangent).
pub(crate) fn jvp(
    em: &mut Emitter,
    op: &ReductionOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        ReductionOp::Reduce { op, axes } => jvp_reduce(em, *op, axes, primals, outputs, tangents),
        ReductionOp::ArgReduce { .. } => Ok(vec![None]),
        ReductionOp::Cumsum { axis, reverse } => jvp_cumsum(em, *axis, *reverse, primals, outputs, tangents),
        ReductionOp::Cummax { axis, reverse } | ReductionOp::Cummin { axis, reverse } => {
            jvp_cum_extreme(em, *axis, *reverse, primals, outputs, tangents)
        }
    }
}

/// The jvp rule of the reductions. A reduction over no axes is the identity (tangent
/// `t`), and one over zero elements is a constant (zero tangent).
///
/// - `reduce_sum`: `reduce_sum(t)`.
/// - `reduce_max`, `reduce_min`: JAX's chooser rule: the elements equal to the result
///   share it, so the tangent is `reduce_sum(t * mask) / reduce_sum(mask)` with `mask`
///   the elements equal to the result broadcast back. Ties average their tangents;
///   where the result is NaN no element equals it, so the tangent is NaN (0 / 0).
/// - `reduce_prod`: `reduce_sum(t * w)` with `w` the product of the other elements
///   (see `product_of_others`): exact at zeros (with one zero only its own tangent
///   counts; with two or more the tangent is 0), and so are second derivatives.
pub(crate) fn jvp_reduce(
    em: &mut Emitter,
    op: ReduceOp,
    axes: &[usize],
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[x], &[out], &[t]) = (primals, outputs, tangents) else {
        return Err(format!("{}: expects 1 operand, 1 tangent and 1 result", op.name()));
    };
    let Some(t) = t else { return Ok(vec![None]) };
    let ty = em.ty(x).clone();
    if !ty.dtype.is_float() {
        return Ok(vec![None]);
    }
    if axes.is_empty() {
        return Ok(vec![Some(t)]);
    }
    if axes.iter().any(|&a| ty.shape.get(a) == Some(&0)) {
        return Ok(vec![None]);
    }
    let kept: Vec<usize> = (0..ty.rank()).filter(|a| !axes.contains(a)).collect();
    let tangent = match op {
        ReduceOp::Sum => em.reduce_sum(t, axes)?,
        ReduceOp::Max | ReduceOp::Min => {
            let result = em.broadcast_in_dim(out, &ty.shape, &kept)?;
            let hit = em.eq(x, result)?;
            let mask = em.convert(hit, ty.dtype)?;
            let count = em.reduce_sum(mask, axes)?;
            let chosen = em.mul(t, mask)?;
            let total = em.reduce_sum(chosen, axes)?;
            em.div(total, count)?
        }
        ReduceOp::Prod => {
            let weight = product_of_others(em, x, axes, &kept)?;
            let weighted = em.mul(t, weight)?;
            em.reduce_sum(weighted, axes)?
        }
    };
    Ok(vec![Some(tangent)])
}

/// The jvp rule of `cummax` and `cummin`: each output element is one input element (the
/// latest record of the scan so far), so its tangent is that element's tangent, gathered
/// along the axis. A record is a position where the input equals the running extreme
/// (`x[j] == y[j]`); the latest record at or before `i` in the scan's direction holds
/// `y[i]`. Its position is itself a running extreme of the record positions (`cummax`
/// of `j` where `x[j] == y[j]`, else -1; reversed, `cummin` of `j`, else `n`), computed
/// on i32, which has no tangent. Where several inputs tie for the extreme, the tangent
/// is the latest one's (JAX averages tied tangents; the values agree).
fn jvp_cum_extreme(
    em: &mut Emitter,
    axis: usize,
    reverse: bool,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (&[x], &[y], &[t]) = (primals, outputs, tangents) else {
        return Err("cummax/cummin: expects 1 operand, 1 tangent and 1 result".into());
    };
    let Some(t) = t else { return Ok(vec![None]) };
    let ty = em.ty(x).clone();
    if !ty.dtype.is_float() {
        return Ok(vec![None]);
    }
    let n = ty.shape.get(axis).copied().ok_or("cummax/cummin: axis out of range")?;
    let positions = em.iota(&ty.shape, axis)?;
    let record = em.eq(x, y)?;
    let none = em.full_like(positions, if reverse { n as f64 } else { -1.0 })?;
    let marks = em.select(record, positions, none)?;
    let latest = if reverse { ReductionOp::Cummin { axis, reverse } } else { ReductionOp::Cummax { axis, reverse } };
    let source = em.op(latest, &[marks])?;
    // A gather along the last axis with every other axis a batch axis takes one
    // element per position: `take_along_axis`.
    let last = ty.rank() - 1;
    let t_last = em.move_axis(t, axis, last)?;
    let source_last = em.move_axis(source, axis, last)?;
    let taken = em.op(Prim::gather(last, last), &[t_last, source_last])?;
    Ok(vec![Some(em.move_axis(taken, last, axis)?)])
}

/// The jvp rule of `cumsum`, which is linear: the same prefix sum of the tangent.
pub(crate) fn jvp_cumsum(
    em: &mut Emitter,
    axis: usize,
    reverse: bool,
    _primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let float_out = outputs.first().is_some_and(|&out| em.ty(out).dtype.is_float());
    let tangent = tangents.first().copied().flatten().filter(|_| float_out);
    Ok(vec![tangent.map(|t| em.op(ReductionOp::Cumsum { axis, reverse }, &[t])).transpose()?])
}

/// The transpose rule of a reduction op: `reduce_sum` and `cumsum` are linear.
pub(crate) fn transpose(
    em: &mut Emitter,
    op: &ReductionOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        ReductionOp::Reduce { op, axes } => transpose_reduce(em, *op, axes, inputs, cts),
        ReductionOp::ArgReduce { .. } => Err(super::ad::not_linear(op.name())),
        ReductionOp::Cumsum { axis, reverse } => transpose_cumsum(em, *axis, *reverse, inputs, cts),
        ReductionOp::Cummax { .. } | ReductionOp::Cummin { .. } => Err(super::ad::not_linear(op.name())),
    }
}

/// The transpose rule of a reduction: `reduce_sum` is linear, and its transpose
/// broadcasts the cotangent back over the reduced axes. The other reductions are not
/// linear (an error).
pub(crate) fn transpose_reduce(
    em: &mut Emitter,
    op: ReduceOp,
    axes: &[usize],
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    match op {
        ReduceOp::Sum => {}
        ReduceOp::Max | ReduceOp::Min | ReduceOp::Prod => {
            return Err(format!("{} is not linear, so it has no transpose rule", op.name()));
        }
    }
    let (x, ct) = reduce_operands(op.name(), inputs, cts)?;
    let (LinearIn::Linear(x_ty), Some(ct)) = (x, ct) else {
        return Ok(vec![None]);
    };
    let kept: Vec<usize> = (0..x_ty.rank()).filter(|a| !axes.contains(a)).collect();
    Ok(vec![Some(em.broadcast_in_dim(ct, &x_ty.shape, &kept)?)])
}

/// The transpose rule of `cumsum`: output j sums inputs `i <= j` (`i >= j` when
/// reversed), so input i receives the cotangents of outputs `j >= i`: a cumsum in the
/// other direction.
pub(crate) fn transpose_cumsum(
    em: &mut Emitter,
    axis: usize,
    reverse: bool,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let (x, ct) = reduce_operands("cumsum", inputs, cts)?;
    let (LinearIn::Linear(_), Some(ct)) = (x, ct) else {
        return Ok(vec![None]);
    };
    Ok(vec![Some(em.op(crate::Prim::Reduction(crate::prim::ReductionOp::Cumsum { axis, reverse: !reverse }), &[ct])?)])
}

/// The one input and the one output cotangent of a reduction being transposed.
fn reduce_operands<'a>(
    op: &str,
    inputs: &'a [LinearIn],
    cts: &[Option<Value>],
) -> Result<(&'a LinearIn, Option<Value>), String> {
    let ([x], [ct]) = (inputs, cts) else {
        return Err(format!("{op}: transpose expects 1 input and 1 cotangent, got {} and {}", inputs.len(), cts.len()));
    };
    Ok((x, *ct))
}

// ---- batching rules (vmap) ----

/// The batching rule of the reductions (`reduce_*`, `argmax`, `argmin`, `cumsum`,
/// `cummax`, `cummin`).
///
/// No data moves: the operand stays batched where it is, and the primitive's axes are
/// renumbered around the batch axis `d` (an axis `a >= d` of an example is axis `a + 1`
/// of the batched operand). The output's batch axis is `d` less the number of reduced
/// axes before it (the prefix scans remove none).
pub(crate) fn batch_reduce(
    em: &mut Emitter,
    prim: &ReductionOp,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<super::batch::Batched, String> {
    let op = prim.name();
    let (&[x], &[dim]) = (inputs, dims) else {
        return Err(format!("{op}: expects 1 operand and 1 batch axis, got {} and {}", inputs.len(), dims.len()));
    };
    let Some(d) = dim else {
        return Err(format!("{op}: the operand is not batched"));
    };
    let rank = super::unary::example_rank(em, op, x, dim, size)?;
    let shift = |a: usize| if a >= d { a + 1 } else { a };
    let (batched, out_dim) = match prim {
        ReductionOp::Reduce { op: reduce, axes } => {
            check_axes(op, "axis", axes, rank)?;
            let before = axes.iter().filter(|&&a| a < d).count();
            (ReductionOp::Reduce { op: *reduce, axes: axes.iter().map(|&a| shift(a)).collect() }, d - before)
        }
        ReductionOp::ArgReduce { op: arg, axis, index_dtype } => {
            check_axis(op, "axis", *axis, rank)?;
            let out_dim = d - usize::from(*axis < d);
            (ReductionOp::ArgReduce { op: *arg, axis: shift(*axis), index_dtype: *index_dtype }, out_dim)
        }
        ReductionOp::Cumsum { axis, reverse } => {
            check_axis(op, "axis", *axis, rank)?;
            (ReductionOp::Cumsum { axis: shift(*axis), reverse: *reverse }, d)
        }
        ReductionOp::Cummax { axis, reverse } => {
            check_axis(op, "axis", *axis, rank)?;
            (ReductionOp::Cummax { axis: shift(*axis), reverse: *reverse }, d)
        }
        ReductionOp::Cummin { axis, reverse } => {
            check_axis(op, "axis", *axis, rank)?;
            (ReductionOp::Cummin { axis: shift(*axis), reverse: *reverse }, d)
        }
    };
    let out = em.op(batched, &[x])?;
    Ok((vec![out], vec![Some(out_dim)]))
}

/// A reduction along axes: a full reduction, an arg-reduction or a prefix scan.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReductionOp {
    /// Reduction over axes.
    Reduce {
        /// Which reduction.
        op: ReduceOp,
        /// Reduced axes (removed from the shape).
        axes: Vec<usize>,
    },
    /// Index of the first extreme element along an axis.
    ArgReduce {
        /// `argmax` or `argmin`.
        op: ArgOp,
        /// The searched axis (removed from the shape).
        axis: usize,
        /// The index dtype (`i32`).
        index_dtype: DType,
    },
    /// Inclusive prefix sum along an axis.
    Cumsum {
        /// The summed axis.
        axis: usize,
        /// Sum from the end instead.
        reverse: bool,
    },
    /// Running maximum along an axis (NaN propagates).
    Cummax {
        /// The scanned axis.
        axis: usize,
        /// Scan from the end instead.
        reverse: bool,
    },
    /// Running minimum along an axis (NaN propagates).
    Cummin {
        /// The scanned axis.
        axis: usize,
        /// Scan from the end instead.
        reverse: bool,
    },
}

impl Prim {
    /// `reduce_<op>` over `axes`, which leave the result.
    pub fn reduce(op: ReduceOp, axes: &[usize]) -> Prim {
        Prim::Reduction(ReductionOp::Reduce { op, axes: axes.to_vec() })
    }
}

impl ReductionOp {
    /// The name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            ReductionOp::Reduce { op, .. } => op.name(),
            ReductionOp::ArgReduce { op, .. } => op.name(),
            ReductionOp::Cumsum { .. } => "cumsum",
            ReductionOp::Cummax { .. } => "cummax",
            ReductionOp::Cummin { .. } => "cummin",
        }
    }

    /// The op named `name`, with placeholder parameters that
    /// [`ReductionOp::visit_attrs`] then fills.
    pub(crate) fn blank(name: &str) -> Option<ReductionOp> {
        let arg = |op| ReductionOp::ArgReduce { op, axis: 0, index_dtype: DType::I32 };
        Some(match name {
            "argmax" => arg(ArgOp::Argmax),
            "argmin" => arg(ArgOp::Argmin),
            "cumsum" => ReductionOp::Cumsum { axis: 0, reverse: false },
            "cummax" => ReductionOp::Cummax { axis: 0, reverse: false },
            "cummin" => ReductionOp::Cummin { axis: 0, reverse: false },
            other => ReductionOp::Reduce { op: ReduceOp::from_name(other)?, axes: vec![] },
        })
    }

    /// Hands every attribute of the op to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            ReductionOp::Reduce { op: _, axes } => v.usizes("axes", axes, None),
            ReductionOp::ArgReduce { op: _, axis, index_dtype } => {
                v.usize("axis", axis)?;
                v.dtype("index_dtype", index_dtype, Some(DType::I32))
            }
            ReductionOp::Cumsum { axis, reverse }
            | ReductionOp::Cummax { axis, reverse }
            | ReductionOp::Cummin { axis, reverse } => {
                v.usize("axis", axis)?;
                v.bool_or("reverse", reverse, false)
            }
        }
    }
}

/// Evaluates a reduction op on its operand.
pub(crate) fn eval(op: &ReductionOp, a: &[&Array]) -> Result<Array, String> {
    let [x] = super::operands(a)?;
    match op {
        ReductionOp::Reduce { op, axes } => eval_reduce(*op, axes, x),
        ReductionOp::ArgReduce { op, axis, index_dtype: _ } => eval_arg_reduce(*op, *axis, x),
        ReductionOp::Cumsum { axis, reverse } => eval_cumsum(*axis, *reverse, x),
        ReductionOp::Cummax { axis, reverse } => eval_cum_extreme(true, *axis, *reverse, x),
        ReductionOp::Cummin { axis, reverse } => eval_cum_extreme(false, *axis, *reverse, x),
    }
}

/// The property-table row of a reduction op: one flop per input element; float
/// results may differ by more than the last bit (the JIT sums in blocks); `max`/`min`
/// (and the arg-reductions) are extreme, `sum`/`prod`/`cumsum` reassociate; the
/// running extremes are exact.
pub(crate) fn props(op: &ReductionOp) -> super::props::Props {
    use super::props::{Class, Flops, Props};
    let base = Props {
        flops: Flops::PerInputElement(0),
        inexact: true,
        domain: UnaryDomain::Numeric,
        ..Props::movement(Class::Reduction)
    };
    match op {
        ReductionOp::Reduce { op: ReduceOp::Sum | ReduceOp::Prod, .. } => Props { reassociates_over: &[0], ..base },
        ReductionOp::Reduce { op: ReduceOp::Max | ReduceOp::Min, .. } => Props { extreme: true, ..base },
        ReductionOp::ArgReduce { .. } => Props { extreme: true, inexact: false, ..base },
        ReductionOp::Cumsum { .. } => Props { class: Class::Launch, reassociates_over: &[0], ..base },
        ReductionOp::Cummax { .. } | ReductionOp::Cummin { .. } => {
            Props { class: Class::Launch, inexact: false, ..base }
        }
    }
}

#[cfg(test)]
#[path = "tests/reduce.rs"]
mod tests;
