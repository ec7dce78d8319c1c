//! Batching and Jacobians of closures: [`vmap`], [`jacfwd`], [`jacrev`], [`hessian`].
//!
//! `vmap(f)` turns a function of one example into a function of a batch: the closure
//! is traced on one example's types (each argument leaf without its batch axis), the
//! `vmap` pass batches the IR, and the batch size is read off the arguments. Inside a
//! trace, [`Vmap::apply`] emits the batched function into it (outer tensors the closure
//! uses are shared by every example), so `vmap(grad(f))` gives per-example gradients.

use crate::Tensor;
use crate::api::{Error, arguments_at, trace_flat, transform_at};
use crate::traceable::Traceable;
use crate::tree::{Tree, unflatten};
use ferrax_ir::{Array, EvalOptions, Module, Type};
use ferrax_transform as transform;
use std::panic::Location;

/// `vmap(f)`: see the module docs. Every argument leaf is batched at axis 0 and every
/// output at axis 0 unless set otherwise.
pub struct Vmap<F> {
    f: F,
    in_axes: Option<Vec<Option<isize>>>,
    out_axes: isize,
}

/// Batches `f` over axis 0 of every argument leaf.
///
/// ```
/// use ferrax::{Array, Tensor, vmap};
/// let norms = vmap(|x: Tensor| x.powi(2).sum_all().sqrt());
/// let rows = Array::from_f64(&[2, 2], vec![3.0, 4.0, 6.0, 8.0]).unwrap();
/// let out: Array = norms.call(&rows).unwrap();
/// assert_eq!(out.to_f64_vec(), [5.0, 10.0]);
/// ```
pub fn vmap<F>(f: F) -> Vmap<F> {
    Vmap { f, in_axes: None, out_axes: 0 }
}

/// The type of one example of `ty` batched at `axis` (`None`: not batched).
fn example_type(ty: &Type, axis: Option<isize>) -> Result<(Type, Option<(usize, usize)>), String> {
    let Some(axis) = axis else { return Ok((ty.clone(), None)) };
    let rank = ty.rank() as isize;
    let at = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&at) {
        return Err(format!("in_axes: axis {axis} is out of range for {ty}"));
    }
    let at = at as usize;
    let mut shape = ty.shape.clone();
    let size = shape.remove(at);
    Ok((Type { dtype: ty.dtype, shape }, Some((at, size))))
}

impl<F> Vmap<F> {
    /// The batch axis of each argument leaf, in leaf order (`None`: shared by all
    /// examples; negative counts from the end).
    pub fn in_axes(mut self, axes: &[Option<isize>]) -> Vmap<F> {
        self.in_axes = Some(axes.to_vec());
        self
    }

    /// Where the batch axis goes in every output.
    pub fn out_axes(mut self, axis: isize) -> Vmap<F> {
        self.out_axes = axis;
        self
    }

    /// Runs on host arrays batched as `in_axes` says; the batch size is read off them.
    #[track_caller]
    pub fn call<In, O>(&self, args: &In) -> Result<O::With<Array>, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let inputs: Vec<Array> = args.leaves().into_iter().cloned().collect();
        let axes = self.in_axes.clone().unwrap_or_else(|| vec![Some(0); inputs.len()]);
        if axes.len() != inputs.len() {
            let message = format!("vmap: {} in_axes for {} argument leaves", axes.len(), inputs.len());
            return Err(arguments_at(location, message));
        }
        let mut types = Vec::with_capacity(inputs.len());
        let mut size = None;
        for (a, &axis) in inputs.iter().zip(&axes) {
            let (ty, batch) = example_type(&Type::new(a.dtype(), a.shape()), axis)
                .map_err(|m| arguments_at(location, format!("vmap: {m}")))?;
            if let Some((_, n)) = batch {
                if size.is_some_and(|s| s != n) {
                    let message = format!("vmap: batch sizes differ: {} vs {n}", size.unwrap_or(0));
                    return Err(arguments_at(location, message));
                }
                size = Some(n);
            }
            types.push(ty);
        }
        let size = size.ok_or_else(|| arguments_at(location, "vmap: no argument is batched"))?;
        let rebuild = |params| unflatten(args, params);
        let (traced, out) = trace_flat(|a| self.f.trace_apply(a), rebuild, &types, location)?;
        let mut all_axes = axes;
        all_axes.extend(traced.consts.iter().map(|_| None));
        let module = transform::vmap(&traced.module, &all_axes, &[self.out_axes], size);
        let module = transform::dce(&module.map_err(|e| transform_at(location, e))?);
        let mut all = inputs;
        all.extend(traced.consts);
        let outputs = ferrax_ir::eval_entry(&module, &all, &EvalOptions::default())?;
        unflatten(&out, outputs).ok_or_else(|| Error::Arguments("vmap: output structure".into()))
    }
}

impl<F> Vmap<F> {
    /// Emits the batched function into the open trace, applied to `args` (batched as
    /// `in_axes` says); tensors of the outer trace the closure uses are shared by every
    /// example. Returns the outputs, batched at `out_axes`.
    #[track_caller]
    pub fn apply<T, O>(&self, args: &T) -> O::With<Tensor>
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<T::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let leaves: Vec<Tensor> = args.leaves().into_iter().cloned().collect();
        let axes = self.in_axes.clone().unwrap_or_else(|| vec![Some(0); leaves.len()]);
        let mut examples = Vec::with_capacity(leaves.len());
        let mut size: Option<usize> = None;
        let mut problem = None;
        if axes.len() != leaves.len() {
            problem = Some(format!("vmap: {} in_axes for {} argument leaves", axes.len(), leaves.len()));
        }
        for (t, &axis) in leaves.iter().zip(axes.iter().chain(std::iter::repeat(&None))) {
            match example_type(t.ty(), axis) {
                Ok((ty, batch)) => {
                    if let Some((_, n)) = batch {
                        if size.is_some_and(|s| s != n) {
                            problem.get_or_insert(format!("vmap: batch sizes differ: {} vs {n}", size.unwrap_or(0)));
                        }
                        size = Some(n);
                    }
                    examples.push(ty);
                }
                Err(e) => {
                    problem.get_or_insert(e);
                    examples.push(t.ty().clone());
                }
            }
        }
        let template: std::cell::RefCell<Option<O>> = std::cell::RefCell::new(None);
        let out_axes = self.out_axes;
        let outputs = crate::autodiff::apply_transform(
            |params: Vec<Tensor>| {
                // Traced on one example: parameters of the example types.
                let out = self.f.trace_apply(unflatten(args, params).expect("Tree walks agree"));
                let leaves: Vec<Tensor> = out.leaves().into_iter().cloned().collect();
                *template.borrow_mut() = Some(out);
                leaves
            },
            &leaves,
            &[],
            |module| {
                if let Some(e) = &problem {
                    return Err(ferrax_ir::Error::transform(Default::default(), e.clone()));
                }
                let Some(size) = size else {
                    return Err(ferrax_ir::Error::transform(Default::default(), "vmap: no argument is batched"));
                };
                let n_params = module.entry().map_or(0, |f| f.params.len());
                let mut all = axes.clone();
                all.resize(n_params, None);
                transform::vmap(module, &all, &[out_axes], size)
            },
            location,
            Some(&examples),
        );
        let template = template.into_inner().expect("apply_transform traces its function");
        let mut outputs = outputs.into_iter();
        let leaves: Vec<Tensor> =
            template.leaves().into_iter().map(|t| outputs.next().unwrap_or_else(|| t.clone())).collect();
        unflatten(&template, leaves).expect("Tree walks agree")
    }
}

/// A Jacobian or Hessian of a closure, evaluated on host arrays.
pub struct Jacobian<F> {
    f: F,
    kind: JacKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JacKind {
    Fwd,
    Rev,
    Hessian,
}

/// The forward-mode Jacobian of `f` with respect to every float leaf of its argument.
///
/// ```
/// use ferrax::{Array, Tensor, jacfwd};
/// let j = jacfwd(|x: Tensor| &x * &x).call(&Array::from(vec![1.0f64, 3.0])).unwrap();
/// assert_eq!(j[0][0].to_f64_vec(), [2.0, 0.0, 0.0, 6.0]); // diag(2 x), of shape [2, 2]
/// ```
pub fn jacfwd<F>(f: F) -> Jacobian<F> {
    Jacobian { f, kind: JacKind::Fwd }
}

/// The reverse-mode Jacobian of `f` with respect to every float leaf of its argument.
///
/// ```
/// use ferrax::{Array, Tensor, jacrev};
/// let j = jacrev(|x: Tensor| x.sin()).call(&Array::from(vec![0.0f64, 0.0])).unwrap();
/// assert_eq!(j[0][0].to_f64_vec(), [1.0, 0.0, 0.0, 1.0]); // diag(cos x)
/// ```
pub fn jacrev<F>(f: F) -> Jacobian<F> {
    Jacobian { f, kind: JacKind::Rev }
}

/// The Hessian of `f` (`jacfwd(jacrev(f))`) with respect to every float leaf.
///
/// ```
/// use ferrax::{Array, Tensor, hessian};
/// let h = hessian(|[x, y]: [Tensor; 2]| (&x * &y).sum_all()).call(&[Array::scalar(1.0f64), Array::scalar(2.0f64)]);
/// let h = h.unwrap();
/// let flat: Vec<f64> = h.iter().flatten().flat_map(|b| b.to_f64_vec()).collect();
/// assert_eq!(flat, [0.0, 1.0, 1.0, 0.0]);
/// ```
pub fn hessian<F>(f: F) -> Jacobian<F> {
    Jacobian { f, kind: JacKind::Hessian }
}

impl<F> Jacobian<F> {
    /// Evaluates at `args`: `result[o][i]` is the derivative of float output leaf `o`
    /// with respect to float argument leaf `i`, of shape `out.shape + arg.shape` (for a
    /// Hessian, `arg_i.shape + arg_j.shape` for a scalar function's `result[i][j]`).
    #[track_caller]
    pub fn call<In, O>(&self, args: &In) -> Result<Vec<Vec<Array>>, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let inputs: Vec<Array> = args.leaves().into_iter().cloned().collect();
        let types: Vec<Type> = inputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
        let rebuild = |params| unflatten(args, params);
        let (traced, _) = trace_flat(|a| self.f.trace_apply(a), rebuild, &types, location)?;
        let wrt: Vec<usize> = types.iter().enumerate().filter(|(_, t)| t.dtype.is_float()).map(|(i, _)| i).collect();
        let w = transform::Wrt::Params(wrt.clone());
        let module: Module = match self.kind {
            JacKind::Fwd => transform::jacfwd(&traced.module, &w),
            JacKind::Rev => transform::jacrev(&traced.module, &w),
            JacKind::Hessian => transform::hessian(&traced.module, &w),
        }
        .map_err(|e| transform_at(location, e))?;
        let mut all = inputs;
        all.extend(traced.consts);
        let flat = ferrax_ir::eval_entry(&module, &all, &EvalOptions::default())?;
        let n = wrt.len().max(1);
        Ok(flat.chunks(n).map(<[Array]>::to_vec).collect())
    }
}

/// `vmap(f)` is itself traceable: applied inside a trace it emits the batched function
/// (as [`Vmap::apply`]), so `jit(vmap(f))` and `grad` of a batched function work.
impl<G, T> Traceable<T> for Vmap<G>
where
    T: Tree<Tensor>,
    G: Traceable<T::With<Tensor>>,
    <G::Out as Tree<Tensor>>::With<Tensor>: Tree<Tensor>,
{
    type Out = <G::Out as Tree<Tensor>>::With<Tensor>;

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.apply::<T, G::Out>(&args)
    }
}
