//! Sorting: `sort` (several operands along one axis, by the first `num_keys`) and
//! `top_k` (the `k` largest along the last axis, with their indices), as `jax.lax`.
//!
//! - `sort`'s key order is `lax.sort`'s: `-0.0` and `+0.0` are equal, every NaN is equal
//!   to every other NaN and greater than `+inf`, `false < true`; 16-bit floats compare
//!   by their f32 value. Only keys are compared; every operand keeps its bits.
//! - `top_k` orders floats as XLA's TopK does (measured against JAX): by IEEE 754's
//!   total order, so `+0.0` ranks above `-0.0`, a NaN with the sign bit clear above
//!   `+inf` and one with it set below `-inf`.
//! - `sort` is stable; `top_k` returns values in descending order, ties broken by the
//!   lower index.
//! - jvp: both permute their operands, so each tangent is gathered with the same
//!   permutation (`sort` sorts an extra `iota` operand along its axis to get it);
//!   integer and bool operands have no tangent. Neither is linear (no transpose rule).
//! - batching: `sort` renumbers its axis past the batch axis; `top_k` works on the
//!   last axis, so the batch axis moves to the front.

use super::batch::Batched;
use super::check_axis;
use super::elements::array;
use super::layout::map_data;
use super::props::{Class, Flops, Props};
use crate::attr::AttrVisitor;
use crate::{Emitter, Type, Value};
use ferrax_array::{Array, DType, Data};
use std::cmp::Ordering;

/// The sort family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortOp {
    /// `sort[dimension, is_stable, num_keys](operands...)`: every operand (same shape)
    /// permuted along `dimension` so that the first `num_keys` operands are in
    /// ascending lexicographic order (see the module docs for the key order).
    Sort {
        /// The sorted axis (non-negative; required in the text form).
        dimension: usize,
        /// Equal keys keep their order (always honoured: the sort is stable).
        is_stable: bool,
        /// How many leading operands are keys (at least 1).
        num_keys: usize,
    },
    /// `top_k[k](x)`: the `k` largest elements along the last axis in descending order,
    /// and their i32 indices.
    TopK {
        /// How many elements to keep (at most the last axis' size).
        k: usize,
    },
}

impl SortOp {
    /// The op's name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            SortOp::Sort { .. } => "sort",
            SortOp::TopK { .. } => "top_k",
        }
    }

    /// The op named `name`, with placeholder attributes that `visit_attrs` fills.
    pub(crate) fn blank(name: &str) -> Option<SortOp> {
        match name {
            "sort" => Some(SortOp::Sort { dimension: 0, is_stable: true, num_keys: 1 }),
            "top_k" => Some(SortOp::TopK { k: 0 }),
            _ => None,
        }
    }

    /// Hands every attribute to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            SortOp::Sort { dimension, is_stable, num_keys } => {
                v.usize("dimension", dimension)?;
                v.bool_or("is_stable", is_stable, true)?;
                v.usize_or("num_keys", num_keys, 1)
            }
            SortOp::TopK { k } => v.usize("k", k),
        }
    }
}

// ---- type rule ----

/// The type rule: `sort` returns its operands' types, `top_k` `(x[..., k], i32[..., k])`.
pub(crate) fn infer(op: SortOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let name = op.name();
    match op {
        SortOp::Sort { dimension, is_stable: _, num_keys } => {
            let Some(first) = inputs.first() else {
                return Err(format!("{name}: expects at least 1 operand, got 0"));
            };
            for (i, t) in inputs.iter().enumerate().skip(1) {
                if t.shape != first.shape {
                    return Err(format!("{name}: operand {i} has shape {t} but operand 0 has {first}"));
                }
            }
            if num_keys == 0 || num_keys > inputs.len() {
                return Err(format!("{name}: num_keys {num_keys} must be in 1..={} (the operand count)", inputs.len()));
            }
            check_axis(name, "dimension", dimension, first.rank())?;
            Ok(inputs.to_vec())
        }
        SortOp::TopK { k } => {
            super::expect_arity(name, inputs, 1)?;
            let x = &inputs[0];
            let Some(&n) = x.shape.last() else {
                return Err(format!("{name}: operand {x} has no last axis"));
            };
            if k > n {
                return Err(format!("{name}: k {k} exceeds the last axis size {n} of {x}"));
            }
            let mut shape = x.shape.clone();
            *shape.last_mut().unwrap_or(&mut 0) = k;
            Ok(vec![Type { dtype: x.dtype, shape: shape.clone() }, Type { dtype: DType::I32, shape }])
        }
    }
}

// ---- evaluation ----

/// NaN-last total order of floats, `-0 == +0`, all NaNs equal.
fn float_order(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Compares elements `i` and `j` of `data` in IEEE 754's total order (`top_k`'s).
fn total_order(data: &Data, i: usize, j: usize) -> Ordering {
    match data {
        Data::Bool(v) => v[i].cmp(&v[j]),
        Data::I32(v) => v[i].cmp(&v[j]),
        Data::BF16(v) => v[i].to_f32().total_cmp(&v[j].to_f32()),
        Data::F16(v) => v[i].to_f32().total_cmp(&v[j].to_f32()),
        Data::F32(v) => v[i].total_cmp(&v[j]),
        Data::F64(v) => v[i].total_cmp(&v[j]),
    }
}

/// Compares elements `i` and `j` of `data` in `sort`'s key order.
fn key_order(data: &Data, i: usize, j: usize) -> Ordering {
    match data {
        Data::Bool(v) => v[i].cmp(&v[j]),
        Data::I32(v) => v[i].cmp(&v[j]),
        Data::BF16(v) => float_order(f64::from(v[i].to_f32()), f64::from(v[j].to_f32())),
        Data::F16(v) => float_order(f64::from(v[i].to_f32()), f64::from(v[j].to_f32())),
        Data::F32(v) => float_order(f64::from(v[i]), f64::from(v[j])),
        Data::F64(v) => float_order(v[i], v[j]),
    }
}

/// The lanes of `shape` along `axis`: `(outer, n, inner)`.
fn lanes(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (shape[..axis].iter().product(), shape[axis], shape[axis + 1..].iter().product())
}

/// The order `permutation` sorts by.
type Order = fn(&Data, usize, usize) -> Ordering;

/// Per lane, the stable permutation sorting `keys` lexicographically in `order` along
/// `axis` (ascending, or descending with `descending`), truncated to the first `m`.
fn permutation(keys: &[&Array], order: Order, axis: usize, descending: bool, m: usize) -> Vec<usize> {
    let (outer, n, inner) = lanes(keys[0].shape(), axis);
    let mut perm = Vec::with_capacity(outer * inner * m);
    let mut by_lane = vec![0usize; outer * inner * m];
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * n + j) * inner + i;
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by(|&a, &b| {
                let ord = keys.iter().map(|k| order(k.data(), at(a), at(b))).find(|o| o.is_ne());
                let ord = ord.unwrap_or(Ordering::Equal);
                if descending { ord.reverse() } else { ord }
            });
            for (j, &p) in idx.iter().take(m).enumerate() {
                by_lane[(o * inner + i) * m + j] = p;
            }
        }
    }
    // Reorder to `[outer, m, inner]`, the layout `permute_lanes` reads per element.
    for o in 0..outer {
        for j in 0..m {
            for i in 0..inner {
                perm.push(by_lane[(o * inner + i) * m + j]);
            }
        }
    }
    perm
}

/// Applies the per-element source positions `perm` (`[outer, m, inner]`) to `x`.
fn take(x: &Array, axis: usize, m: usize, perm: &[usize]) -> Result<Array, String> {
    let (outer, n, inner) = lanes(x.shape(), axis);
    let mut shape = x.shape().to_vec();
    shape[axis] = m;
    let data = map_data!(x.data(), |v| {
        let mut out = Vec::with_capacity(outer * m * inner);
        for o in 0..outer {
            for j in 0..m {
                for i in 0..inner {
                    out.push(v[(o * n + perm[(o * m + j) * inner + i]) * inner + i]);
                }
            }
        }
        out
    });
    array(&shape, data)
}

/// Evaluates `sort` on every operand (public so the JIT's host routine shares it).
pub(crate) fn eval_sort(dimension: usize, num_keys: usize, xs: &[&Array]) -> Result<Vec<Array>, String> {
    let types: Vec<Type> = xs.iter().map(|x| Type::new(x.dtype(), x.shape())).collect();
    infer(SortOp::Sort { dimension, is_stable: true, num_keys }, &types)?;
    let n = xs[0].shape()[dimension];
    let perm = permutation(&xs[..num_keys], key_order, dimension, false, n);
    xs.iter().map(|x| take(x, dimension, n, &perm)).collect()
}

/// Evaluates `top_k` (public so the JIT's host routine shares it): values and i32
/// indices of the `k` largest along the last axis.
pub(crate) fn eval_top_k(k: usize, x: &Array) -> Result<Vec<Array>, String> {
    infer(SortOp::TopK { k }, &[Type::new(x.dtype(), x.shape())])?;
    let axis = x.rank() - 1;
    let n = x.shape()[axis];
    if i32::try_from(n).is_err() {
        return Err(format!("top_k: axis of length {n} has no i32 index"));
    }
    let perm = permutation(&[x], total_order, axis, true, k);
    let values = take(x, axis, k, &perm)?;
    let mut shape = x.shape().to_vec();
    shape[axis] = k;
    let indices = array(&shape, Data::I32(perm.iter().map(|&p| p as i32).collect()))?;
    Ok(vec![values, indices])
}

/// Evaluates a sort-family op.
pub(crate) fn eval(op: SortOp, xs: &[&Array]) -> Result<Vec<Array>, String> {
    match op {
        SortOp::Sort { dimension, is_stable: _, num_keys } => eval_sort(dimension, num_keys, xs),
        SortOp::TopK { k } => match xs {
            [x] => eval_top_k(k, x),
            _ => Err(super::arity(1, xs.len())),
        },
    }
}

// ---- differentiation ----

/// `t` gathered along `axis` at the i32 positions `idx` (same rank, the other axes
/// equal): `take_along_axis`, as a `gather` on the last axis with the others batch axes.
fn take_along(em: &mut Emitter, t: Value, idx: Value, axis: usize) -> Result<Value, String> {
    let last = em.ty(t).rank() - 1;
    let t_last = em.move_axis(t, axis, last)?;
    let idx_last = em.move_axis(idx, axis, last)?;
    let taken = em.op(crate::Prim::gather(last, last), &[t_last, idx_last])?;
    em.move_axis(taken, last, axis)
}

/// The jvp rule: each output's tangent is its operand's tangent taken with the sort's
/// permutation (from a `sort` with an extra `iota` operand; `top_k`'s indices).
pub(crate) fn jvp(
    em: &mut Emitter,
    op: SortOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let float = |em: &Emitter, v: Value| em.ty(v).dtype.is_float();
    match op {
        SortOp::Sort { dimension, is_stable, num_keys } => {
            if tangents.len() != primals.len() {
                return Err(format!("sort: {} tangents for {} operands", tangents.len(), primals.len()));
            }
            if tangents.iter().zip(primals).all(|(t, &p)| t.is_none() || !float(em, p)) {
                return Ok(vec![None; primals.len()]);
            }
            let shape = em.ty(primals[0]).shape.clone();
            let iota = em.iota(&shape, dimension)?;
            let mut operands = primals[..num_keys].to_vec();
            operands.push(iota);
            let sorted = em.eqn(&crate::Module::new(), SortOp::Sort { dimension, is_stable, num_keys }, &operands)?;
            let perm = sorted[num_keys];
            let mut out = Vec::with_capacity(primals.len());
            for (t, &p) in tangents.iter().zip(primals) {
                out.push(match t {
                    Some(t) if float(em, p) => Some(take_along(em, *t, perm, dimension)?),
                    _ => None,
                });
            }
            Ok(out)
        }
        SortOp::TopK { k: _ } => {
            let (&[x], &[_, idx], &[t]) = (primals, outputs, tangents) else {
                return Err("top_k: expects 1 operand, 2 results and 1 tangent".into());
            };
            match t {
                Some(t) if float(em, x) => {
                    let last = em.ty(x).rank() - 1;
                    let taken = em.op(crate::Prim::gather(last, last), &[t, idx])?;
                    Ok(vec![Some(taken), None])
                }
                _ => Ok(vec![None, None]),
            }
        }
    }
}

/// The transpose rule: neither op is linear.
pub(crate) fn transpose(op: SortOp) -> Result<Vec<Option<Value>>, String> {
    match op {
        SortOp::Sort { .. } | SortOp::TopK { .. } => Err(super::ad::not_linear(op.name())),
    }
}

// ---- batching ----

/// The batching rule: `sort` moves every operand's batch axis to that of the first
/// batched one (unbatched operands are broadcast there) and sorts along its axis
/// renumbered past it; `top_k` sorts the last axis, so its batch axis goes to the front.
pub(crate) fn batch(
    em: &mut Emitter,
    op: SortOp,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let name = op.name();
    if inputs.len() != dims.len() {
        return Err(format!("{name}: {} operands but {} batch axes", inputs.len(), dims.len()));
    }
    let Some(d) = dims.iter().flatten().next().copied() else {
        return Err(format!("{name}: no operand is batched"));
    };
    match op {
        SortOp::Sort { dimension, is_stable, num_keys } => {
            let mut xs = Vec::with_capacity(inputs.len());
            for (&x, &dim) in inputs.iter().zip(dims) {
                xs.push(em.batch_at(x, dim, size, d)?);
            }
            let dimension = if dimension >= d { dimension + 1 } else { dimension };
            let out = em.eqn(&crate::Module::new(), SortOp::Sort { dimension, is_stable, num_keys }, &xs)?;
            Ok((out.to_vec(), vec![Some(d); out.len()]))
        }
        SortOp::TopK { k } => {
            let x = em.move_axis(inputs[0], d, 0)?;
            let out = em.eqn(&crate::Module::new(), SortOp::TopK { k }, &[x])?;
            Ok((out.to_vec(), vec![Some(0); out.len()]))
        }
    }
}

/// The property-table row: a launch of its own (never fused), exact, any dtype; the
/// cost model counts one comparison per element of the first operand, as for `cumsum`.
pub(crate) fn props(op: SortOp) -> Props {
    match op {
        SortOp::Sort { .. } | SortOp::TopK { .. } => {
            Props { flops: Flops::PerInputElement(0), ..Props::movement(Class::Launch) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `top_k` ranks by IEEE 754's total order and `sort` by `lax.sort`'s, as JAX 0.8
    /// does on CPU: `top_k([-nan, -inf, 1, nan])` is `[nan, 1, -inf, -nan]` (indices 3,
    /// 2, 1, 0) and `sort` keeps `0.0, -0.0` in their given order (they tie).
    #[test]
    fn top_k_uses_the_total_order_and_sort_ties_signed_zeros() {
        let x = Array::from_f64(&[4], vec![-f64::NAN, f64::NEG_INFINITY, 1.0, f64::NAN]).unwrap();
        let [_, idx] = <[Array; 2]>::try_from(eval_top_k(4, &x).unwrap()).unwrap();
        assert_eq!(idx.to_f64_vec(), [3.0, 2.0, 1.0, 0.0]);
        let z = Array::from_f32(&[4], vec![0.0, -0.0, -0.0, 0.0]).unwrap();
        let [_, zi] = <[Array; 2]>::try_from(eval_top_k(4, &z).unwrap()).unwrap();
        assert_eq!(zi.to_f64_vec(), [0.0, 3.0, 1.0, 2.0]);
        let sorted = eval_sort(0, 1, &[&z]).unwrap();
        let bits: Vec<bool> = sorted[0].to_f64_vec().iter().map(|v| v.is_sign_negative()).collect();
        assert_eq!(bits, [false, true, true, false]);
    }
}
