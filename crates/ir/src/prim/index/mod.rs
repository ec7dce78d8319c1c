//! Indexing primitives: `dynamic_slice`, `dynamic_update_slice`, `gather`,
//! `scatter_add`. Indices are i32 and clamped so that every access is in bounds.

use super::ad::LinearIn;
use super::layout::{self, View, copy_data, gather_array, map_data};
use super::shape::instantiate;
use super::{check_axis, check_len, expect_arity};
use crate::Type;
use crate::attr::AttrVisitor;
use crate::prim::TernaryOp;
use crate::prim::unary::UnaryDomain;
use crate::{Emitter, Prim, Value};
use ferrax_array::{Array, DType, Data, Shape};

fn check_start_indices(op: &str, indices: &[Type], rank: usize) -> Result<(), String> {
    if indices.len() != rank {
        return Err(format!("{op}: expects {rank} start indices (one per axis), got {}", indices.len()));
    }
    for (i, ty) in indices.iter().enumerate() {
        if ty.dtype != DType::I32 || ty.rank() != 0 {
            return Err(format!("{op}: start index {i} must be i32[], got {ty}"));
        }
    }
    Ok(())
}

// ---- type rules ----

pub(crate) fn infer_dynamic_slice(sizes: &[usize], inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "dynamic_slice";
    let Some((x, indices)) = inputs.split_first() else {
        return Err(format!("{op}: expects an operand and start indices, got 0 operands"));
    };
    check_start_indices(op, indices, x.rank())?;
    check_len(op, "sizes", sizes.len(), x.rank())?;
    for (axis, (&size, &dim)) in sizes.iter().zip(x.shape.iter()).enumerate() {
        if size > dim {
            return Err(format!("{op}: size {size} of axis {axis} exceeds the operand's {dim} ({x})"));
        }
    }
    Ok(vec![Type::new(x.dtype, sizes)])
}

pub(crate) fn infer_dynamic_update_slice(inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "dynamic_update_slice";
    if inputs.len() < 2 {
        return Err(format!("{op}: expects an operand, an update and start indices, got {} operands", inputs.len()));
    }
    let (x, update) = (&inputs[0], &inputs[1]);
    if update.dtype != x.dtype
        || update.rank() != x.rank()
        || update.shape.iter().zip(x.shape.iter()).any(|(u, d)| u > d)
    {
        return Err(format!("{op}: update {update} does not fit in operand {x}"));
    }
    check_start_indices(op, &inputs[2..], x.rank())?;
    Ok(vec![x.clone()])
}

/// The result shape of `gather`: `x.shape[:axis] + idx.shape[batch_dims:] + x.shape[axis+1:]`.
fn gather_shape(op: &str, axis: usize, batch_dims: usize, x: &Type, idx: &Type) -> Result<Shape, String> {
    if idx.dtype != DType::I32 {
        return Err(format!("{op}: indices must be i32, got {idx}"));
    }
    check_axis(op, "axis", axis, x.rank())?;
    if batch_dims > axis || batch_dims > idx.rank() {
        return Err(format!(
            "{op}: batch_dims={batch_dims} must be <= axis ({axis}) and <= the indices' rank ({})",
            idx.rank()
        ));
    }
    if x.shape[..batch_dims] != idx.shape[..batch_dims] {
        return Err(format!("{op}: the {batch_dims} leading batch axes differ: {x} vs {idx}"));
    }
    let mut shape: Shape = x.shape[..axis].into();
    shape.extend_from_slice(&idx.shape[batch_dims..]);
    shape.extend_from_slice(&x.shape[axis + 1..]);
    Ok(shape)
}

pub(crate) fn infer_gather(axis: usize, batch_dims: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    expect_arity("gather", inputs, 2)?;
    let shape = gather_shape("gather", axis, batch_dims, &inputs[0], &inputs[1])?;
    Ok(vec![Type { dtype: inputs[0].dtype, shape }])
}

pub(crate) fn infer_scatter_add(axis: usize, batch_dims: usize, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let op = "scatter_add";
    expect_arity(op, inputs, 3)?;
    let (x, idx, updates) = (&inputs[0], &inputs[1], &inputs[2]);
    if x.dtype == DType::Bool {
        return Err(format!("{op}: operand must be numeric, got {x}"));
    }
    let shape = gather_shape(op, axis, batch_dims, x, idx)?;
    let expected = Type { dtype: x.dtype, shape };
    if *updates != expected {
        return Err(format!("{op}: updates must be {expected}, got {updates}"));
    }
    Ok(vec![x.clone()])
}

/// The type rule of an indexing op.
pub(crate) fn infer(op: &IndexOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    match op {
        IndexOp::DynamicSlice { sizes } => infer_dynamic_slice(sizes, inputs),
        IndexOp::DynamicUpdateSlice => infer_dynamic_update_slice(inputs),
        IndexOp::Gather { axis, batch_dims } => infer_gather(*axis, *batch_dims, inputs),
        IndexOp::ScatterAdd { axis, batch_dims } => infer_scatter_add(*axis, *batch_dims, inputs),
    }
}

// ---- evaluation (the reference interpreter's rules) ----
//
// Each rule re-checks the facts its index arithmetic relies on (the type rule, against
// the arrays it is given) and returns an error rather than panic.

fn type_of(x: &Array) -> Type {
    Type::new(x.dtype(), x.shape())
}

/// The start of each axis: the i32 scalar `starts[k]` clamped to `[0, dims[k] - sizes[k]]`
/// so that a box of `sizes` fits.
fn clamped_starts(op: &str, starts: &[&Array], dims: &[usize], sizes: &[usize]) -> Result<Shape, String> {
    let mut out = Shape::new();
    for (k, ((a, &dim), &size)) in starts.iter().zip(dims).zip(sizes).enumerate() {
        let Some(&[i]) = a.as_i32() else {
            return Err(format!("{op}: start index {k} must be i32[], got {}", type_of(a)));
        };
        let max = dim.checked_sub(size).ok_or_else(|| format!("{op}: size {size} exceeds axis {k} of size {dim}"))?;
        out.push(usize::try_from(i).unwrap_or(0).min(max));
    }
    Ok(out)
}

/// `dynamic_slice`: the box of `sizes` at the clamped start indices.
pub(crate) fn eval_dynamic_slice(sizes: &[usize], x: &Array, starts: &[&Array]) -> Result<Array, String> {
    let op = "dynamic_slice";
    let mut types = vec![type_of(x)];
    types.extend(starts.iter().map(|a| type_of(a)));
    infer_dynamic_slice(sizes, &types)?;
    let begin = clamped_starts(op, starts, x.shape(), sizes)?;
    if sizes.contains(&0) {
        return Array::new(Shape::from(sizes), Data::zeros(x.dtype(), 0)).map_err(|e| e.to_string());
    }
    let xs = layout::strides(x.shape());
    gather_array(x, View { base: layout::offset(&begin, &xs), strides: &xs }, sizes)
}

/// `dynamic_update_slice`: a copy of `x` with `update` written at the clamped start
/// indices.
pub(crate) fn eval_dynamic_update_slice(x: &Array, update: &Array, starts: &[&Array]) -> Result<Array, String> {
    let op = "dynamic_update_slice";
    let mut types = vec![type_of(x), type_of(update)];
    types.extend(starts.iter().map(|a| type_of(a)));
    infer_dynamic_update_slice(&types)?;
    let begin = clamped_starts(op, starts, x.shape(), update.shape())?;
    let mut data = x.data().clone();
    if !update.is_empty() {
        let xs = layout::strides(x.shape());
        let dv = View { base: layout::offset(&begin, &xs), strides: &xs };
        let us = layout::strides(update.shape());
        copy_data(update.data(), View::contiguous(&us), &mut data, dv, update.shape())?;
    }
    Array::new(x.shape(), data).map_err(|e| e.to_string())
}

/// The loop nest shared by `gather` and `scatter_add`. `x` is seen as
/// `[batch, pre, dim, inner]` (batch axes, the other axes before `axis`, `axis`, the
/// axes after it), the indices as `[batch, idx]` and the result (the updates) as
/// `[batch, pre, idx, inner]`.
struct Take<'a> {
    batch: usize,
    pre: usize,
    dim: usize,
    inner: usize,
    idx: usize,
    indices: &'a [i32],
}

impl<'a> Take<'a> {
    /// Checks the operands (as the type rule does) and measures the loop nest.
    fn new(
        op: &str,
        axis: usize,
        batch_dims: usize,
        x: &Array,
        indices: &'a Array,
    ) -> Result<(Take<'a>, Shape), String> {
        let shape = gather_shape(op, axis, batch_dims, &type_of(x), &type_of(indices))?;
        let count = |dims: &[usize]| ferrax_array::element_count(dims).map_err(|e| e.to_string());
        let take = Take {
            batch: count(&x.shape()[..batch_dims])?,
            pre: count(&x.shape()[batch_dims..axis])?,
            dim: x.shape()[axis],
            inner: count(&x.shape()[axis + 1..])?,
            idx: count(&indices.shape()[batch_dims..])?,
            indices: indices.as_i32().ok_or_else(|| format!("{op}: indices must be i32"))?,
        };
        Ok((take, shape))
    }

    /// Calls `visit(x_offset, result_offset)` for every row of `inner` elements, in
    /// result order. The index is clamped to `[0, dim - 1]`; `dim` must not be 0.
    fn for_each(&self, mut visit: impl FnMut(usize, usize)) {
        let mut at = 0;
        for b in 0..self.batch {
            let row = &self.indices[b * self.idx..(b + 1) * self.idx];
            for p in 0..self.pre {
                let base = (b * self.pre + p) * self.dim;
                for &i in row {
                    let k = usize::try_from(i).unwrap_or(0).min(self.dim - 1);
                    visit((base + k) * self.inner, at);
                    at += self.inner;
                }
            }
        }
    }
}

/// The rows of `src` picked by `take`, in result order.
fn take_rows<T: Copy + Default>(src: &[T], take: &Take<'_>, total: usize) -> Vec<T> {
    if take.dim == 0 {
        return vec![T::default(); total];
    }
    let mut out = Vec::with_capacity(total);
    if take.inner == 1 {
        take.for_each(|from, _| out.push(src[from]));
    } else {
        take.for_each(|from, _| out.extend_from_slice(&src[from..from + take.inner]));
    }
    out
}

/// Adds the rows of `updates` onto the rows of `dst` picked by `take`.
fn add_rows<T: Copy>(dst: &mut [T], take: &Take<'_>, updates: &[T], add: impl Fn(T, T) -> T) {
    if take.dim == 0 {
        return;
    }
    take.for_each(|to, from| {
        for (d, &u) in dst[to..to + take.inner].iter_mut().zip(&updates[from..from + take.inner]) {
            *d = add(*d, u);
        }
    });
}

/// `gather`: `take` along `axis` after `batch_dims` leading batch axes, with indices
/// clamped to `[0, dim - 1]`. Reading from a zero-size axis gives zeros (`false`): the
/// only linear map out of an empty space, which keeps `scatter_add` its transpose.
pub(crate) fn eval_gather(axis: usize, batch_dims: usize, x: &Array, indices: &Array) -> Result<Array, String> {
    let (take, shape) = Take::new("gather", axis, batch_dims, x, indices)?;
    let total = ferrax_array::element_count(&shape).map_err(|e| e.to_string())?;
    let data = map_data!(x.data(), |v| take_rows(v, &take, total));
    Array::new(shape, data).map_err(|e| e.to_string())
}

/// `scatter_add`: a copy of `x` with each row of `updates` added at the row `gather`
/// would read it from (clamped indices; duplicates accumulate; integers wrap).
pub(crate) fn eval_scatter_add(
    axis: usize,
    batch_dims: usize,
    x: &Array,
    indices: &Array,
    updates: &Array,
) -> Result<Array, String> {
    let op = "scatter_add";
    infer_scatter_add(axis, batch_dims, &[type_of(x), type_of(indices), type_of(updates)])?;
    let (take, _) = Take::new(op, axis, batch_dims, x, indices)?;
    let mut data = x.data().clone();
    match (&mut data, updates.data()) {
        (Data::I32(d), Data::I32(u)) => add_rows(d, &take, u, i32::wrapping_add),
        (Data::F32(d), Data::F32(u)) => add_rows(d, &take, u, |a, b| a + b),
        (Data::F64(d), Data::F64(u)) => add_rows(d, &take, u, |a, b| a + b),
        (d, u) => return Err(format!("{op}: cannot add {} updates into {}", u.dtype(), d.dtype())),
    }
    Array::new(x.shape(), data).map_err(|e| e.to_string())
}

// ---- differentiation rules (jvp; transpose for the linear primitives) ----

/// The jvp rule of the indexing primitives, which are linear in their operand (and
/// update) and take the i32 indices, which have no tangent, as they are:
///
/// - `dynamic_slice(t_x, i...)` and `gather(t_x, idx)`;
/// - `dynamic_update_slice(t_x, t_update, i...)`, a zero tangent instantiated as zeros
///   (a zero `t_update` still overwrites the window of `t_x`);
/// - `scatter_add(t_x, idx, t_updates)`: just `t_x` when `t_updates` is zero, and
///   `t_x` instantiated as zeros when only `t_updates` is not.
pub(crate) fn jvp_index(
    em: &mut Emitter,
    prim: &IndexOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let float_out = outputs.first().is_some_and(|&out| em.ty(out).dtype.is_float());
    if !float_out || tangents.iter().all(Option::is_none) {
        return Ok(vec![None]);
    }
    let arity_error = || {
        format!("{}: {} tangents for {} operands (expects one per operand)", prim.name(), tangents.len(), primals.len())
    };
    if primals.len() != tangents.len() {
        return Err(arity_error());
    }
    let mut inputs = primals.to_vec();
    match prim {
        IndexOp::DynamicSlice { .. } | IndexOp::Gather { .. } => match tangents.first() {
            Some(&Some(t_x)) => inputs[0] = t_x,
            Some(None) => return Ok(vec![None]),
            None => return Err(arity_error()),
        },
        IndexOp::DynamicUpdateSlice => {
            let [t_x, t_update, ..] = tangents else { return Err(arity_error()) };
            inputs[0] = instantiate(em, *t_x, primals[0])?;
            inputs[1] = instantiate(em, *t_update, primals[1])?;
        }
        IndexOp::ScatterAdd { .. } => {
            let [t_x, _, t_updates] = tangents else { return Err(arity_error()) };
            let Some(t_updates) = t_updates else { return Ok(vec![*t_x]) };
            inputs[0] = instantiate(em, *t_x, primals[0])?;
            inputs[2] = *t_updates;
        }
    }
    Ok(vec![Some(em.op(Prim::Index(prim.clone()), &inputs)?)])
}

/// The transpose rule of the indexing primitives, linear in their array operands
/// (the i32 indices must be residuals):
///
/// - `dynamic_slice(x, i...)`: writes the cotangent into zeros of `x`'s type with
///   `dynamic_update_slice` at the same indices;
/// - `dynamic_update_slice(x, u, i...)`: `x` gets the cotangent with the updated box
///   zeroed, `u` gets that box (`dynamic_slice`);
/// - `gather(x, idx)`: `scatter_add` of the cotangent into zeros of `x`'s type;
/// - `scatter_add(x, idx, u)`: `x` gets the cotangent, `u` gathers it at `idx`.
///
/// Both directions clamp the start indices in the same way (a box of the same size
/// in an array of the same shape), so the transpose reads and writes exactly the
/// elements the forward equation wrote and read.
pub(crate) fn transpose_index(
    em: &mut Emitter,
    prim: &IndexOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let op = prim.name();
    let [ct] = *cts else {
        return Err(format!("{op}: transpose expects 1 cotangent, got {}", cts.len()));
    };
    match prim {
        IndexOp::DynamicSlice { .. } => {
            let Some((x, starts)) = inputs.split_first() else {
                return Err(format!("{op}: transpose expects an operand and start indices, got no inputs"));
            };
            let starts = index_residuals(op, starts)?;
            let (LinearIn::Linear(x_ty), Some(ct)) = (x, ct) else {
                return Ok(vec![None; inputs.len()]);
            };
            let zeros = em.zeros(x_ty)?;
            let mut out = vec![None; inputs.len()];
            out[0] = Some(em.op(IndexOp::DynamicUpdateSlice, &[&[zeros, ct][..], &starts].concat())?);
            Ok(out)
        }
        IndexOp::DynamicUpdateSlice => {
            let [x, update, starts @ ..] = inputs else {
                return Err(format!("{op}: transpose expects an operand, an update and start indices"));
            };
            let starts = index_residuals(op, starts)?;
            let Some(ct) = ct else {
                return Ok(vec![None; inputs.len()]);
            };
            let update_ty = input_type(em, update);
            let ct_x = if x.is_linear() {
                let zeros = em.zeros(&update_ty)?;
                Some(em.op(IndexOp::DynamicUpdateSlice, &[&[ct, zeros][..], &starts].concat())?)
            } else {
                None
            };
            let ct_update = if update.is_linear() {
                let sizes = update_ty.shape.to_vec();
                Some(em.op(IndexOp::DynamicSlice { sizes }, &[&[ct][..], &starts].concat())?)
            } else {
                None
            };
            let mut out = vec![ct_x, ct_update];
            out.resize(inputs.len(), None);
            Ok(out)
        }
        IndexOp::Gather { axis, batch_dims } => {
            let [x, idx] = inputs else {
                return Err(format!("{op}: transpose expects 2 inputs, got {}", inputs.len()));
            };
            let idx = idx.residual("the indices of gather")?;
            let (LinearIn::Linear(x_ty), Some(ct)) = (x, ct) else {
                return Ok(vec![None, None]);
            };
            let zeros = em.zeros(x_ty)?;
            let scatter = IndexOp::ScatterAdd { axis: *axis, batch_dims: *batch_dims };
            Ok(vec![Some(em.op(scatter, &[zeros, idx, ct])?), None])
        }
        IndexOp::ScatterAdd { axis, batch_dims } => {
            let [x, idx, updates] = inputs else {
                return Err(format!("{op}: transpose expects 3 inputs, got {}", inputs.len()));
            };
            let idx = idx.residual("the indices of scatter_add")?;
            let Some(ct) = ct else {
                return Ok(vec![None, None, None]);
            };
            let ct_updates = if updates.is_linear() {
                let gather = IndexOp::Gather { axis: *axis, batch_dims: *batch_dims };
                Some(em.op(gather, &[ct, idx])?)
            } else {
                None
            };
            Ok(vec![x.is_linear().then_some(ct), None, ct_updates])
        }
    }
}

/// The start indices of a dynamic slice, which must all be residuals.
fn index_residuals(op: &str, starts: &[LinearIn]) -> Result<Vec<Value>, String> {
    starts.iter().enumerate().map(|(k, s)| s.residual(&format!("start index {k} of {op}"))).collect()
}

/// The type of an input of an equation being transposed.
fn input_type(em: &Emitter, input: &LinearIn) -> Type {
    match input {
        LinearIn::Linear(ty) => ty.clone(),
        LinearIn::Residual(v) => em.ty(*v).clone(),
    }
}

/// An indexing primitive: reads or writes at indices computed at run time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IndexOp {
    /// A box of static `sizes` at dynamic i32 start indices, clamped to fit.
    DynamicSlice {
        /// Size per axis.
        sizes: Vec<usize>,
    },
    /// Writes `update` into `x` at dynamic start indices, clamped to fit.
    DynamicUpdateSlice,
    /// `take` along `axis` after `batch_dims` leading batch axes; indices clamped.
    Gather {
        /// The indexed axis of `x`.
        axis: usize,
        /// Leading axes shared by `x` and the indices.
        batch_dims: usize,
    },
    /// The transpose of `gather`: adds `updates` into `x` at the indices.
    ScatterAdd {
        /// The indexed axis of `x`.
        axis: usize,
        /// Leading axes shared by `x`, the indices and the updates.
        batch_dims: usize,
    },
}

impl Prim {
    /// `gather` along `axis` with `batch_dims` leading batch axes shared by operand
    /// and indices.
    pub fn gather(axis: usize, batch_dims: usize) -> Prim {
        Prim::Index(IndexOp::Gather { axis, batch_dims })
    }

    /// `dynamic_update_slice(operand, update, starts...)`: the operand with `update`
    /// written at the (clamped) start indices.
    pub fn dynamic_update_slice() -> Prim {
        Prim::Index(IndexOp::DynamicUpdateSlice)
    }
}

impl IndexOp {
    /// The name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            IndexOp::DynamicSlice { .. } => "dynamic_slice",
            IndexOp::DynamicUpdateSlice => "dynamic_update_slice",
            IndexOp::Gather { .. } => "gather",
            IndexOp::ScatterAdd { .. } => "scatter_add",
        }
    }

    /// The op named `name`, with placeholder parameters that
    /// [`IndexOp::visit_attrs`] then fills.
    pub(crate) fn blank(name: &str) -> Option<IndexOp> {
        Some(match name {
            "dynamic_slice" => IndexOp::DynamicSlice { sizes: vec![] },
            "dynamic_update_slice" => IndexOp::DynamicUpdateSlice,
            "gather" => IndexOp::Gather { axis: 0, batch_dims: 0 },
            "scatter_add" => IndexOp::ScatterAdd { axis: 0, batch_dims: 0 },
            _ => return None,
        })
    }

    /// Hands every attribute of the op to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            IndexOp::DynamicSlice { sizes } => v.usizes("sizes", sizes, None),
            IndexOp::DynamicUpdateSlice => Ok(()),
            IndexOp::Gather { axis, batch_dims } | IndexOp::ScatterAdd { axis, batch_dims } => {
                v.usize("axis", axis)?;
                v.usize_or("batch_dims", batch_dims, 0)
            }
        }
    }
}

/// Evaluates an indexing op on its operands.
pub(crate) fn eval(op: &IndexOp, a: &[&Array]) -> Result<Array, String> {
    match op {
        IndexOp::DynamicSlice { sizes } => match a {
            [x, starts @ ..] => eval_dynamic_slice(sizes, x, starts),
            [] => Err(super::arity(1, 0)),
        },
        IndexOp::DynamicUpdateSlice => match a {
            [x, update, starts @ ..] => eval_dynamic_update_slice(x, update, starts),
            _ => Err(super::arity(2, a.len())),
        },
        IndexOp::Gather { axis, batch_dims } => {
            let [x, i] = super::operands(a)?;
            eval_gather(*axis, *batch_dims, x, i)
        }
        IndexOp::ScatterAdd { axis, batch_dims } => {
            let [x, i, u] = super::operands(a)?;
            eval_scatter_add(*axis, *batch_dims, x, i, u)
        }
    }
}

/// The property-table row of an indexing op: the reads are views (a gather's indices
/// may repeat), the writes launches; `scatter_add` is a float sum of its updates.
pub(crate) fn props(op: &IndexOp) -> super::props::Props {
    use super::props::{Class, Flops, Props, Replicates};
    match op {
        IndexOp::DynamicSlice { .. } => Props::movement(Class::View),
        IndexOp::Gather { .. } => Props { replicates: Replicates::Yes, ..Props::movement(Class::View) },
        IndexOp::DynamicUpdateSlice => Props::movement(Class::Launch),
        IndexOp::ScatterAdd { .. } => Props {
            flops: Flops::PerInputElement(2),
            reassociates_over: &[0, 2],
            domain: UnaryDomain::Numeric,
            ..Props::movement(Class::Launch)
        },
    }
}

mod batch;

pub(crate) use batch::batch_index;

#[cfg(test)]
#[path = "../tests/index.rs"]
mod tests;
