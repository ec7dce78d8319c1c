//! `has_aux` (JAX's `has_aux=True`): `f` returns `(loss, aux)` and the aux tree is carried
//! out beside the gradient, not differentiated. [`GradAux`] and [`ValueAndGradAux`] wrap
//! the [`Grad`] of their parent module, which runs the pass with the aux outputs.

use super::{Grad, Pass, ValueAndGrad, apply_transform, fill_wrt};
use crate::Tensor;
use crate::api::{Error, arguments_at};
use crate::traceable::Traceable;
use crate::tracer::TraceError;
use crate::tree::{Tree, unflatten};
use ferrax_ir::{Array, EvalOptions, Type};
use ferrax_transform as transform;
use std::panic::Location;
use std::sync::Mutex;

impl<F> Grad<F> {
    /// JAX's `has_aux=True`: `f` returns `(loss, aux)`, where `aux` is any tree of
    /// tensors (metrics, predictions, new state) carried out beside the gradient and not
    /// differentiated. `call` then gives `(gradient, aux)`.
    ///
    /// ```
    /// use ferrax::{Array, Tensor, grad};
    /// let loss_and_error = |[w, x]: [Tensor; 2]| {
    ///     let error = &w * &x - 1.0;
    ///     (error.powi(2).sum_all(), error) // the loss, and the errors as aux
    /// };
    /// let (g, error) = grad(loss_and_error).has_aux().call(&[Array::scalar(2.0f64), Array::scalar(3.0f64)]).unwrap();
    /// assert_eq!(error.to_f64_vec(), [5.0]);
    /// assert_eq!((g[0].to_f64_vec(), g[1].to_f64_vec()), (vec![30.0], vec![20.0])); // 2 e x, 2 e w
    /// ```
    pub fn has_aux(self) -> GradAux<F> {
        GradAux(Grad { has_aux: true, cache: Mutex::default(), report: Mutex::default(), ..self })
    }

    /// On host arrays, for `has_aux`: the value (`value_and_grad` only), the aux tree
    /// and the gradient.
    fn run_aux<In, Aux>(
        &self,
        args: &In,
        location: &'static Location<'static>,
    ) -> Result<(Option<Array>, Aux::With<Array>, In::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        Aux: Tree<Tensor>,
        Aux::With<Type>: Tree<Type, With<Array> = Aux::With<Array>> + Send + Sync + 'static,
        F: Traceable<In::With<Tensor>, Out = (Tensor, Aux)>,
    {
        let (module, consts, structure) = self.module_for::<In, (Tensor, Aux)>(args, location)?;
        let Some((_, aux_types)) = structure.downcast_ref::<(Type, Aux::With<Type>)>() else {
            return Err(Error::Arguments("grad: the aux structure changed".into()));
        };
        let mut inputs: Vec<Array> = args.leaves().into_iter().cloned().collect();
        let types: Vec<Type> = inputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
        inputs.extend(consts);
        let mut outputs = ferrax_ir::eval_entry(&module, &inputs, &EvalOptions::default())?.into_iter();
        let value = if self.pass == Pass::ValueAndGrad { outputs.next() } else { None };
        let aux: Vec<Array> = outputs.by_ref().take(aux_types.leaf_count()).collect();
        let aux = unflatten(aux_types, aux).ok_or_else(|| Error::Arguments("grad: aux structure".into()))?;
        let wrt = self.wrt(args.child_leaf_counts(), &types).map_err(|m| arguments_at(location, m))?;
        let grads = fill_wrt(&types, &wrt, outputs.collect())?;
        let grads = unflatten(args, grads).ok_or_else(|| Error::Arguments("gradient structure".into()))?;
        Ok((value, aux, grads))
    }

    /// Inside a trace, for `has_aux`: the value (`value_and_grad` only), the aux tree
    /// and the gradient, as tensors of the open trace.
    fn apply_aux<T, Aux>(
        &self,
        args: &T,
        location: &'static Location<'static>,
    ) -> (Option<Tensor>, Aux::With<Tensor>, T::With<Tensor>)
    where
        T: Tree<Tensor> + ?Sized,
        Aux: Tree<Tensor>,
        F: Traceable<T::With<Tensor>, Out = (Tensor, Aux)>,
    {
        let leaves: Vec<Tensor> = args.leaves().into_iter().cloned().collect();
        let types: Vec<Type> = leaves.iter().map(|t| t.ty().clone()).collect();
        let wrt = self.wrt_in_trace(args.child_leaf_counts(), &types, location);
        let selected = wrt.clone();
        let wrt = transform::Wrt::Params(wrt);
        // `f`'s `(loss, aux)` is a tree whose leaves are the loss, then the aux leaves.
        let (outputs, (_, template)) = apply_transform(
            |params| self.f.trace_apply(unflatten(args, params).expect("Tree walks agree")),
            &leaves,
            &[],
            |module| self.differentiate(module, &wrt),
            location,
            None,
        );
        let mut outputs = outputs.into_iter();
        let value = if self.pass == Pass::ValueAndGrad { outputs.next() } else { None };
        let aux: Vec<Tensor> =
            template.leaves().into_iter().map(|t| outputs.next().unwrap_or_else(|| t.zeros_like())).collect();
        let grads: Vec<Tensor> = leaves
            .iter()
            .enumerate()
            .map(|(i, leaf)| match selected.contains(&i) {
                true => outputs.next().unwrap_or_else(|| leaf.zeros_like()),
                false => leaf.zeros_like(),
            })
            .collect();
        let aux = unflatten(&template, aux).expect("Tree walks agree");
        (value, aux, unflatten(args, grads).expect("Tree walks agree"))
    }
}

/// `grad(f).has_aux()`: `f` returns `(loss, aux)`; see [`Grad::has_aux`].
pub struct GradAux<F>(Grad<F>);

impl<F> GradAux<F> {
    /// Differentiate only with respect to these top-level arguments, as
    /// [`Grad::argnums`] (the builders apply in any order).
    pub fn argnums(self, argnums: &[usize]) -> GradAux<F> {
        GradAux(self.0.argnums(argnums))
    }

    /// Checkpointed to a peak of `max_bytes`, as [`Grad::with_max_bytes`].
    pub fn with_max_bytes(self, max_bytes: u64) -> GradAux<F> {
        GradAux(self.0.with_max_bytes(max_bytes))
    }

    /// Evaluates on host arrays: `(gradient, aux)`, as JAX's `grad(f, has_aux=True)`.
    #[track_caller]
    pub fn call<In, Aux>(&self, args: &In) -> Result<(In::With<Array>, Aux::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        Aux: Tree<Tensor>,
        Aux::With<Type>: Tree<Type, With<Array> = Aux::With<Array>> + Send + Sync + 'static,
        F: Traceable<In::With<Tensor>, Out = (Tensor, Aux)>,
    {
        let (_, aux, grads) = self.0.run_aux(args, Location::caller())?;
        Ok((grads, aux))
    }

    /// Emits `(gradient, aux)` into the open trace.
    #[track_caller]
    pub fn apply<T, Aux>(&self, args: &T) -> (T::With<Tensor>, Aux::With<Tensor>)
    where
        T: Tree<Tensor> + ?Sized,
        Aux: Tree<Tensor>,
        F: Traceable<T::With<Tensor>, Out = (Tensor, Aux)>,
    {
        let (_, aux, grads) = self.0.apply_aux(args, Location::caller());
        (grads, aux)
    }
}

impl<F> ValueAndGrad<F> {
    /// JAX's `has_aux=True`: `f` returns `(loss, aux)`; `call` then gives
    /// `((value, aux), gradient)`, as `jax.value_and_grad(f, has_aux=True)`.
    pub fn has_aux(self) -> ValueAndGradAux<F> {
        ValueAndGradAux(self.0.has_aux().0)
    }
}

/// `value_and_grad(f).has_aux()`; see [`ValueAndGrad::has_aux`].
pub struct ValueAndGradAux<F>(Grad<F>);

impl<F> ValueAndGradAux<F> {
    /// Differentiate only with respect to these top-level arguments, as
    /// [`Grad::argnums`].
    pub fn argnums(self, argnums: &[usize]) -> ValueAndGradAux<F> {
        ValueAndGradAux(self.0.argnums(argnums))
    }

    /// Checkpointed to a peak of `max_bytes`, as [`Grad::with_max_bytes`].
    pub fn with_max_bytes(self, max_bytes: u64) -> ValueAndGradAux<F> {
        ValueAndGradAux(self.0.with_max_bytes(max_bytes))
    }

    /// Evaluates on host arrays: `((value, aux), gradient)`.
    #[track_caller]
    pub fn call<In, Aux>(&self, args: &In) -> Result<((Array, Aux::With<Array>), In::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        Aux: Tree<Tensor>,
        Aux::With<Type>: Tree<Type, With<Array> = Aux::With<Array>> + Send + Sync + 'static,
        F: Traceable<In::With<Tensor>, Out = (Tensor, Aux)>,
    {
        let (value, aux, grads) = self.0.run_aux(args, Location::caller())?;
        let value = value.ok_or_else(|| Error::Arguments("value_and_grad: the value is missing".into()))?;
        Ok(((value, aux), grads))
    }

    /// Emits `((value, aux), gradient)` into the open trace.
    #[track_caller]
    pub fn apply<T, Aux>(&self, args: &T) -> ((Tensor, Aux::With<Tensor>), T::With<Tensor>)
    where
        T: Tree<Tensor> + ?Sized,
        Aux: Tree<Tensor>,
        F: Traceable<T::With<Tensor>, Out = (Tensor, Aux)>,
    {
        let location = Location::caller();
        let (value, aux, grads) = self.0.apply_aux(args, location);
        let value = value.unwrap_or_else(|| {
            let error = TraceError::at(location, "value_and_grad: no value");
            crate::tracer::fail_with(error, Type::scalar(ferrax_ir::DType::F32))
        });
        ((value, aux), grads)
    }
}

/// `grad(f).has_aux()` is traceable: inside a trace it emits `(gradient, aux)`.
impl<G, T, Aux> Traceable<T> for GradAux<G>
where
    T: Tree<Tensor>,
    T::With<Tensor>: Tree<Tensor>,
    Aux: Tree<Tensor>,
    Aux::With<Tensor>: Tree<Tensor>,
    G: Traceable<T::With<Tensor>, Out = (Tensor, Aux)>,
{
    type Out = (T::With<Tensor>, Aux::With<Tensor>);

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.apply(&args)
    }
}

/// `value_and_grad(f).has_aux()` is traceable: inside a trace it emits
/// `((value, aux), gradient)`.
impl<G, T, Aux> Traceable<T> for ValueAndGradAux<G>
where
    T: Tree<Tensor>,
    T::With<Tensor>: Tree<Tensor>,
    Aux: Tree<Tensor>,
    Aux::With<Tensor>: Tree<Tensor>,
    G: Traceable<T::With<Tensor>, Out = (Tensor, Aux)>,
{
    type Out = ((Tensor, Aux::With<Tensor>), T::With<Tensor>);

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.apply(&args)
    }
}
