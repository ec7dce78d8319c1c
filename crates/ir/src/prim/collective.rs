//! Collectives over named axes: `psum`, `pmax`, `pmin`, `pmean`, `all_gather`,
//! `psum_scatter`, `ppermute`, `all_to_all` and `axis_index`, as `jax.lax`'s.
//!
//! A collective names an axis of workers (members). What it computes is fixed by
//! `vmap` with that axis name (`ferrax_transform::vmap_named`): the members are the
//! slices of the batch axis, and each rule below turns the collective into ordinary
//! primitives over that axis. A Func whose collectives name an axis that nothing
//! inside it binds declares it (`func @f[axis_names=["i"]]`); the verifier rejects a
//! collective over an undeclared axis, and the interpreter and the JIT refuse to run
//! one whose axis nothing binds (they name the axis); the JIT runs one as a step that
//! calls the communicator of the workers that bind it (`ferrax::pmap`).
//!
//! - `psum`, `pmax`, `pmin`, `pmean` (over a list of axis names): the sum, maximum,
//!   minimum or mean over the members, the same on every member.
//! - `all_gather[axis_name, axis, tiled, axis_size]`: every member's value stacked along a
//!   new axis `axis` (with `tiled`, concatenated along the existing axis `axis`).
//! - `psum_scatter[axis_name, scatter_dimension, tiled, axis_size]`: the sum over the
//!   members, of which member `m` keeps slice `m` along `scatter_dimension` (that axis
//!   has the axis size and goes away; with `tiled`, block `m` of it stays).
//! - `ppermute[axis_name, perm]`: member `dst` receives member `src`'s value for each
//!   pair `[src, dst]`; members that receive nothing get zeros.
//! - `all_to_all[axis_name, split_axis, concat_axis, axis_size]`: each member splits its
//!   value into `axis_size` blocks along `split_axis` and sends block `j` to member `j`,
//!   which concatenates what it receives along `concat_axis`, in member order.
//! - `axis_index[axis_name]`: the member's index, `i32[]`.
//!
//! The three ops whose result shape depends on the number of members carry it as the
//! attribute `axis_size` (JAX's `all_gather` and `psum_scatter` carry it too), so
//! every equation types on its own; the verifier checks that the collectives of a Func
//! agree on each axis' size, and binding checks it against the bound size.
//!
//! Derivatives: all but `pmax`, `pmin` and `axis_index` are linear in their operand;
//! their jvp is the same collective on the tangent and their transposes are `psum` for
//! `psum`, `pmean` for `pmean`, `psum_scatter` for `all_gather` and back, the inverse
//! permutation for `ppermute`, and the swapped axes for `all_to_all`. These follow the
//! convention that a multi-worker program's objective is the sum over the members of
//! each member's output. `pmax` and `pmin` differentiate like `reduce_max` over the
//! members: the tangents of the members that reach the extreme, averaged over ties,
//! written with `psum` so that reverse mode transposes it.

use super::ad::LinearIn;
use super::batch::Batched;
use super::props::{Class, Props};
use super::{ReduceOp, check_axis};
use crate::attr::AttrVisitor;
use crate::{Emitter, Type, Value};
use ferrax_array::DType;

/// The collective family.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CollectiveOp {
    /// `psum[axes](x)`: the sum over the members of every named axis.
    Psum {
        /// The axis names (at least one).
        axes: Vec<String>,
    },
    /// `pmax[axes](x)`: the maximum over the members.
    Pmax {
        /// The axis names (at least one).
        axes: Vec<String>,
    },
    /// `pmin[axes](x)`: the minimum over the members.
    Pmin {
        /// The axis names (at least one).
        axes: Vec<String>,
    },
    /// `pmean[axes](x)`: the mean over the members (floats only).
    Pmean {
        /// The axis names (at least one).
        axes: Vec<String>,
    },
    /// `all_gather[axis_name, axis, tiled, axis_size](x)`: every member's value, stacked.
    AllGather {
        /// The axis of members.
        axis_name: String,
        /// Where the members' values go: a new axis, or with `tiled` an existing one.
        axis: usize,
        /// Concatenate along `axis` instead of stacking along a new one.
        tiled: bool,
        /// The number of members.
        axis_size: usize,
    },
    /// `psum_scatter[axis_name, scatter_dimension, tiled, axis_size](x)`: each member's
    /// slice of the sum.
    PsumScatter {
        /// The axis of members.
        axis_name: String,
        /// The axis the sum is scattered along.
        scatter_dimension: usize,
        /// Keep a block of `scatter_dimension` instead of removing it.
        tiled: bool,
        /// The number of members.
        axis_size: usize,
    },
    /// `ppermute[axis_name, perm](x)`: values moved between members.
    Ppermute {
        /// The axis of members.
        axis_name: String,
        /// `[source, destination]` pairs; no member is a source or a destination twice.
        perm: Vec<[usize; 2]>,
    },
    /// `all_to_all[axis_name, split_axis, concat_axis, axis_size](x)`: blocks exchanged.
    AllToAll {
        /// The axis of members.
        axis_name: String,
        /// The axis split into `axis_size` blocks, block `j` going to member `j`.
        split_axis: usize,
        /// The axis the received blocks are concatenated along.
        concat_axis: usize,
        /// The number of members.
        axis_size: usize,
    },
    /// `axis_index[axis_name]()`: the member's index along the axis.
    AxisIndex {
        /// The axis of members.
        axis_name: String,
    },
}

impl CollectiveOp {
    /// The op's name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            CollectiveOp::Psum { .. } => "psum",
            CollectiveOp::Pmax { .. } => "pmax",
            CollectiveOp::Pmin { .. } => "pmin",
            CollectiveOp::Pmean { .. } => "pmean",
            CollectiveOp::AllGather { .. } => "all_gather",
            CollectiveOp::PsumScatter { .. } => "psum_scatter",
            CollectiveOp::Ppermute { .. } => "ppermute",
            CollectiveOp::AllToAll { .. } => "all_to_all",
            CollectiveOp::AxisIndex { .. } => "axis_index",
        }
    }

    /// The op named `name`, with placeholder attributes that `visit_attrs` fills.
    pub(crate) fn blank(name: &str) -> Option<CollectiveOp> {
        let axes = Vec::new();
        let axis_name = String::new();
        Some(match name {
            "psum" => CollectiveOp::Psum { axes },
            "pmax" => CollectiveOp::Pmax { axes },
            "pmin" => CollectiveOp::Pmin { axes },
            "pmean" => CollectiveOp::Pmean { axes },
            "all_gather" => CollectiveOp::AllGather { axis_name, axis: 0, tiled: false, axis_size: 0 },
            "psum_scatter" => CollectiveOp::PsumScatter { axis_name, scatter_dimension: 0, tiled: false, axis_size: 0 },
            "ppermute" => CollectiveOp::Ppermute { axis_name, perm: Vec::new() },
            "all_to_all" => CollectiveOp::AllToAll { axis_name, split_axis: 0, concat_axis: 0, axis_size: 0 },
            "axis_index" => CollectiveOp::AxisIndex { axis_name },
            _ => return None,
        })
    }

    /// Hands every attribute to `v`, in declared order.
    pub(crate) fn visit_attrs<V: AttrVisitor>(&mut self, v: &mut V) -> Result<(), String> {
        match self {
            CollectiveOp::Psum { axes }
            | CollectiveOp::Pmax { axes }
            | CollectiveOp::Pmin { axes }
            | CollectiveOp::Pmean { axes } => v.strings("axes", axes),
            CollectiveOp::AllGather { axis_name, axis, tiled, axis_size } => {
                v.string("axis_name", axis_name)?;
                v.usize("axis", axis)?;
                v.bool_or("tiled", tiled, false)?;
                v.usize("axis_size", axis_size)
            }
            CollectiveOp::PsumScatter { axis_name, scatter_dimension, tiled, axis_size } => {
                v.string("axis_name", axis_name)?;
                v.usize("scatter_dimension", scatter_dimension)?;
                v.bool_or("tiled", tiled, false)?;
                v.usize("axis_size", axis_size)
            }
            CollectiveOp::Ppermute { axis_name, perm } => {
                v.string("axis_name", axis_name)?;
                v.pairs("perm", perm, None)
            }
            CollectiveOp::AllToAll { axis_name, split_axis, concat_axis, axis_size } => {
                v.string("axis_name", axis_name)?;
                v.usize("split_axis", split_axis)?;
                v.usize("concat_axis", concat_axis)?;
                v.usize("axis_size", axis_size)
            }
            CollectiveOp::AxisIndex { axis_name } => v.string("axis_name", axis_name),
        }
    }

    /// The axis names the op reduces or communicates over.
    pub fn axis_names(&self) -> Vec<&str> {
        match self {
            CollectiveOp::Psum { axes }
            | CollectiveOp::Pmax { axes }
            | CollectiveOp::Pmin { axes }
            | CollectiveOp::Pmean { axes } => axes.iter().map(String::as_str).collect(),
            CollectiveOp::AllGather { axis_name, .. }
            | CollectiveOp::PsumScatter { axis_name, .. }
            | CollectiveOp::Ppermute { axis_name, .. }
            | CollectiveOp::AllToAll { axis_name, .. }
            | CollectiveOp::AxisIndex { axis_name } => vec![axis_name.as_str()],
        }
    }

    /// The number of members the op's type depends on, for the ops that carry it.
    pub fn axis_size(&self) -> Option<usize> {
        match self {
            CollectiveOp::AllGather { axis_size, .. }
            | CollectiveOp::PsumScatter { axis_size, .. }
            | CollectiveOp::AllToAll { axis_size, .. } => Some(*axis_size),
            CollectiveOp::Psum { .. }
            | CollectiveOp::Pmax { .. }
            | CollectiveOp::Pmin { .. }
            | CollectiveOp::Pmean { .. }
            | CollectiveOp::Ppermute { .. }
            | CollectiveOp::AxisIndex { .. } => None,
        }
    }

    /// The same reduction over other axes (`psum`, `pmax`, `pmin`, `pmean` only).
    fn with_axes(&self, rest: Vec<String>) -> Option<CollectiveOp> {
        match self {
            CollectiveOp::Psum { .. } => Some(CollectiveOp::Psum { axes: rest }),
            CollectiveOp::Pmax { .. } => Some(CollectiveOp::Pmax { axes: rest }),
            CollectiveOp::Pmin { .. } => Some(CollectiveOp::Pmin { axes: rest }),
            CollectiveOp::Pmean { .. } => Some(CollectiveOp::Pmean { axes: rest }),
            CollectiveOp::AllGather { .. }
            | CollectiveOp::PsumScatter { .. }
            | CollectiveOp::Ppermute { .. }
            | CollectiveOp::AllToAll { .. }
            | CollectiveOp::AxisIndex { .. } => None,
        }
    }
}

// ---- type rule ----

/// The type rule (see the module docs for each op's result).
pub(crate) fn infer(op: &CollectiveOp, inputs: &[Type]) -> Result<Vec<Type>, String> {
    let name = op.name();
    if let CollectiveOp::AxisIndex { axis_name } = op {
        super::expect_arity(name, inputs, 0)?;
        check_axis_name(name, axis_name)?;
        return Ok(vec![Type::new(DType::I32, &[])]);
    }
    super::expect_arity(name, inputs, 1)?;
    let x = &inputs[0];
    let names = op.axis_names();
    if names.is_empty() {
        return Err(format!("{name}: axes is empty; name at least one axis"));
    }
    for a in names {
        check_axis_name(name, a)?;
    }
    if x.dtype == DType::Bool {
        return Err(format!("{name}: operand {x} is bool; collectives take numbers"));
    }
    if let Some(0) = op.axis_size() {
        return Err(format!("{name}: axis_size is 0; an axis has at least one member"));
    }
    let mut shape = x.shape.clone();
    match op {
        CollectiveOp::Pmean { .. } if !x.dtype.is_float() => {
            return Err(format!("{name}: operand {x} is not a float (pmean divides)"));
        }
        CollectiveOp::Psum { .. }
        | CollectiveOp::Pmax { .. }
        | CollectiveOp::Pmin { .. }
        | CollectiveOp::Pmean { .. } => {}
        CollectiveOp::AllGather { axis, tiled, axis_size, .. } => {
            if *tiled {
                check_axis(name, "axis", *axis, x.rank())?;
                shape[*axis] = shape[*axis].checked_mul(*axis_size).ok_or_else(|| format!("{name}: size overflow"))?;
            } else {
                check_axis(name, "axis", *axis, x.rank() + 1)?;
                shape.insert(*axis, *axis_size);
            }
        }
        CollectiveOp::PsumScatter { scatter_dimension: d, tiled, axis_size, .. } => {
            check_axis(name, "scatter_dimension", *d, x.rank())?;
            if *tiled {
                if !shape[*d].is_multiple_of(*axis_size) {
                    return Err(format!("{name}: axis {d} of {x} is not divisible by axis_size {axis_size}"));
                }
                shape[*d] /= axis_size;
            } else {
                if shape[*d] != *axis_size {
                    return Err(format!("{name}: axis {d} of {x} has size {} but axis_size is {axis_size}", shape[*d]));
                }
                shape.remove(*d);
            }
        }
        CollectiveOp::Ppermute { perm, .. } => {
            for (k, [src, dst]) in perm.iter().enumerate() {
                let clash = perm[..k].iter().find(|[s, d]| s == src || d == dst);
                if let Some([s, d]) = clash {
                    return Err(format!("{name}: perm pair [{src}, {dst}] repeats a member of [{s}, {d}]"));
                }
            }
        }
        CollectiveOp::AllToAll { split_axis, concat_axis, axis_size, .. } => {
            check_axis(name, "split_axis", *split_axis, x.rank())?;
            check_axis(name, "concat_axis", *concat_axis, x.rank())?;
            if !shape[*split_axis].is_multiple_of(*axis_size) {
                return Err(format!("{name}: axis {split_axis} of {x} is not divisible by axis_size {axis_size}"));
            }
            shape[*split_axis] /= axis_size;
            shape[*concat_axis] =
                shape[*concat_axis].checked_mul(*axis_size).ok_or_else(|| format!("{name}: size overflow"))?;
        }
        CollectiveOp::AxisIndex { .. } => {}
    }
    Ok(vec![Type { dtype: x.dtype, shape }])
}

/// An axis name is a non-empty identifier-like string (it is written in attributes
/// and on the command line).
fn check_axis_name(op: &str, a: &str) -> Result<(), String> {
    let ok = !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok { Ok(()) } else { Err(format!("{op}: `{a}` is not an axis name (letters, digits and _)")) }
}

/// The error of running a collective whose axis nothing has bound (the interpreter's
/// and the JIT's).
pub fn unbound(op: &CollectiveOp) -> String {
    let a = op.axis_names().first().copied().unwrap_or("?");
    format!(
        "{}: the axis `{a}` is not bound; bind it with vmap and an axis name (`vmap_named`, `ferrax vmap --axis-name {a}`) or run it on workers (pmap)",
        op.name()
    )
}

// ---- derivatives ----

/// The jvp rule (see the module docs).
pub(crate) fn jvp(
    em: &mut Emitter,
    op: &CollectiveOp,
    primals: &[Value],
    outputs: &[Value],
    tangents: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let Some(&Some(t)) = tangents.first() else { return Ok(vec![None]) };
    match op {
        CollectiveOp::Pmax { axes } | CollectiveOp::Pmin { axes } => {
            let (&[x], &[y]) = (primals, outputs) else { return Err(super::arity(1, primals.len())) };
            let hit = em.eq(x, y)?;
            let dtype = em.ty(t).dtype;
            let hit = em.convert(hit, dtype)?;
            let psum = CollectiveOp::Psum { axes: axes.clone() };
            let ties = em.op(psum.clone(), &[hit])?;
            let picked = em.mul(hit, t)?;
            let total = em.op(psum, &[picked])?;
            Ok(vec![Some(em.div(total, ties)?)])
        }
        CollectiveOp::AxisIndex { .. } => Ok(vec![None]),
        // Linear in the operand: the same collective on the tangent.
        CollectiveOp::Psum { .. }
        | CollectiveOp::Pmean { .. }
        | CollectiveOp::AllGather { .. }
        | CollectiveOp::PsumScatter { .. }
        | CollectiveOp::Ppermute { .. }
        | CollectiveOp::AllToAll { .. } => Ok(vec![Some(em.op(op.clone(), &[t])?)]),
    }
}

/// The transpose rule of the linear ops (see the module docs).
pub(crate) fn transpose(
    em: &mut Emitter,
    op: &CollectiveOp,
    inputs: &[LinearIn],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>, String> {
    let transposed = match op {
        CollectiveOp::Psum { .. } | CollectiveOp::Pmean { .. } => op.clone(),
        CollectiveOp::AllGather { axis_name, axis, tiled, axis_size } => CollectiveOp::PsumScatter {
            axis_name: axis_name.clone(),
            scatter_dimension: *axis,
            tiled: *tiled,
            axis_size: *axis_size,
        },
        CollectiveOp::PsumScatter { axis_name, scatter_dimension, tiled, axis_size } => CollectiveOp::AllGather {
            axis_name: axis_name.clone(),
            axis: *scatter_dimension,
            tiled: *tiled,
            axis_size: *axis_size,
        },
        CollectiveOp::Ppermute { axis_name, perm } => {
            CollectiveOp::Ppermute { axis_name: axis_name.clone(), perm: perm.iter().map(|&[s, d]| [d, s]).collect() }
        }
        CollectiveOp::AllToAll { axis_name, split_axis, concat_axis, axis_size } => CollectiveOp::AllToAll {
            axis_name: axis_name.clone(),
            split_axis: *concat_axis,
            concat_axis: *split_axis,
            axis_size: *axis_size,
        },
        CollectiveOp::Pmax { .. } | CollectiveOp::Pmin { .. } | CollectiveOp::AxisIndex { .. } => {
            return Err(super::ad::not_linear(op.name()));
        }
    };
    match (inputs, cts) {
        ([LinearIn::Linear(_)], [Some(ct)]) => Ok(vec![Some(em.op(transposed, &[*ct])?)]),
        ([_], [_]) => Ok(vec![None]),
        _ => Err(format!("{}: transpose expects 1 input and 1 cotangent", op.name())),
    }
}

// ---- batching ----

/// The batching rule. `bound` is the axis name the driving vmap binds, if any. Over
/// that axis the members are the slices of the batch axis and the op becomes ordinary
/// primitives (this is its definition); over any other axis the batch axis is one more
/// axis of each member's value and the op applies to it unchanged.
pub(crate) fn batch(
    em: &mut Emitter,
    op: &CollectiveOp,
    bound: Option<&str>,
    size: usize,
    inputs: &[Value],
    dims: &[Option<usize>],
) -> Result<Batched, String> {
    let binds = bound.is_some_and(|b| op.axis_names().contains(&b));
    if let CollectiveOp::AxisIndex { .. } = op {
        if !binds {
            return Err(format!("{}: no operand to batch", op.name()));
        }
        return Ok((vec![em.iota(&[size], 0)?], vec![Some(0)]));
    }
    let (&[x], &[d]) = (inputs, dims) else { return Err(super::arity(1, inputs.len())) };
    if !binds {
        return batch_other_axis(em, op, x, d);
    }
    if let Some(n) = op.axis_size()
        && n != size
    {
        return Err(format!("{}: axis_size is {n} but the axis is bound with {size} members", op.name()));
    }
    let bound = bound.unwrap_or_default();
    match op {
        CollectiveOp::Psum { axes }
        | CollectiveOp::Pmax { axes }
        | CollectiveOp::Pmin { axes }
        | CollectiveOp::Pmean { axes } => {
            let rest: Vec<String> = axes.iter().filter(|a| *a != bound).cloned().collect();
            Ok((vec![bound_reduction(em, op, rest, size, x, d)?], vec![None]))
        }
        CollectiveOp::AllGather { axis, tiled, .. } => {
            let stacked = match d {
                Some(d) => em.move_axis(x, d, *axis)?,
                None => em.add_batch_axis(x, size, *axis)?,
            };
            let out = if *tiled { merge_axes(em, stacked, *axis)? } else { stacked };
            Ok((vec![out], vec![None]))
        }
        CollectiveOp::PsumScatter { scatter_dimension: s, tiled, .. } => {
            let sum = match d {
                Some(d) => em.reduce_sum(x, &[d])?,
                None => {
                    let n = em.full_like(x, size as f64)?;
                    em.mul(x, n)?
                }
            };
            let out = if *tiled { split_axis(em, sum, *s, size)? } else { sum };
            Ok((vec![out], vec![Some(*s)]))
        }
        CollectiveOp::Ppermute { perm, .. } => {
            let x = em.batch_at(x, d, size, 0)?;
            Ok((vec![permute_members(em, x, perm, size)?], vec![Some(0)]))
        }
        CollectiveOp::AllToAll { split_axis, concat_axis, .. } => {
            let x = em.batch_at(x, d, size, 0)?;
            Ok((vec![exchange_blocks(em, x, *split_axis, *concat_axis, size)?], vec![Some(0)]))
        }
        CollectiveOp::AxisIndex { .. } => Err(format!("{}: has no operand", op.name())),
    }
}

/// `psum`, `pmax`, `pmin` or `pmean` over the bound axis (members along `d`, or the
/// same value on every member), then over the `rest` of its axes: the same on every
/// member, so unbatched.
fn bound_reduction(
    em: &mut Emitter,
    op: &CollectiveOp,
    rest: Vec<String>,
    size: usize,
    x: Value,
    d: Option<usize>,
) -> Result<Value, String> {
    // An unbatched operand: every member holds the same value, whose sum is `size`
    // copies of it and whose mean, maximum and minimum are itself.
    let reduced = match (op, d) {
        (CollectiveOp::Psum { .. }, Some(d)) => em.reduce_sum(x, &[d])?,
        (CollectiveOp::Psum { .. }, None) => {
            let n = em.full_like(x, size as f64)?;
            em.mul(x, n)?
        }
        (CollectiveOp::Pmean { .. }, Some(d)) => {
            let sum = em.reduce_sum(x, &[d])?;
            let n = em.full_like(sum, size as f64)?;
            em.div(sum, n)?
        }
        (CollectiveOp::Pmax { .. }, Some(d)) => em.reduce(ReduceOp::Max, x, &[d])?,
        (CollectiveOp::Pmin { .. }, Some(d)) => em.reduce(ReduceOp::Min, x, &[d])?,
        (CollectiveOp::Pmean { .. } | CollectiveOp::Pmax { .. } | CollectiveOp::Pmin { .. }, None) => x,
        (
            CollectiveOp::AllGather { .. }
            | CollectiveOp::PsumScatter { .. }
            | CollectiveOp::Ppermute { .. }
            | CollectiveOp::AllToAll { .. }
            | CollectiveOp::AxisIndex { .. },
            _,
        ) => return Err(format!("{}: not a reduction", op.name())),
    };
    match op.with_axes(rest) {
        Some(inner) if !inner.axis_names().is_empty() => em.op(inner, &[reduced]),
        _ => Ok(reduced),
    }
}

/// A collective over an axis this vmap does not bind, on an operand batched at `d`:
/// the batch axis rides along as one more axis of every member's value.
fn batch_other_axis(em: &mut Emitter, op: &CollectiveOp, x: Value, d: Option<usize>) -> Result<Batched, String> {
    let Some(d) = d else {
        return Ok((vec![em.op(op.clone(), &[x])?], vec![None]));
    };
    let shifted = match op {
        CollectiveOp::AllGather { axis_name, axis, tiled, axis_size } => Some(CollectiveOp::AllGather {
            axis_name: axis_name.clone(),
            axis: axis + 1,
            tiled: *tiled,
            axis_size: *axis_size,
        }),
        CollectiveOp::PsumScatter { axis_name, scatter_dimension, tiled, axis_size } => {
            Some(CollectiveOp::PsumScatter {
                axis_name: axis_name.clone(),
                scatter_dimension: scatter_dimension + 1,
                tiled: *tiled,
                axis_size: *axis_size,
            })
        }
        CollectiveOp::AllToAll { axis_name, split_axis, concat_axis, axis_size } => Some(CollectiveOp::AllToAll {
            axis_name: axis_name.clone(),
            split_axis: split_axis + 1,
            concat_axis: concat_axis + 1,
            axis_size: *axis_size,
        }),
        CollectiveOp::Psum { .. }
        | CollectiveOp::Pmax { .. }
        | CollectiveOp::Pmin { .. }
        | CollectiveOp::Pmean { .. }
        | CollectiveOp::Ppermute { .. }
        | CollectiveOp::AxisIndex { .. } => None,
    };
    match shifted {
        // Axis-numbered ops see the batch axis in front.
        Some(shifted) => {
            let front = em.move_axis(x, d, 0)?;
            Ok((vec![em.op(shifted, &[front])?], vec![Some(0)]))
        }
        // The others act on each element across members: the batch axis stays.
        None => Ok((vec![em.op(op.clone(), &[x])?], vec![Some(d)])),
    }
}

/// Axes `at` and `at + 1` of `x` merged into one (row-major).
fn merge_axes(em: &mut Emitter, x: Value, at: usize) -> Result<Value, String> {
    let mut shape = em.ty(x).shape.to_vec();
    let inner = shape.remove(at + 1);
    shape[at] *= inner;
    em.reshape(x, &shape)
}

/// Axis `at` of `x` split into `(parts, len / parts)` (row-major).
fn split_axis(em: &mut Emitter, x: Value, at: usize, parts: usize) -> Result<Value, String> {
    let mut shape = em.ty(x).shape.to_vec();
    let len = shape[at];
    shape[at] = len / parts;
    shape.insert(at, parts);
    em.reshape(x, &shape)
}

/// `ppermute` on members stacked along axis 0: member `dst` takes member `src`'s slice
/// for every pair, zeros where nothing arrives.
fn permute_members(em: &mut Emitter, x: Value, perm: &[[usize; 2]], size: usize) -> Result<Value, String> {
    let ty = em.ty(x).clone();
    if let Some([s, t]) = perm.iter().find(|[s, t]| *s >= size || *t >= size) {
        return Err(format!("ppermute: pair [{s}, {t}] names a member beyond the axis size {size}"));
    }
    let mut one = ty.shape.to_vec();
    one[0] = 1;
    let zeros = em.zeros(&Type::new(ty.dtype, &one))?;
    let mut parts = Vec::with_capacity(size);
    for dst in 0..size {
        let part = match perm.iter().find(|[_, t]| *t == dst) {
            Some(&[src, _]) => {
                let mut start = vec![0; ty.rank()];
                let mut limit = ty.shape.to_vec();
                start[0] = src;
                limit[0] = src + 1;
                em.slice(x, start, limit)?
            }
            None => zeros,
        };
        parts.push(part);
    }
    em.concatenate(&parts, 0)
}

/// `all_to_all` on members stacked along axis 0 (`m`): member `j` of the result
/// concatenates, along `concat`, block `j` (along `split`) of every member in order.
fn exchange_blocks(em: &mut Emitter, x: Value, split: usize, concat: usize, size: usize) -> Result<Value, String> {
    let rank = em.ty(x).rank() - 1;
    // Member axis m at 0; split the member's axis `split` into (j, q): j at split + 1.
    let blocks = split_axis(em, x, split + 1, size)?;
    let pos = |a: usize| if a < split { a + 1 } else { a + 2 };
    let mut perm = vec![split + 1];
    for a in 0..rank {
        let here = if a == split { split + 2 } else { pos(a) };
        if a == concat {
            perm.push(0);
        }
        perm.push(here);
    }
    let moved = em.transpose(blocks, &perm)?;
    // Axis `concat + 1` is now m, directly before the concatenated axis' own extent.
    merge_axes(em, moved, concat + 1)
}

/// The property-table row: each runs as a step of its own (a communication), no flops.
pub(crate) fn props(op: &CollectiveOp) -> Props {
    match op {
        CollectiveOp::Psum { .. }
        | CollectiveOp::Pmax { .. }
        | CollectiveOp::Pmin { .. }
        | CollectiveOp::Pmean { .. }
        | CollectiveOp::AllGather { .. }
        | CollectiveOp::PsumScatter { .. }
        | CollectiveOp::Ppermute { .. }
        | CollectiveOp::AllToAll { .. }
        | CollectiveOp::AxisIndex { .. } => Props::movement(Class::Launch),
    }
}
