//! Collectives over named axes, as `jax.lax`'s: [`psum`], [`pmax`], [`pmin`], [`pmean`],
//! [`all_gather`], [`psum_scatter`], [`ppermute`], [`all_to_all`], [`axis_index`]
//! (re-exported from `ferrax::lax`).
//!
//! An axis name exists while a `vmap(f).axis_name("i")` traces `f` (the members of
//! the axis are then the batch's examples). The names and sizes in scope live in a
//! thread-local stack, pushed for the duration of that trace: a collective looks its
//! axis up there (an axis nobody binds is an error at the caller's line, naming the
//! axis), and the ops whose result shape depends on the number of members take it
//! from there. Every Func traced while names are in scope declares them
//! (`axis_names`), so that the IR verifies before the vmap binds them.

use crate::Tensor;
use crate::tracer::{emit1, fail};
use ferrax_ir::prim::CollectiveOp;
use ferrax_ir::{DType, Prim, Type};
use std::cell::RefCell;
use std::panic::Location;

thread_local! {
    /// The axis names in scope, innermost last, with their sizes.
    static AXES: RefCell<Vec<(String, usize)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with the axis `name` of `size` members in scope.
pub(crate) fn with_axis<R>(name: &str, size: usize, f: impl FnOnce() -> R) -> R {
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            AXES.with(|a| a.borrow_mut().pop());
        }
    }
    AXES.with(|a| a.borrow_mut().push((name.to_string(), size)));
    let _pop = Pop;
    f()
}

/// The axis names in scope, outermost first (what a traced Func declares).
pub(crate) fn names_in_scope() -> Vec<String> {
    AXES.with(|a| {
        let mut names: Vec<String> = Vec::new();
        for (n, _) in a.borrow().iter() {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        names
    })
}

/// The size of the innermost axis called `name`, or the error naming it.
fn size_of(op: &str, name: &str) -> Result<usize, String> {
    AXES.with(|a| a.borrow().iter().rev().find(|(n, _)| n == name).map(|&(_, s)| s)).ok_or_else(|| {
        format!("{op}: no enclosing vmap binds the axis `{name}` (use vmap(f).axis_name(\"{name}\") around it)")
    })
}

/// Emits `op` on `x`, or a poisoned tensor when an axis is not in scope.
fn collective(op: CollectiveOp, x: Option<&Tensor>, fallback: Type, location: &'static Location<'static>) -> Tensor {
    for name in op.axis_names() {
        if let Err(message) = size_of(op.name(), name) {
            return fail(location, message, fallback);
        }
    }
    let inputs: Vec<&Tensor> = x.into_iter().collect();
    emit1(Prim::Collective(op), &inputs, location, fallback)
}

fn names(axes: &[&str]) -> Vec<String> {
    axes.iter().map(|a| a.to_string()).collect()
}

/// `psum`: the sum of `x` over the members of every axis in `axes`, the same on every
/// member.
#[track_caller]
pub fn psum(x: &Tensor, axes: &[&str]) -> Tensor {
    collective(CollectiveOp::Psum { axes: names(axes) }, Some(x), x.ty().clone(), Location::caller())
}

/// `pmax`: the maximum of `x` over the members.
#[track_caller]
pub fn pmax(x: &Tensor, axes: &[&str]) -> Tensor {
    collective(CollectiveOp::Pmax { axes: names(axes) }, Some(x), x.ty().clone(), Location::caller())
}

/// `pmin`: the minimum of `x` over the members.
#[track_caller]
pub fn pmin(x: &Tensor, axes: &[&str]) -> Tensor {
    collective(CollectiveOp::Pmin { axes: names(axes) }, Some(x), x.ty().clone(), Location::caller())
}

/// `pmean`: the mean of `x` over the members (floats).
#[track_caller]
pub fn pmean(x: &Tensor, axes: &[&str]) -> Tensor {
    collective(CollectiveOp::Pmean { axes: names(axes) }, Some(x), x.ty().clone(), Location::caller())
}

/// `all_gather`: every member's `x` stacked along a new axis `axis` (with `tiled`,
/// concatenated along the existing axis `axis`), the same on every member.
#[track_caller]
pub fn all_gather(x: &Tensor, axis_name: &str, axis: usize, tiled: bool) -> Tensor {
    let op = |axis_size| CollectiveOp::AllGather { axis_name: axis_name.into(), axis, tiled, axis_size };
    sized("all_gather", axis_name, op, x, Location::caller())
}

/// `psum_scatter`: the sum over the members, of which each keeps its slice along
/// `scatter_dimension` (an axis as long as the axis of members, which goes away; with
/// `tiled`, its block of that axis).
#[track_caller]
pub fn psum_scatter(x: &Tensor, axis_name: &str, scatter_dimension: usize, tiled: bool) -> Tensor {
    let op = |axis_size| CollectiveOp::PsumScatter { axis_name: axis_name.into(), scatter_dimension, tiled, axis_size };
    sized("psum_scatter", axis_name, op, x, Location::caller())
}

/// `ppermute`: member `dst` receives member `src`'s `x` for each `(src, dst)`; the
/// others get zeros.
#[track_caller]
pub fn ppermute(x: &Tensor, axis_name: &str, perm: &[(usize, usize)]) -> Tensor {
    let perm = perm.iter().map(|&(s, d)| [s, d]).collect();
    collective(
        CollectiveOp::Ppermute { axis_name: axis_name.into(), perm },
        Some(x),
        x.ty().clone(),
        Location::caller(),
    )
}

/// `all_to_all`: each member splits `x` into as many blocks as there are members along
/// `split_axis`, sends block `j` to member `j`, and concatenates what it receives along
/// `concat_axis`, in member order.
#[track_caller]
pub fn all_to_all(x: &Tensor, axis_name: &str, split_axis: usize, concat_axis: usize) -> Tensor {
    let op = |axis_size| CollectiveOp::AllToAll { axis_name: axis_name.into(), split_axis, concat_axis, axis_size };
    sized("all_to_all", axis_name, op, x, Location::caller())
}

/// `axis_index`: this member's index along `axis_name`, an `i32` scalar.
#[track_caller]
pub fn axis_index(axis_name: &str) -> Tensor {
    let op = CollectiveOp::AxisIndex { axis_name: axis_name.into() };
    collective(op, None, Type::new(DType::I32, &[]), Location::caller())
}

/// A collective whose result shape depends on the number of members: `op` of the
/// size of `axis_name` in scope, or a poisoned tensor naming the axis.
fn sized(
    name: &str,
    axis_name: &str,
    op: impl FnOnce(usize) -> CollectiveOp,
    x: &Tensor,
    location: &'static Location<'static>,
) -> Tensor {
    match size_of(name, axis_name) {
        Ok(size) => {
            let op = op(size);
            let fallback = infer(&op, x);
            emit1(Prim::Collective(op), &[x], location, fallback)
        }
        Err(message) => fail(location, message, x.ty().clone()),
    }
}

/// The result type by the type rule, or `x`'s own when the operands are wrong (the
/// tracer's check then reports the mistake at the caller's line).
fn infer(op: &CollectiveOp, x: &Tensor) -> Type {
    let inferred = Prim::Collective(op.clone()).infer(std::slice::from_ref(x.ty()), &ferrax_ir::Module::new());
    inferred.ok().and_then(|mut t| t.pop()).unwrap_or_else(|| x.ty().clone())
}
