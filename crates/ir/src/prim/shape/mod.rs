//! Structural primitives: `broadcast_in_dim`, `reshape`, `transpose`, `rev`, `slice`,
//! `pad`, `concatenate`, `iota`, `constant`. They move or create elements without
//! arithmetic.

use super::ad::LinearIn;
use super::layout::{self, Strides, View, copy_data, gather_array, splat};
use super::{check_axes, check_axis, check_len, expect_arity};
use crate::Type;
use crate::attr::AttrVisitor;
use crate::{Emitter, Prim, Value};
use ferrax_array::{Array, DType, Data, Shape};

// ---- type rules ----

pub(crate) fn infer_broadcast_in_dim(shape: &[usize], dims: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "broadcast_in_dim";
    expect_arity(op, inputs, 1)?;
    let x = &inputs[0];
    check_len(op, "dims", dims.len(), x.rank())?;
    for (i, &d) in dims.iter().enumerate() {
        check_axis(op, "dims entry", d, shape.len())?;
        if i > 0 && dims[i - 1] >= d {
            return Err(format!("{op}: dims must be strictly increasing, got {dims:?}"));
        }
        if x.shape[i] != shape[d] && x.shape[i] != 1 {
            return Err(format!(
                "{op}: operand axis {i} has size {} but output axis {d} has size {} (must be equal or 1)",
                x.shape[i], shape[d]
            ));
        }
    }
    Ok(vec![Type::new(x.dtype, shape)])
}

pub(crate) fn infer_reshape(shape: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("reshape", inputs, 1)?;
    let x = &inputs[0];
    let out = Type::new(x.dtype, shape);
    match (x.element_count(), out.element_count()) {
        (Some(a), Some(b)) if a == b => Ok(vec![out]),
        (a, b) => Err(format!(
            "reshape: element counts differ: {x} has {} but {out} has {}",
            a.map_or("too many".into(), |n| n.to_string()),
            b.map_or("too many".into(), |n| n.to_string())
        )),
    }
}

pub(crate) fn infer_transpose(perm: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "transpose";
    expect_arity(op, inputs, 1)?;
    let x = &inputs[0];
    check_len(op, "perm", perm.len(), x.rank())?;
    check_axes(op, "perm entry", perm, x.rank()).map_err(|e| format!("{e} ({perm:?} is not a permutation)"))?;
    let shape: Shape = perm.iter().map(|&p| x.shape[p]).collect();
    Ok(vec![Type { dtype: x.dtype, shape }])
}

pub(crate) fn infer_rev(axes: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("rev", inputs, 1)?;
    check_axes("rev", "axis", axes, inputs[0].rank())?;
    Ok(vec![inputs[0].clone()])
}

pub(crate) fn infer_slice(
    start: &[usize],
    limit: &[usize],
    strides: &[usize],
    inputs: &[Type],
) -> Result<Vec<Type>, String> {
    let op = "slice";
    expect_arity(op, inputs, 1)?;
    let x = &inputs[0];
    check_len(op, "start", start.len(), x.rank())?;
    check_len(op, "limit", limit.len(), x.rank())?;
    check_len(op, "strides", strides.len(), x.rank())?;
    let mut shape = Shape::new();
    for axis in 0..x.rank() {
        let (s, l, st, d) = (start[axis], limit[axis], strides[axis], x.shape[axis]);
        if st == 0 {
            return Err(format!("{op}: stride of axis {axis} is 0 (strides must be > 0)"));
        }
        if s > l || l > d {
            return Err(format!("{op}: axis {axis} bounds start={s}, limit={l} do not fit 0 <= start <= limit <= {d}"));
        }
        shape.push((l - s).div_ceil(st));
    }
    Ok(vec![Type { dtype: x.dtype, shape }])
}

pub(crate) fn infer_pad(low: &[i64], high: &[i64], interior: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "pad";
    expect_arity(op, inputs, 2)?;
    let (x, value) = (&inputs[0], &inputs[1]);
    if value.dtype != x.dtype || value.rank() != 0 {
        return Err(format!("{op}: padding value must be a {} scalar, got {value}", x.dtype));
    }
    check_len(op, "low", low.len(), x.rank())?;
    check_len(op, "high", high.len(), x.rank())?;
    check_len(op, "interior", interior.len(), x.rank())?;
    let mut shape = Shape::new();
    for axis in 0..x.rank() {
        let d = x.shape[axis] as i128;
        let size = low[axis] as i128 + high[axis] as i128 + d + (d - 1).max(0) * interior[axis] as i128;
        let size = usize::try_from(size).map_err(|_| {
            format!(
                "{op}: axis {axis} of size {d} padded by low={}, high={}, interior={} has size {size}",
                low[axis], high[axis], interior[axis]
            )
        })?;
        shape.push(size);
    }
    Ok(vec![Type { dtype: x.dtype, shape }])
}

pub(crate) fn infer_concatenate(axis: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "concatenate";
    let Some(first) = inputs.first() else {
        return Err(format!("{op}: expects at least 1 operand, got 0"));
    };
    check_axis(op, "axis", axis, first.rank())?;
    let mut shape = first.shape.clone();
    for (i, x) in inputs.iter().enumerate().skip(1) {
        let same_other_dims =
            x.rank() == first.rank() && (0..x.rank()).all(|a| a == axis || x.shape[a] == first.shape[a]);
        if x.dtype != first.dtype || !same_other_dims {
            return Err(format!(
                "{op}: operand {i} is {x}, which does not match operand 0 {first} except on axis {axis}"
            ));
        }
        shape[axis] = shape[axis].checked_add(x.shape[axis]).ok_or_else(|| format!("{op}: size overflows"))?;
    }
    Ok(vec![Type { dtype: first.dtype, shape }])
}

pub(crate) fn infer_iota(dtype: DType, shape: &[usize], dim: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("iota", inputs, 0)?;
    check_axis("iota", "dim", dim, shape.len())?;
    if dtype == DType::Bool {
        return Err("iota: dtype must be numeric, got bool".into());
    }
    Ok(vec![Type::new(dtype, shape)])
}

pub(crate) fn infer_constant(value: &Array, shape: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("constant", inputs, 0)?;
    if value.rank() != 0 && value.shape() != shape {
        return Err(format!(
            "constant: value has shape {:?} but the result shape is {shape:?} (give a scalar or the full shape)",
            value.shape()
        ));
    }
    Ok(vec![Type::new(value.dtype(), shape)])
}

/// The type rule of a structural op.
pub(crate) fn infer(op: &ShapeOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    match op {
        ShapeOp::BroadcastInDim { shape, dims } => infer_broadcast_in_dim(shape, dims, inputs),
        ShapeOp::Reshape { shape } => infer_reshape(shape, inputs),
        ShapeOp::Transpose { perm } => infer_transpose(perm, inputs),
        ShapeOp::Rev { axes } => infer_rev(axes, inputs),
        ShapeOp::Slice { start, limit, strides } => infer_slice(start, limit, strides, inputs),
        ShapeOp::Pad { low, high, interior } => infer_pad(low, high, interior, inputs),
        ShapeOp::Concatenate { axis } => infer_concatenate(*axis, inputs),
        ShapeOp::Iota { dtype, shape, dim } => infer_iota(*dtype, shape, *dim, inputs),
        ShapeOp::Constant { value, shape } => infer_constant(value, shape, inputs),
    }
}

// ---- evaluation (the reference interpreter's rules) ----
//
// Each rule re-checks the few facts its index arithmetic relies on (the verifier has
// normally done so already) and returns an error rather than panic. The element moves
// go through the strided box copies of `layout`.

/// An array of `shape` read through `strides` of `x`, from offset `base`.
fn read_view(x: &Array, base: isize, strides: &[isize], shape: &[usize]) -> Result<Array, String> {
    gather_array(x, View { base, strides }, shape)
}

/// Number of elements of `shape`, overflow-checked.
fn count(shape: &[usize]) -> Result<usize, String> {
    ferrax_array::element_count(shape).map_err(|e| e.to_string())
}

/// `broadcast_in_dim`: operand axis i becomes output axis `dims[i]`; a size-1 axis
/// (and every output axis not in `dims`) repeats the operand with step 0.
pub(crate) fn eval_broadcast_in_dim(shape: &[usize], dims: &[usize], x: &Array) -> Result<Array, String> {
    infer_broadcast_in_dim(shape, dims, &[Type::new(x.dtype(), x.shape())])?;
    let xs = layout::strides(x.shape());
    let mut steps: Strides = smallvec::smallvec![0; shape.len()];
    for (i, &d) in dims.iter().enumerate() {
        if x.shape()[i] == shape[d] {
            steps[d] = xs[i];
        }
    }
    read_view(x, 0, &steps, shape)
}

/// `reshape`: the same elements in C order under a new shape.
pub(crate) fn eval_reshape(shape: &[usize], x: &Array) -> Result<Array, String> {
    if count(shape)? != x.len() {
        return Err(format!("reshape: {} elements cannot take the shape {shape:?}", x.len()));
    }
    Array::new(Shape::from(shape), x.data().clone()).map_err(|e| e.to_string())
}

/// `transpose`: output axis i is operand axis `perm[i]`.
pub(crate) fn eval_transpose(perm: &[usize], x: &Array) -> Result<Array, String> {
    infer_transpose(perm, &[Type::new(x.dtype(), x.shape())])?;
    let xs = layout::strides(x.shape());
    let shape: Shape = perm.iter().map(|&p| x.shape()[p]).collect();
    let steps: Strides = perm.iter().map(|&p| xs[p]).collect();
    read_view(x, 0, &steps, &shape)
}

/// `rev`: reads each listed axis from its last index with a negative step.
pub(crate) fn eval_rev(axes: &[usize], x: &Array) -> Result<Array, String> {
    infer_rev(axes, &[Type::new(x.dtype(), x.shape())])?;
    if x.is_empty() {
        return Ok(x.clone());
    }
    let mut steps = layout::strides(x.shape());
    let mut base = 0isize;
    for &a in axes {
        base += (x.shape()[a] as isize - 1) * steps[a];
        steps[a] = -steps[a];
    }
    read_view(x, base, &steps, x.shape())
}

/// `slice`: the box `[start, limit)` with `strides` steps.
pub(crate) fn eval_slice(start: &[usize], limit: &[usize], strides: &[usize], x: &Array) -> Result<Array, String> {
    let [out] = &infer_slice(start, limit, strides, &[Type::new(x.dtype(), x.shape())])?[..] else {
        return Err("slice: expected one result type".into());
    };
    if out.shape.contains(&0) {
        return Array::new(out.shape.clone(), Data::zeros(x.dtype(), 0)).map_err(|e| e.to_string());
    }
    let xs = layout::strides(x.shape());
    let base = layout::offset(start, &xs);
    let steps: Strides = xs.iter().zip(strides).map(|(&s, &k)| s.wrapping_mul(k as isize)).collect();
    read_view(x, base, &steps, &out.shape)
}

/// One axis of a `pad`: which operand indices `[first, end)` land inside the output,
/// and where the first of them goes. Operand index i goes to `low + i * (interior + 1)`.
struct PadAxis {
    first: usize,
    end: usize,
    out_first: usize,
}

fn pad_axis(dim: usize, out_dim: usize, low: i64, interior: usize) -> PadAxis {
    let (dim, out_dim, low, step) = (dim as i128, out_dim as i128, i128::from(low), interior as i128 + 1);
    // The first i with low + i*step >= 0, and one past the last with low + i*step < out_dim.
    let first = if low >= 0 { 0 } else { (-low + step - 1) / step };
    let end = if out_dim > low { ((out_dim - low + step - 1) / step).min(dim) } else { 0 };
    let end = end.max(first);
    PadAxis { first: first as usize, end: end as usize, out_first: (low + first * step).max(0) as usize }
}

/// `pad`: the output starts as `value` everywhere; operand element i of each axis is
/// placed at `low + i * (interior + 1)` when that is inside the output (negative
/// `low`/`high` crop).
pub(crate) fn eval_pad(
    low: &[i64],
    high: &[i64],
    interior: &[usize],
    x: &Array,
    value: &Array,
) -> Result<Array, String> {
    let inputs = [Type::new(x.dtype(), x.shape()), Type::new(value.dtype(), value.shape())];
    let [out] = &infer_pad(low, high, interior, &inputs)?[..] else {
        return Err("pad: expected one result type".into());
    };
    let mut data = splat(value, count(&out.shape)?)?;
    let (xs, os) = (layout::strides(x.shape()), layout::strides(&out.shape));
    let axes: Vec<PadAxis> = (0..x.rank()).map(|a| pad_axis(x.shape()[a], out.shape[a], low[a], interior[a])).collect();
    let sub: Shape = axes.iter().map(|p| p.end - p.first).collect();
    if sub.contains(&0) {
        return Array::new(out.shape.clone(), data).map_err(|e| e.to_string());
    }
    let src_base = layout::offset(&axes.iter().map(|p| p.first).collect::<Shape>(), &xs);
    let dst_base = layout::offset(&axes.iter().map(|p| p.out_first).collect::<Shape>(), &os);
    let dst_steps: Strides =
        os.iter().zip(interior).map(|(&s, &i)| s.wrapping_mul(i as isize).wrapping_add(s)).collect();
    let (sv, dv) = (View { base: src_base, strides: &xs }, View { base: dst_base, strides: &dst_steps });
    copy_data(x.data(), sv, &mut data, dv, &sub)?;
    Array::new(out.shape.clone(), data).map_err(|e| e.to_string())
}

/// `concatenate`: each operand is copied into its range of `axis` in the output.
pub(crate) fn eval_concatenate(axis: usize, xs: &[&Array]) -> Result<Array, String> {
    let types: Vec<Type> = xs.iter().map(|x| Type::new(x.dtype(), x.shape())).collect();
    let [out] = &infer_concatenate(axis, &types)?[..] else {
        return Err("concatenate: expected one result type".into());
    };
    let mut data = Data::zeros(out.dtype, count(&out.shape)?);
    let os = layout::strides(&out.shape);
    let mut at = 0usize;
    for x in xs {
        let dv = View { base: (at as isize).wrapping_mul(os[axis]), strides: &os };
        copy_data(x.data(), View::contiguous(&layout::strides(x.shape())), &mut data, dv, x.shape())?;
        at += x.shape()[axis];
    }
    Array::new(out.shape.clone(), data).map_err(|e| e.to_string())
}

/// `iota`: the index along `dim`, converted to `dtype`.
pub(crate) fn eval_iota(dtype: DType, shape: &[usize], dim: usize) -> Result<Array, String> {
    infer_iota(dtype, shape, dim, &[])?;
    let total = count(shape)?;
    let (outer, n, inner) = (count(&shape[..dim])?, shape[dim], count(&shape[dim + 1..])?);
    let data = match dtype {
        DType::I32 => Data::I32(counting(total, outer, n, inner, |i| i as i32)),
        DType::F32 => Data::F32(counting(total, outer, n, inner, |i| i as f32)),
        DType::F64 => Data::F64(counting(total, outer, n, inner, |i| i as f64)),
        DType::BF16 | DType::F16 => {
            let wide = counting(total, outer, n, inner, |i| i as f32);
            Data::narrow_half(&wide, dtype).unwrap_or(Data::F32(wide))
        }
        DType::Bool => return Err("iota: dtype must be numeric, got bool".into()),
    };
    Array::new(Shape::from(shape), data).map_err(|e| e.to_string())
}

/// `outer` repetitions of `0, 1, ..., n-1`, each value repeated `inner` times.
fn counting<T: Copy>(total: usize, outer: usize, n: usize, inner: usize, convert: impl Fn(usize) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(total);
    for _ in 0..outer {
        for i in 0..n {
            out.extend(std::iter::repeat_n(convert(i), inner));
        }
    }
    out
}

/// `constant`: a rank-0 value splats to `shape`; a full value is copied.
pub(crate) fn eval_constant(value: &Array, shape: &[usize]) -> Result<Array, String> {
    infer_constant(value, shape, &[])?;
    let data = if value.rank() == 0 { splat(value, count(shape)?)? } else { value.data().clone() };
    Array::new(Shape::from(shape), data).map_err(|e| e.to_string())
}

// ---- differentiation rules (jvp; transpose for the linear primitives) ----

/// `tangent`, or zeros of the type of `primal` where the tangent is symbolically zero
/// (JAX's `instantiate_zeros`): for rules whose result mixes the tangents of several
/// operands into one primitive, so that each operand needs a value.
pub(crate) fn instantiate(em: &mut Emitter, tangent: Option<Value>, primal: Value) -> Result<Value, String> {
    match tangent {
        Some(t) => Ok(t),
        None => {
            let ty = em.ty(primal).clone();
            em.zeros(&ty)
        }
    }
}

/// The jvp rule of the structural primitives, which are linear: the same primitive
/// applied to the tangents (`iota` and `constant` have none). `pad` pads the operand's tangent with the padding value's
/// tangent, and `concatenate` joins the operands' tangents; there a zero tangent is
/// instantiated as zeros when another operand's tangent is not zero.
pub(crate) fn jvp_structural(
    em: &mut Emitter,
    prim: &ShapeOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let float_out = outputs.first().is_some_and(|&out| em.ty(out).dtype.is_float());
    if !float_out || tangents.iter().all(Option::is_none) {
        return Ok(vec![None]);
    }
    let inputs = match prim {
        ShapeOp::BroadcastInDim { .. }
        | ShapeOp::Reshape { .. }
        | ShapeOp::Transpose { .. }
        | ShapeOp::Rev { .. }
        | ShapeOp::Slice { .. } => {
            let [Some(t)] = tangents else {
                return Err(format!("{}: expects one operand tangent, got {}", prim.name(), tangents.len()));
            };
            vec![*t]
        }
        ShapeOp::Pad { .. } | ShapeOp::Concatenate { .. } => {
            if primals.len() != tangents.len() {
                return Err(format!("{}: {} tangents for {} operands", prim.name(), tangents.len(), primals.len()));
            }
            let mut inputs = Vec::with_capacity(primals.len());
            for (&primal, &tangent) in primals.iter().zip(tangents) {
                inputs.push(instantiate(em, tangent, primal)?);
            }
            inputs
        }
        ShapeOp::Iota { .. } | ShapeOp::Constant { .. } => return Ok(vec![None]),
    };
    Ok(vec![Some(em.op(Prim::Shape(prim.clone()), &inputs)?)])
}

/// The transpose rule of the structural primitives, which are linear in their array
/// operands (and `pad` in its padding value too):
///
/// - `broadcast_in_dim`: sums the cotangent over the new axes and over the expanded
///   size-1 axes, then reshapes it to the operand's shape;
/// - `reshape`: reshapes back; `transpose`: the inverse permutation; `rev`: the same
///   axes again;
/// - `slice`: pads the cotangent with zeros back to the operand's shape (strides
///   become interior padding);
/// - `pad`: the operand's cotangent is a strided slice of the cotangent (after padding
///   the cropped parts back with zeros), the padding value's is the sum of the rest;
/// - `concatenate`: one slice of the cotangent per linear operand.
pub(crate) fn transpose_structural(
    em: &mut Emitter,
    prim: &ShapeOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let op = prim.name();
    let [ct] = *cts else {
        return Err(format!("{op}: transpose expects 1 cotangent, got {}", cts.len()));
    };
    match prim {
        ShapeOp::BroadcastInDim { shape, dims } => {
            one_operand(em, op, inputs, ct, |em, x, ct| transpose_broadcast_in_dim(em, shape, dims, x, ct))
        }
        ShapeOp::Reshape { .. } => one_operand(em, op, inputs, ct, |em, x, ct| em.reshape(ct, &x.shape)),
        ShapeOp::Transpose { perm } => one_operand(em, op, inputs, ct, |em, _, ct| {
            let mut inverse = vec![0; perm.len()];
            for (i, &p) in perm.iter().enumerate() {
                inverse[p] = i;
            }
            if inverse.iter().enumerate().all(|(i, &p)| i == p) { Ok(ct) } else { em.transpose(ct, &inverse) }
        }),
        ShapeOp::Rev { axes } => {
            one_operand(em, op, inputs, ct, |em, _, ct| em.op(Prim::Shape(ShapeOp::Rev { axes: axes.clone() }), &[ct]))
        }
        ShapeOp::Slice { start, limit: _, strides } => {
            one_operand(em, op, inputs, ct, |em, x, ct| transpose_slice(em, start, strides, x, ct))
        }
        ShapeOp::Pad { low, high, interior } => transpose_pad(em, low, high, interior, inputs, ct),
        ShapeOp::Concatenate { axis } => transpose_concatenate(em, *axis, inputs, ct),
        ShapeOp::Iota { .. } | ShapeOp::Constant { .. } => Err(super::ad::not_linear(op)),
    }
}

/// The transpose of a primitive with a single operand: `rule(em, operand type, ct)`
/// when the operand is linear and the cotangent is non-zero.
fn one_operand(
    em: &mut Emitter,
    op: &str,
    inputs: &[LinearIn],
    ct: Option<Value>,
    rule: impl FnOnce(&mut Emitter, &Type, Value) -> Result<Value, String>,
) -> Result<Vec<Option<Value>>, String> {
    let [input] = inputs else {
        return Err(format!("{op}: transpose expects 1 input, got {}", inputs.len()));
    };
    match (input, ct) {
        (LinearIn::Linear(x), Some(ct)) => Ok(vec![Some(rule(em, x, ct)?)]),
        (LinearIn::Linear(_), None) | (LinearIn::Residual(_), _) => Ok(vec![None]),
    }
}

/// The transpose of `broadcast_in_dim`: output axes not fed by an operand axis, and
/// those fed by an expanded size-1 axis, are summed away; a reshape restores the
/// operand's size-1 axes.
fn transpose_broadcast_in_dim(
    em: &mut Emitter,
    shape: &[usize],
    dims: &[usize],
    x: &Type,
    ct: Value,
) -> Result<Value, String> {
    let kept: Vec<usize> =
        dims.iter().zip(x.shape.iter()).filter(|&(&d, &size)| size == shape[d]).map(|(&d, _)| d).collect();
    let summed: Vec<usize> = (0..shape.len()).filter(|a| !kept.contains(a)).collect();
    let sum = em.reduce_sum(ct, &summed)?;
    em.reshape(sum, &x.shape)
}

/// The transpose of `slice`: pads the cotangent with zeros. Element j of an axis came
/// from operand index `start + j*stride`, so the stride becomes interior padding, and
/// the last element is followed by `dim - (start + (n-1)*stride + 1)` zeros.
fn transpose_slice(em: &mut Emitter, start: &[usize], strides: &[usize], x: &Type, ct: Value) -> Result<Value, String> {
    let out = em.ty(ct).shape.clone();
    if out.len() != x.rank() || start.len() != x.rank() || strides.len() != x.rank() {
        return Err(format!("slice: the cotangent {} does not fit the operand {x}", em.ty(ct)));
    }
    let mut high = Vec::with_capacity(x.rank());
    for axis in 0..x.rank() {
        let used = match out[axis] {
            0 => 0,
            n => (n - 1) * strides[axis] + 1,
        };
        let rest = x.shape[axis]
            .checked_sub(start[axis] + used)
            .ok_or_else(|| format!("slice: the cotangent {} does not fit the operand {x}", em.ty(ct)))?;
        high.push(to_i64(rest)?);
    }
    let low = start.iter().map(|&s| to_i64(s)).collect::<Result<Vec<_>, _>>()?;
    let interior = strides.iter().map(|&s| s.saturating_sub(1)).collect();
    let zero = em.zeros(&Type::scalar(x.dtype))?;
    em.op(ShapeOp::Pad { low, high, interior }, &[ct, zero])
}

/// A size or index as a padding amount.
fn to_i64(n: usize) -> Result<i64, String> {
    i64::try_from(n).map_err(|_| format!("size {n} does not fit a padding amount"))
}

/// The type of an input of an equation being transposed.
fn input_type(em: &Emitter, input: &LinearIn) -> Type {
    match input {
        LinearIn::Linear(ty) => ty.clone(),
        LinearIn::Residual(v) => em.ty(*v).clone(),
    }
}

/// The transpose of `pad(x, value)`. Padding the cotangent with zeros where `low` or
/// `high` cropped makes every operand element land at `max(low, 0) + i*(interior+1)`,
/// a strided slice; the padding value was added everywhere else, so its cotangent is
/// the sum of the whole cotangent minus the operand's part.
fn transpose_pad(
    em: &mut Emitter,
    low: &[i64],
    high: &[i64],
    interior: &[usize],
    inputs: &[LinearIn],
    ct: Option<Value>,
) -> Result<Vec<Option<Value>>, String> {
    let [x, value] = inputs else {
        return Err(format!("pad: transpose expects 2 inputs, got {}", inputs.len()));
    };
    let Some(ct) = ct else {
        return Ok(vec![None, None]);
    };
    if !x.is_linear() && !value.is_linear() {
        return Ok(vec![None, None]);
    }
    let x_ty = input_type(em, x);
    let uncrop_low: Vec<i64> = low.iter().map(|&l| 0i64.saturating_sub(l).max(0)).collect();
    let uncrop_high: Vec<i64> = high.iter().map(|&h| 0i64.saturating_sub(h).max(0)).collect();
    let uncropped = if uncrop_low.iter().chain(&uncrop_high).all(|&n| n == 0) {
        ct
    } else {
        let zero = em.zeros(&Type::scalar(x_ty.dtype))?;
        let pad = ShapeOp::Pad { low: uncrop_low, high: uncrop_high, interior: vec![0; x_ty.rank()] };
        em.op(pad, &[ct, zero])?
    };
    let mut start = Vec::with_capacity(x_ty.rank());
    let mut limit = Vec::with_capacity(x_ty.rank());
    let mut strides = Vec::with_capacity(x_ty.rank());
    for axis in 0..x_ty.rank() {
        let first = usize::try_from(low[axis].max(0)).map_err(|_| "pad: low padding is too large".to_string())?;
        let step = interior[axis] + 1;
        let span = match x_ty.shape[axis] {
            0 => 0,
            d => (d - 1) * step + 1,
        };
        start.push(first);
        limit.push(first + span);
        strides.push(step);
    }
    let ct_x = em.op(ShapeOp::Slice { start, limit, strides }, &[uncropped])?;
    let ct_value = if value.is_linear() {
        let all = |em: &Emitter, v: Value| (0..em.ty(v).rank()).collect::<Vec<_>>();
        let (ct_axes, x_axes) = (all(em, ct), all(em, ct_x));
        let total = em.reduce_sum(ct, &ct_axes)?;
        let inside = em.reduce_sum(ct_x, &x_axes)?;
        Some(em.sub(total, inside)?)
    } else {
        None
    };
    Ok(vec![x.is_linear().then_some(ct_x), ct_value])
}

/// The transpose of `concatenate`: each linear operand's cotangent is its range of
/// `axis` in the cotangent.
fn transpose_concatenate(
    em: &mut Emitter,
    axis: usize,
    inputs: &[LinearIn],
    ct: Option<Value>,
) -> Result<Vec<Option<Value>>, String> {
    let Some(ct) = ct else {
        return Ok(vec![None; inputs.len()]);
    };
    let shape = em.ty(ct).shape.clone();
    let mut at = 0;
    let mut out = Vec::with_capacity(inputs.len());
    for input in inputs {
        let size = input_type(em, input)
            .shape
            .get(axis)
            .copied()
            .ok_or_else(|| format!("concatenate: axis {axis} is out of range for the cotangent {}", em.ty(ct)))?;
        if input.is_linear() {
            let mut start = vec![0; shape.len()];
            let mut limit = shape.to_vec();
            start[axis] = at;
            limit[axis] = at + size;
            let slice = ShapeOp::Slice { start, limit, strides: vec![1; shape.len()] };
            out.push(Some(em.op(slice, &[ct])?));
        } else {
            out.push(None);
        }
        at += size;
    }
    Ok(out)
}

mod batch;
mod build;

pub(crate) use batch::{batch_structural, check_batch_dims, inserted_at};

/// A structural primitive: moves, copies or creates elements without arithmetic.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeOp {
    /// Operand axis i becomes output axis `dims[i]`; size-1 axes expand.
    BroadcastInDim {
        /// Output shape.
        shape: Shape,
        /// Output axis of each operand axis, strictly increasing.
        dims: Vec<usize>,
    },
    /// Same elements in C order, new shape.
    Reshape {
        /// Output shape.
        shape: Shape,
    },
    /// Output axis i is operand axis `perm[i]`.
    Transpose {
        /// A permutation of the axes.
        perm: Vec<usize>,
    },
    /// Reverses the listed axes.
    Rev {
        /// Axes to reverse.
        axes: Vec<usize>,
    },
    /// A strided box `[start, limit)` of the operand.
    Slice {
        /// First index per axis.
        start: Vec<usize>,
        /// One past the last index per axis.
        limit: Vec<usize>,
        /// Step per axis (> 0).
        strides: Vec<usize>,
    },
    /// Edge and interior padding with a scalar; negative edges crop.
    Pad {
        /// Padding before each axis.
        low: Vec<i64>,
        /// Padding after each axis.
        high: Vec<i64>,
        /// Padding between elements of each axis.
        interior: Vec<usize>,
    },
    /// Joins operands along an axis.
    Concatenate {
        /// The joining axis.
        axis: usize,
    },
    /// 0, 1, 2, ... along one axis.
    Iota {
        /// Element type.
        dtype: DType,
        /// Output shape.
        shape: Shape,
        /// The counting axis.
        dim: usize,
    },
    /// A literal; a rank-0 `value` splats to the result shape.
    Constant {
        /// The value: rank 0 (splat to `shape`) or of shape `shape`.
        value: Array,
        /// The result shape (in the text form, it comes from the declared type).
        shape: Shape,
    },
}

impl ShapeOp {
    /// The name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            ShapeOp::BroadcastInDim { .. } => "broadcast_in_dim",
            ShapeOp::Reshape { .. } => "reshape",
            ShapeOp::Transpose { .. } => "transpose",
            ShapeOp::Rev { .. } => "rev",
            ShapeOp::Slice { .. } => "slice",
            ShapeOp::Pad { .. } => "pad",
            ShapeOp::Concatenate { .. } => "concatenate",
            ShapeOp::Iota { .. } => "iota",
            ShapeOp::Constant { .. } => "constant",
        }
    }

    /// The op named `name`, with placeholder parameters that
    /// [`ShapeOp::visit_attrs`] then fills.
    pub(crate) fn blank(name: &str) -> Option<ShapeOp> {
        let shape = Shape::new();
        Some(match name {
            "broadcast_in_dim" => ShapeOp::BroadcastInDim { shape, dims: vec![] },
            "reshape" => ShapeOp::Reshape { shape },
            "transpose" => ShapeOp::Transpose { perm: vec![] },
            "rev" => ShapeOp::Rev { axes: vec![] },
            "slice" => ShapeOp::Slice { start: vec![], limit: vec![], strides: vec![] },
            "pad" => ShapeOp::Pad { low: vec![], high: vec![], interior: vec![] },
            "concatenate" => ShapeOp::Concatenate { axis: 0 },
            "iota" => ShapeOp::Iota { dtype: DType::I32, shape, dim: 0 },
            "constant" => ShapeOp::Constant { value: Array::scalar_f32(0.0), shape },
            _ => return None,
        })
    }

    /// Hands every attribute of the op to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            ShapeOp::BroadcastInDim { shape, dims } => {
                v.shape("shape", shape)?;
                v.usizes("dims", dims, None)
            }
            ShapeOp::Reshape { shape } => v.shape("shape", shape),
            ShapeOp::Transpose { perm } => v.usizes("perm", perm, None),
            ShapeOp::Rev { axes } => v.usizes("axes", axes, None),
            ShapeOp::Slice { start, limit, strides } => {
                v.usizes("start", start, None)?;
                v.usizes("limit", limit, None)?;
                v.usizes("strides", strides, Some(vec![1; start.len()]))
            }
            ShapeOp::Pad { low, high, interior } => {
                v.ints("low", low)?;
                v.ints("high", high)?;
                v.usizes("interior", interior, Some(vec![0; low.len()]))
            }
            ShapeOp::Concatenate { axis } => v.usize("axis", axis),
            ShapeOp::Iota { dtype, shape, dim } => {
                v.dtype("dtype", dtype, None)?;
                v.shape("shape", shape)?;
                v.usize("dim", dim)
            }
            ShapeOp::Constant { value, shape } => v.literal("value", value, shape),
        }
    }
}

/// Evaluates a structural op on its operands.
pub(crate) fn eval(op: &ShapeOp, a: &[&Array]) -> Result<Array, String> {
    use super::operands;
    match op {
        ShapeOp::BroadcastInDim { shape, dims } => eval_broadcast_in_dim(shape, dims, operands::<1>(a)?[0]),
        ShapeOp::Reshape { shape } => eval_reshape(shape, operands::<1>(a)?[0]),
        ShapeOp::Transpose { perm } => eval_transpose(perm, operands::<1>(a)?[0]),
        ShapeOp::Rev { axes } => eval_rev(axes, operands::<1>(a)?[0]),
        ShapeOp::Slice { start, limit, strides } => eval_slice(start, limit, strides, operands::<1>(a)?[0]),
        ShapeOp::Pad { low, high, interior } => {
            let [x, v] = operands(a)?;
            eval_pad(low, high, interior, x, v)
        }
        ShapeOp::Concatenate { axis } => eval_concatenate(*axis, a),
        ShapeOp::Iota { dtype, shape, dim } => operands::<0>(a).and_then(|_| eval_iota(*dtype, shape, *dim)),
        ShapeOp::Constant { value, shape } => operands::<0>(a).and_then(|_| eval_constant(value, shape)),
    }
}

/// The property-table row of a structural op: views that move elements (an expanding
/// broadcast reads an element for several results), and the two sources.
pub(crate) fn props(op: &ShapeOp) -> super::props::Props {
    use super::props::{Class, Props, Replicates};
    match op {
        ShapeOp::BroadcastInDim { .. } => Props { replicates: Replicates::WhenLarger, ..Props::movement(Class::View) },
        ShapeOp::Reshape { .. }
        | ShapeOp::Transpose { .. }
        | ShapeOp::Rev { .. }
        | ShapeOp::Slice { .. }
        | ShapeOp::Pad { .. }
        | ShapeOp::Concatenate { .. } => Props::movement(Class::View),
        ShapeOp::Iota { .. } | ShapeOp::Constant { .. } => Props::movement(Class::Source),
    }
}

#[cfg(test)]
#[path = "../tests/shape.rs"]
mod tests;
