//! Every transform as a function of `f` that returns a traceable object, so any one
//! nests in any other: `jit(hvp(f))` compiles one module holding the Hessian-vector
//! product, `vmap(jvp(f))` batches forward mode, `grad(checkpoint(f))` differentiates
//! with `f`'s activations recomputed rather than kept.
//!
//! The crate root keeps JAX's eager shapes for the three that JAX evaluates at once
//! (`ferrax::jvp(f, &x, &t)`, `ferrax::vjp(f, &x, &ct)`, `ferrax::hvp(f, &x, &v)`); the
//! objects here are the same derivatives as functions of their arguments:
//!
//! | object | arguments | result |
//! |---|---|---|
//! | [`jvp(f)`](jvp) | `(primals, tangents)` | `(outputs, output tangents)` |
//! | [`vjp(f)`](vjp) | `(primals, cotangents)` | `(outputs, argument cotangents)` |
//! | [`hvp(f)`](hvp) | `(primals, tangents)` | `H · tangents` (scalar `f`) |
//! | [`linearize(f)`](linearize) | `primals` (eager) | `(outputs, the linear map)` |
//! | [`checkpoint(f)`](checkpoint) | `f`'s | `f`'s, rematerialised in reverse mode |
//!
//! Each has `call` (host arrays, the reference interpreter) and `apply` (tensors of the
//! open trace) and implements [`Traceable`] on the argument tuple, which is what the
//! other transforms take. The remaining transforms are re-exported here so that
//! `use ferrax::transforms::*` brings the whole set in one spelling.

use crate::Tensor;
use crate::api::{Error, argnum_leaves, check_leaves, trace_flat, transform_at};
use crate::autodiff::{apply_transform, fill_grads, float_indices, import, jvp_traced, with_bodies};
use crate::control::{poisoned_like, rebuild, register, trace_body};
use crate::traceable::Traceable;
use crate::tracer::{self, TraceError, emit};
use crate::tree::{Tree, unflatten};
use ferrax_ir::{Array, EvalOptions, Module, Prim, Type};
use ferrax_transform as transform;
use std::panic::Location;

pub use crate::autodiff::{grad, value_and_grad};
pub use crate::batching::{hessian, jacfwd, jacrev, vmap};
pub use crate::custom::{custom_jvp, custom_vjp};
pub use crate::jit::jit;
pub use ferrax_ir::prim::RematPolicy;

/// Forward mode as a function of `(primals, tangents)`; see [`jvp`].
pub struct Jvp<F> {
    f: F,
}

/// Forward mode of `f` as a transform: `jvp(f)` maps `(primals, tangents)` (two trees of
/// the same structure) to `(outputs, output tangents)`.
///
/// ```
/// use ferrax::{Array, Tensor, jit, transforms::jvp};
/// let f = |x: Tensor| x.powi(3); // J v = 3 x^2 v
/// let (y, t) = jvp(f).call(&Array::scalar(2.0f64), &Array::scalar(0.5f64)).unwrap();
/// assert_eq!((y.to_f64_vec(), t.to_f64_vec()), (vec![8.0], vec![6.0]));
/// // The same forward mode compiled: its argument is the (primal, tangent) pair.
/// let compiled = jit(jvp(f));
/// let (y, t) = compiled.call(&(Array::scalar(2.0f64), Array::scalar(0.5f64))).unwrap();
/// assert_eq!((y.to_f64_vec(), t.to_f64_vec()), (vec![8.0], vec![6.0]));
/// ```
pub fn jvp<F>(f: F) -> Jvp<F> {
    Jvp { f }
}

impl<F> Jvp<F> {
    /// Evaluates on host arrays (as [`crate::jvp`]).
    #[track_caller]
    pub fn call<In, O>(&self, primals: &In, tangents: &In) -> Result<(O::With<Array>, O::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        crate::autodiff::jvp(|a| self.f.trace_apply(a), primals, tangents)
    }

    /// Emits the outputs and their tangents into the open trace.
    #[track_caller]
    pub fn apply<T, O>(&self, primals: &T, tangents: &T) -> (O::With<Tensor>, O::With<Tensor>)
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<T::With<Tensor>, Out = O>,
    {
        jvp_traced(|a| self.f.trace_apply(a), primals, tangents)
    }
}

impl<F, T, O> Traceable<(T, T)> for Jvp<F>
where
    T: Tree<Tensor>,
    O: Tree<Tensor>,
    F: Traceable<T::With<Tensor>, Out = O>,
    (O::With<Tensor>, O::With<Tensor>): Tree<Tensor>,
{
    type Out = (O::With<Tensor>, O::With<Tensor>);

    #[track_caller]
    fn trace_apply(&self, (primals, tangents): (T, T)) -> Self::Out {
        self.apply(&primals, &tangents)
    }
}

/// Reverse mode as a function of `(primals, cotangents)`; see [`vjp`].
pub struct Vjp<F> {
    f: F,
    /// The top-level arguments whose cotangents are computed (`None`: all of them).
    argnums: Option<Vec<usize>>,
}

/// Reverse mode of `f` as a transform: `vjp(f)` maps `(primals, cotangents)` to
/// `(outputs, argument cotangents)`. The cotangents are a tree whose leaves are the
/// float outputs' cotangents in order (integer outputs take none); the argument
/// cotangents have the primals' structure (zeros for integer leaves).
///
/// ```
/// use ferrax::{Array, Tensor, jit, transforms::vjp};
/// let f = |x: Tensor| &x * &x; // vᵀJ = 2 x v
/// let x = Array::from(vec![1.0f64, 2.0]);
/// let v = Array::from(vec![1.0f64, -1.0]);
/// let (y, ct) = jit(vjp(f)).call(&(x, v)).unwrap();
/// assert_eq!((y.to_f64_vec(), ct.to_f64_vec()), (vec![1.0, 4.0], vec![2.0, -4.0]));
/// ```
pub fn vjp<F>(f: F) -> Vjp<F> {
    Vjp { f, argnums: None }
}

impl<F> Vjp<F> {
    /// Cotangents for these top-level arguments only (elements of the tuple, array or
    /// `Vec` `f` takes); the others' are zeros, not computed, as `grad`'s `argnums`.
    ///
    /// ```
    /// use ferrax::{Array, Tensor, transforms::vjp};
    /// let f = |(w, x): (Tensor, Tensor)| &w * &x;
    /// let at = (Array::scalar(2.0f64), Array::scalar(5.0f64));
    /// let (_, (dw, dx)) = vjp(f).argnums(&[0]).call(&at, &Array::scalar(1.0f64)).unwrap();
    /// assert_eq!((dw.to_f64_vec(), dx.to_f64_vec()), (vec![5.0], vec![0.0]));
    /// ```
    pub fn argnums(self, argnums: &[usize]) -> Vjp<F> {
        Vjp { argnums: Some(argnums.to_vec()), ..self }
    }

    /// Evaluates on host arrays (as [`crate::vjp`]).
    #[track_caller]
    pub fn call<In, O, C>(&self, primals: &In, cotangents: &C) -> Result<(O::With<Array>, In::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        C: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        crate::autodiff::vjp_at(|a| self.f.trace_apply(a), primals, cotangents, self.argnums.as_deref(), location)
    }

    /// Emits the outputs and the argument cotangents into the open trace.
    #[track_caller]
    pub fn apply<T, O, C>(&self, primals: &T, cotangents: &C) -> (O::With<Tensor>, T::With<Tensor>)
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        C: Tree<Tensor> + ?Sized,
        F: Traceable<T::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let leaves: Vec<Tensor> = primals.leaves().into_iter().cloned().collect();
        let types: Vec<Type> = leaves.iter().map(|t| t.ty().clone()).collect();
        let wrt = argnum_leaves(self.argnums.as_deref(), primals.child_leaf_counts(), &types).unwrap_or_else(|m| {
            tracer::fail_with(TraceError::at(location, m), Type::scalar(ferrax_ir::DType::F32));
            float_indices(&types)
        });
        let cts: Vec<Tensor> = cotangents.leaves().into_iter().cloned().collect();
        let (outputs, template) = apply_transform(
            |params| self.f.trace_apply(unflatten(primals, params).expect("Tree walks agree")),
            &leaves,
            &cts,
            |module| transform::vjp(module, &transform::Wrt::Params(wrt.clone())),
            location,
            None,
        );
        let mut outputs = outputs.into_iter();
        let out: Vec<Tensor> =
            template.leaves().iter().map(|t| outputs.next().unwrap_or_else(|| t.zeros_like())).collect();
        let in_cts: Vec<Tensor> = leaves
            .iter()
            .enumerate()
            .map(|(i, leaf)| match wrt.contains(&i) {
                true => outputs.next().unwrap_or_else(|| leaf.zeros_like()),
                false => leaf.zeros_like(),
            })
            .collect();
        let out = unflatten(&template, out).expect("Tree walks agree");
        (out, unflatten(primals, in_cts).expect("Tree walks agree"))
    }
}

impl<F, T, O, C> Traceable<(T, C)> for Vjp<F>
where
    T: Tree<Tensor>,
    O: Tree<Tensor>,
    C: Tree<Tensor>,
    F: Traceable<T::With<Tensor>, Out = O>,
    (O::With<Tensor>, T::With<Tensor>): Tree<Tensor>,
{
    type Out = (O::With<Tensor>, T::With<Tensor>);

    #[track_caller]
    fn trace_apply(&self, (primals, cotangents): (T, C)) -> Self::Out {
        self.apply(&primals, &cotangents)
    }
}

impl<F> Vjp<F> {
    /// JAX's `has_aux=True`: `f` returns `(outputs, aux)`; the cotangents are the
    /// outputs' only, and the result is `(outputs, argument cotangents, aux)`, the aux
    /// tree evaluated, not differentiated.
    ///
    /// ```
    /// use ferrax::{Array, Tensor, transforms::vjp};
    /// let f = |x: Tensor| (&x * 3.0, x.sum_all()); // aux: the sum
    /// let x = Array::from(vec![1.0f64, 2.0]);
    /// let (y, ct, total) = vjp(f).has_aux().call(&x, &Array::from(vec![1.0f64, 1.0])).unwrap();
    /// assert_eq!((y.to_f64_vec(), ct.to_f64_vec(), total.to_f64_vec()), (vec![3.0, 6.0], vec![3.0, 3.0], vec![3.0]));
    /// ```
    pub fn has_aux(self) -> VjpAux<F> {
        VjpAux(self)
    }
}

impl<F> VjpAux<F> {
    /// Cotangents for these top-level arguments only ([`Vjp::argnums`]).
    pub fn argnums(self, argnums: &[usize]) -> VjpAux<F> {
        VjpAux(self.0.argnums(argnums))
    }
}

/// `vjp(f).has_aux()`: `f` returns `(outputs, aux)`; see [`Vjp::has_aux`].
pub struct VjpAux<F>(Vjp<F>);

impl<F> VjpAux<F> {
    /// Evaluates on host arrays: `(outputs, argument cotangents, aux)`.
    #[track_caller]
    #[allow(clippy::type_complexity)]
    pub fn call<In, O, Aux, C>(
        &self,
        primals: &In,
        cotangents: &C,
    ) -> Result<(O::With<Array>, In::With<Array>, Aux::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        Aux: Tree<Tensor>,
        C: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = (O, Aux)>,
    {
        let location = Location::caller();
        let f = &self.0.f;
        let argnums = self.0.argnums.as_deref();
        let (out, cts) = crate::autodiff::vjp_at(|a| f.trace_apply(a).0, primals, cotangents, argnums, location)?;
        let aux = crate::api::eval_once(|a| f.trace_apply(a).1, primals, location)?;
        Ok((out, cts, aux))
    }

    /// Emits the outputs, the argument cotangents and the aux tree into the open trace.
    #[track_caller]
    pub fn apply<T, O, Aux, C>(&self, primals: &T, cotangents: &C) -> (O::With<Tensor>, T::With<Tensor>, Aux)
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        Aux: Tree<Tensor>,
        C: Tree<Tensor> + ?Sized,
        F: Traceable<T::With<Tensor>, Out = (O, Aux)>,
    {
        let f = &self.0.f;
        let outputs = Vjp { f: |a: T::With<Tensor>| f.trace_apply(a).0, argnums: self.0.argnums.clone() };
        let (out, cts) = outputs.apply(primals, cotangents);
        let copy = unflatten(primals, primals.leaves().into_iter().cloned().collect()).expect("Tree walks agree");
        (out, cts, f.trace_apply(copy).1)
    }
}

impl<F, T, O, Aux, C> Traceable<(T, C)> for VjpAux<F>
where
    T: Tree<Tensor>,
    O: Tree<Tensor>,
    Aux: Tree<Tensor>,
    C: Tree<Tensor>,
    F: Traceable<T::With<Tensor>, Out = (O, Aux)>,
    (O::With<Tensor>, T::With<Tensor>, Aux): Tree<Tensor>,
{
    type Out = (O::With<Tensor>, T::With<Tensor>, Aux);

    #[track_caller]
    fn trace_apply(&self, (primals, cotangents): (T, C)) -> Self::Out {
        self.apply(&primals, &cotangents)
    }
}

/// The Hessian-vector product as a function of `(primals, tangents)`; see [`hvp`].
pub struct Hvp<F> {
    f: F,
}

/// The Hessian-vector product of a scalar `f` as a transform (forward over reverse: the
/// jvp of the gradient): `hvp(f)` maps `(primals, tangents)` to `H · tangents` in the
/// primals' structure. `jit(hvp(f))` is the compiled product Newton-CG iterates on.
///
/// ```
/// use ferrax::{Array, Tensor, jit, transforms::hvp};
/// let f = |x: Tensor| x.powi(3).sum_all(); // H = diag(6 x)
/// let newton_step = jit(hvp(f));
/// let x = Array::from(vec![1.0f64, 2.0]);
/// let hv = newton_step.call(&(x, Array::from(vec![1.0f64, 0.5]))).unwrap();
/// assert_eq!(hv.to_f64_vec(), [6.0, 6.0]);
/// ```
pub fn hvp<F>(f: F) -> Hvp<F> {
    Hvp { f }
}

impl<F> Hvp<F> {
    /// Evaluates on host arrays (as [`crate::hvp`]).
    #[track_caller]
    pub fn call<In>(&self, primals: &In, tangents: &In) -> Result<In::With<Array>, Error>
    where
        In: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = Tensor>,
    {
        crate::autodiff::hvp(|a| self.f.trace_apply(a), primals, tangents)
    }

    /// Emits `H · tangents` into the open trace.
    #[track_caller]
    pub fn apply<T>(&self, primals: &T, tangents: &T) -> T::With<Tensor>
    where
        T: Tree<Tensor> + ?Sized,
        F: Traceable<T::With<Tensor>, Out = Tensor>,
    {
        // Over flat leaves, so that the gradient's argument and result types agree
        // whatever the tree.
        let leaves: Vec<Tensor> = primals.leaves().into_iter().cloned().collect();
        let tangent_leaves: Vec<Tensor> = tangents.leaves().into_iter().cloned().collect();
        let gradient =
            crate::grad(|flat: Vec<Tensor>| self.f.trace_apply(unflatten(primals, flat).expect("Tree walks agree")));
        let (_, hv) = jvp_traced(|flat: Vec<Tensor>| gradient.apply(&flat), &leaves, &tangent_leaves);
        match unflatten(primals, hv) {
            Some(hv) => hv,
            None => {
                poisoned_like(primals, TraceError::at(Location::caller(), "hvp: tangent structure"), Location::caller())
            }
        }
    }
}

impl<F, T> Traceable<(T, T)> for Hvp<F>
where
    T: Tree<Tensor>,
    F: Traceable<T::With<Tensor>, Out = Tensor>,
    T::With<Tensor>: Tree<Tensor>,
{
    type Out = T::With<Tensor>;

    #[track_caller]
    fn trace_apply(&self, (primals, tangents): (T, T)) -> Self::Out {
        self.apply(&primals, &tangents)
    }
}

/// Linearisation as a transform; see [`linearize`].
pub struct Linearize<F> {
    f: F,
}

/// JAX's `linearize`: `linearize(f).call(&primals)` evaluates `f` once and returns its
/// outputs with the linear map `tangents ↦ J · tangents` at that point, a
/// [`Linearized`] that keeps only the residuals the tangent computation needs, so each
/// further direction costs only the linear part.
///
/// Inside a trace there is nothing to keep between calls: `linearize(f)` is traceable on
/// `(primals, tangents)` exactly as [`jvp`], and the compiler splits the known from the
/// linear part across the whole module.
///
/// ```
/// use ferrax::{Array, Tensor, jit, transforms::linearize};
/// let f = |x: Tensor| x.sin() * 2.0;
/// let (y, f_jvp) = linearize(f).call(&Array::from(vec![0.0f64, 1.0])).unwrap();
/// let t = f_jvp.call(&Array::from(vec![1.0f64, 1.0])).unwrap(); // 2 cos x
/// assert_eq!(t.to_f64_vec(), [2.0, 2.0 * 1f64.cos()]);
/// // The linear map is itself a function every transform takes.
/// let t = jit(f_jvp).call(&Array::from(vec![0.5f64, 0.0])).unwrap();
/// assert_eq!(t.to_f64_vec(), [1.0, 0.0]);
/// assert_eq!(y.to_f64_vec(), [0.0, 2.0 * 1f64.sin()]);
/// ```
pub fn linearize<F>(f: F) -> Linearize<F> {
    Linearize { f }
}

impl<F> Linearize<F> {
    /// Evaluates `f` at `primals` on host arrays: its outputs and the linear map there.
    #[track_caller]
    pub fn call<In, O>(&self, primals: &In) -> Result<(O::With<Array>, Linearized<O::With<Array>>), Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        O::With<Array>: Tree<Array> + Clone,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let inputs: Vec<Array> = primals.leaves().into_iter().cloned().collect();
        let types: Vec<Type> = inputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
        let rebuild = |params| unflatten(primals, params);
        let (traced, out) = trace_flat(|a| self.f.trace_apply(a), rebuild, &types, location)?;
        let wrt = float_indices(&types);
        let module = transform::linearize(&traced.module, &transform::Wrt::Params(wrt.clone()))
            .map_err(|e| transform_at(location, e))?;
        let linear = module
            .funcs
            .values()
            .find(|f| f.attr("residuals").is_some())
            .cloned()
            .ok_or_else(|| Error::Arguments("linearize: the pass gave no linear Func".into()))?;
        let linear = transform::dce(&with_bodies(linear, &module));
        let mut all = inputs;
        all.extend(traced.consts);
        let mut outputs = ferrax_ir::eval_entry(&module, &all, &EvalOptions::default())?;
        let residuals = outputs.split_off(out.leaf_count());
        let out_types: Vec<Type> = outputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
        let primal = unflatten(&out, outputs).ok_or_else(|| Error::Arguments("output structure".into()))?;
        let map =
            Linearized { module: linear, residuals, input_types: types, wrt, out_types, template: primal.clone() };
        Ok((primal, map))
    }
}

impl<F, T, O> Traceable<(T, T)> for Linearize<F>
where
    T: Tree<Tensor>,
    O: Tree<Tensor>,
    F: Traceable<T::With<Tensor>, Out = O>,
    (O::With<Tensor>, O::With<Tensor>): Tree<Tensor>,
{
    type Out = (O::With<Tensor>, O::With<Tensor>);

    #[track_caller]
    fn trace_apply(&self, (primals, tangents): (T, T)) -> Self::Out {
        jvp_traced(|a| self.f.trace_apply(a), &primals, &tangents)
    }
}

/// The linear map `tangents ↦ J · tangents` that [`Linearize::call`] returns: the
/// linear half of the linearised module and the residuals its forward half computed.
/// `P` is the structure of `f`'s outputs (with array leaves).
#[derive(Clone, Debug)]
pub struct Linearized<P> {
    module: Module,
    residuals: Vec<Array>,
    input_types: Vec<Type>,
    wrt: Vec<usize>,
    out_types: Vec<Type>,
    template: P,
}

impl<P: Tree<Array>> Linearized<P> {
    /// `J · tangents` on host arrays; `tangents` has the primals' structure and types.
    #[track_caller]
    pub fn call<In: Tree<Array> + ?Sized>(&self, tangents: &In) -> Result<P::With<Array>, Error> {
        let location = Location::caller();
        let leaves = tangents.leaves();
        check_leaves(location, "linearize", "tangent", &self.input_types, "primal", &leaves)?;
        let mut all = self.residuals.clone();
        all.extend(self.wrt.iter().map(|&i| leaves[i].clone()));
        let outputs = ferrax_ir::eval_entry(&self.module, &all, &EvalOptions::default())?;
        let outputs = fill_grads(&self.out_types, outputs)?;
        unflatten(&self.template, outputs).ok_or_else(|| Error::Arguments("linearize: output structure".into()))
    }

    /// Emits `J · tangents` into the open trace, the residuals as constants.
    #[track_caller]
    pub fn apply<T: Tree<Tensor> + ?Sized>(&self, tangents: &T) -> P::With<Tensor> {
        let location = Location::caller();
        let given: Vec<Type> = tangents.leaves().iter().map(|t| t.ty().clone()).collect();
        let poisoned = |message: String| {
            let mut first = Some(TraceError::at(location, message));
            self.template.map_leaves(&mut |a: &Array| {
                let ty = Type::new(a.dtype(), a.shape());
                match first.take() {
                    Some(error) => tracer::fail_with(error, ty),
                    None => tracer::poison_quietly(ty, TraceError::at(location, "a result of a failed linearize")),
                }
            })
        };
        if given != self.input_types {
            let expected = ferrax_ir::format_types(&self.input_types);
            return poisoned(format!(
                "linearize: tangents {} do not match the primals {expected}",
                ferrax_ir::format_types(&given)
            ));
        }
        let Some(trace) = tracer::current() else {
            return poisoned("linearize: apply works inside a trace (use call on arrays outside one)".into());
        };
        let shared = trace.borrow().shared.clone();
        let entry = import(&self.module, &mut shared.borrow_mut());
        let residuals: Vec<Tensor> = self.residuals.iter().map(Tensor::constant).collect();
        let leaves = tangents.leaves();
        let mut inputs: Vec<&Tensor> = residuals.iter().collect();
        inputs.extend(self.wrt.iter().map(|&i| leaves[i]));
        let float_outs: Vec<Type> = self.out_types.iter().filter(|t| t.dtype.is_float()).cloned().collect();
        let mut computed = emit(Prim::call(entry), &inputs, location, &float_outs).into_iter();
        let mut out_types = self.out_types.iter();
        self.template.map_leaves(&mut |_: &Array| {
            let ty = out_types.next().expect("one type per output").clone();
            match ty.dtype.is_float() {
                true => computed.next().unwrap_or_else(|| Tensor::zeros(ty.dtype, &ty.shape)),
                false => Tensor::zeros(ty.dtype, &ty.shape),
            }
        })
    }
}

impl<P, T> Traceable<T> for Linearized<P>
where
    P: Tree<Array>,
    T: Tree<Tensor>,
    P::With<Tensor>: Tree<Tensor>,
{
    type Out = P::With<Tensor>;

    #[track_caller]
    fn trace_apply(&self, tangents: T) -> Self::Out {
        self.apply(&tangents)
    }
}

/// `f` as a rematerialised region; see [`checkpoint`].
#[derive(Clone)]
pub struct Checkpoint<F> {
    f: F,
    policy: RematPolicy,
}

/// JAX's `checkpoint` (`remat`): the same function, but reverse mode keeps only what
/// the policy names from inside it (by default nothing but its arguments) and
/// recomputes the rest in the backward pass, trading compute for activation memory.
/// Traced, it is one `remat` equation around `f`'s body.
///
/// ```
/// use ferrax::{Array, DType, Tensor, Type, grad, make_ir, transforms::checkpoint};
/// let block = checkpoint(|x: Tensor| x.sin().sin());
/// let loss = |x: Tensor| block.apply(&x).sum_all();
/// let dx = grad(loss).call(&Array::from(vec![0.5f64, 1.0])).unwrap().to_f64_vec();
/// for (d, x) in dx.iter().zip([0.5f64, 1.0]) {
///     assert!((d - x.sin().cos() * x.cos()).abs() < 1e-12);
/// }
/// assert!(make_ir(loss, &Type::new(DType::F64, &[2])).unwrap().contains("remat"));
/// ```
pub fn checkpoint<F>(f: F) -> Checkpoint<F> {
    Checkpoint { f, policy: RematPolicy::Nothing }
}

impl<F> Checkpoint<F> {
    /// What reverse mode may keep from inside the region: `Nothing` (the default),
    /// `Dots` (matrix products' results, JAX's `dots_saveable`), the values tagged
    /// with [`Tensor::name`] under these names (`save_only_these_names`), or `Offload`:
    /// everything, in the call's spill file instead of memory between the forward and
    /// the backward pass (`JitOptions::spill_dir` says where; the file is removed when
    /// the call returns).
    pub fn policy(self, policy: RematPolicy) -> Checkpoint<F> {
        Checkpoint { policy, ..self }
    }

    /// Evaluates `f` on host arrays (checkpointing changes nothing but reverse mode).
    #[track_caller]
    pub fn call<In, O>(&self, args: &In) -> Result<O::With<Array>, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        crate::eval(|a| self.f.trace_apply(a), args)
    }

    /// Emits the `remat` region into the open trace.
    #[track_caller]
    pub fn apply<T, O>(&self, args: &T) -> O::With<Tensor>
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        F: Traceable<T::With<Tensor>, Out = O>,
    {
        let location = Location::caller();
        let body = match trace_body("remat", args, |a| self.f.trace_apply(a), location) {
            Ok(body) => body,
            Err((out, error)) => return poisoned_like(&out, error, location),
        };
        let func = body.func.name.clone();
        let result_types = body.func.result_types.clone();
        register(body.func);
        let mut inputs: Vec<&Tensor> = args.leaves();
        inputs.extend(body.captured.iter());
        let prim = Prim::remat(func, self.policy.clone());
        let outputs = emit(prim, &inputs, location, &result_types);
        rebuild(&body.out, outputs, location)
    }
}

impl<F, T, O> Traceable<T> for Checkpoint<F>
where
    T: Tree<Tensor>,
    O: Tree<Tensor>,
    F: Traceable<T::With<Tensor>, Out = O>,
    O::With<Tensor>: Tree<Tensor>,
{
    type Out = O::With<Tensor>;

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.apply(&args)
    }
}
