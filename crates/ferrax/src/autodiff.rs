//! Transforms of closures: [`grad`], [`value_and_grad`], and the eager [`jvp`], [`vjp`],
//! [`hvp`] (their transform objects are in [`crate::transforms`]).
//!
//! A closure is traced into a Func, the IR pass of `ferrax_transform` rewrites it, and
//! the result either runs (on host [`Array`]s, `call`) or is emitted into the trace
//! that is open (on [`Tensor`]s, `apply`, which the [`Traceable`] impls call), which
//! is what makes transforms compose: `grad(grad(f))` differentiates a gradient, and
//! `jit(grad(f))` compiles one. Inside a trace, the closure is
//! traced as a body of the module being built: tensors of the outer trace that it uses
//! become extra parameters of its Func, outside `wrt`, so an inner transform never
//! differentiates an outer variable (no perturbation confusion); the transformed Func
//! is then called from the outer trace.
//!
//! The structure of a closure's argument is any [`Tree`]; `grad` differentiates with
//! respect to every float leaf of it (JAX's `grad` of a one-argument function), or of
//! the top-level arguments [`Grad::argnums`] selects, and returns gradients in the same
//! structure (zeros for integer leaves and unselected arguments).
//!
//! Memory: [`Grad::with_max_bytes`] checkpoints the gradient so that its peak live
//! bytes (the cost model of `ferrax_transform::cost`, arguments and captured constants
//! included) fit a budget, recomputing parts of the forward pass in the backward pass
//! (`ferrax_transform::grad_with_budget`); [`Grad::checkpoint_report`] says what it
//! chose.

mod has_aux;

use crate::Tensor;
use crate::api::{Error, argnum_leaves, arguments_at, check_leaves, trace_flat, transform_at};
use crate::traceable::Traceable;
use crate::tracer::{self, Scope, TraceError, emit, new_trace, with_trace};
use crate::tree::{Tree, unflatten};
use ferrax_ir::{Array, EvalOptions, Func, Module, Prim, Type};
use ferrax_transform as transform;
use std::any::Any;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::{Arc, Mutex, PoisonError};

pub use ferrax_transform::CheckpointReport;
pub use has_aux::{GradAux, ValueAndGradAux};

/// Which IR pass a transform object applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    Grad,
    ValueAndGrad,
}

/// `grad(f)` or `value_and_grad(f)` of a closure returning a float scalar; traced once
/// per argument signature, then cached.
pub struct Grad<F> {
    f: F,
    pass: Pass,
    /// `f` returns `(loss, aux)`: the aux tree is carried out, not differentiated.
    has_aux: bool,
    /// The top-level arguments differentiated (`None`: all of them).
    argnums: Option<Vec<usize>>,
    cache: Mutex<HashMap<(Vec<Type>, String), Cached>>,
    max_bytes: Option<u64>,
    report: Mutex<Option<transform::CheckpointReport>>,
}

/// A differentiated module per signature: the module, the captured constants, and the
/// traced result structure as types (`Out::With<Type>`; the aux tree's is what `has_aux`
/// needs to rebuild it).
type Cached = (Module, Vec<Array>, Arc<dyn Any + Send + Sync>);

/// The gradient of `f` (a closure from a tree of tensors to a float scalar) with
/// respect to every float leaf of its argument.
///
/// ```
/// use ferrax::{Array, Tensor, grad};
/// // d/dx sum(x^2 sin x) = 2x sin x + x^2 cos x
/// let g = grad(|x: Tensor| (x.powi(2) * x.sin()).sum_all());
/// let dx = g.call(&Array::from(vec![1.0f64, 2.0])).unwrap().to_f64_vec();
/// for (d, x) in dx.iter().zip([1.0f64, 2.0]) {
///     assert!((d - (2.0 * x * x.sin() + x * x * x.cos())).abs() < 1e-12);
/// }
/// ```
pub fn grad<F>(f: F) -> Grad<F> {
    Grad {
        f,
        pass: Pass::Grad,
        has_aux: false,
        argnums: None,
        cache: Mutex::default(),
        max_bytes: None,
        report: Mutex::default(),
    }
}

/// Like [`grad`], and the value too: `call` gives `(value, gradient)` and `apply`
/// emits both into the open trace (JAX's `value_and_grad`).
///
/// ```
/// use ferrax::{Array, Tensor, value_and_grad};
/// let f = value_and_grad(|[w, x]: [Tensor; 2]| (&w * &x).sum_all());
/// let (value, [dw, dx]) = f.call(&[Array::scalar(3.0f64), Array::scalar(4.0f64)]).unwrap();
/// assert_eq!((value.to_f64_vec(), dw.to_f64_vec(), dx.to_f64_vec()), (vec![12.0], vec![4.0], vec![3.0]));
/// ```
pub fn value_and_grad<F>(f: F) -> ValueAndGrad<F> {
    ValueAndGrad(Grad {
        f,
        pass: Pass::ValueAndGrad,
        has_aux: false,
        argnums: None,
        cache: Mutex::default(),
        max_bytes: None,
        report: Mutex::default(),
    })
}

/// `value_and_grad(f)` of a closure returning a float scalar; see [`value_and_grad`].
pub struct ValueAndGrad<F>(Grad<F>);

impl<F> ValueAndGrad<F> {
    /// Checkpointed to a peak of `max_bytes`, as [`Grad::with_max_bytes`].
    pub fn with_max_bytes(self, max_bytes: u64) -> ValueAndGrad<F> {
        ValueAndGrad(self.0.with_max_bytes(max_bytes))
    }

    /// Differentiate only with respect to these top-level arguments, as
    /// [`Grad::argnums`].
    pub fn argnums(self, argnums: &[usize]) -> ValueAndGrad<F> {
        ValueAndGrad(self.0.argnums(argnums))
    }

    /// What the latest checkpointed transform chose, as [`Grad::checkpoint_report`].
    pub fn checkpoint_report(&self) -> Option<transform::CheckpointReport> {
        self.0.checkpoint_report()
    }

    /// Evaluates on host arrays: the value and the gradient (in the structure of `args`).
    #[track_caller]
    pub fn call<In>(&self, args: &In) -> Result<(Array, In::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = Tensor>,
    {
        let (value, grads) = self.0.run(args, Location::caller())?;
        let value = value.ok_or_else(|| Error::Arguments("value_and_grad: the value is missing".into()))?;
        Ok((value, grads))
    }

    /// The old spelling of [`ValueAndGrad::call`].
    #[deprecated(note = "use `value_and_grad(f).call(..)`, which returns (value, gradient)")]
    #[track_caller]
    pub fn call_with_value<In>(&self, args: &In) -> Result<(Array, In::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = Tensor>,
    {
        self.call(args)
    }

    /// Emits the value and the gradient into the open trace.
    #[track_caller]
    pub fn apply<T>(&self, args: &T) -> (Tensor, T::With<Tensor>)
    where
        T: Tree<Tensor> + ?Sized,
        F: Traceable<T::With<Tensor>, Out = Tensor>,
    {
        let (value, grads) = self.0.apply_both(args, Location::caller());
        let value = value.unwrap_or_else(|| {
            crate::tracer::fail_with(
                TraceError::at(Location::caller(), "value_and_grad: no value"),
                Type::scalar(ferrax_ir::DType::F32),
            )
        });
        (value, grads)
    }
}

/// `value_and_grad(f)` is traceable: inside a trace it emits `(value, gradient)`.
impl<G, T> Traceable<T> for ValueAndGrad<G>
where
    T: Tree<Tensor>,
    T::With<Tensor>: Tree<Tensor>,
    G: Traceable<T::With<Tensor>, Out = Tensor>,
{
    type Out = (Tensor, T::With<Tensor>);

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.apply(&args)
    }
}

pub(crate) fn float_indices(types: &[Type]) -> Vec<usize> {
    types.iter().enumerate().filter(|(_, t)| t.dtype.is_float()).map(|(i, _)| i).collect()
}

/// Gradients for every leaf: the computed ones for the leaves in `wrt` (in order), zeros
/// for the others (integer leaves, arguments outside `argnums`).
fn fill_wrt(types: &[Type], wrt: &[usize], computed: Vec<Array>) -> Result<Vec<Array>, Error> {
    let mut computed = computed.into_iter();
    types
        .iter()
        .enumerate()
        .map(|(i, t)| match wrt.contains(&i) {
            true => computed.next().ok_or_else(|| Error::Arguments("missing gradient".into())),
            false => Ok(Array::zeros(t.dtype, &t.shape, &Default::default())?),
        })
        .collect()
}

/// Gradients for every leaf: the computed ones for float leaves, zeros for the others.
pub(crate) fn fill_grads(types: &[Type], computed: Vec<Array>) -> Result<Vec<Array>, Error> {
    fill_wrt(types, &float_indices(types), computed)
}

impl<F> Grad<F> {
    /// The same transform, checkpointed so that the gradient's peak live bytes fit
    /// `max_bytes` (JAX's `jax.checkpoint`, with the regions chosen for you); the
    /// values are unchanged. A budget that cannot be met is an error naming the best
    /// peak found. Inside a trace ([`Grad::apply`]), a later `cse`/`opt` of the outer
    /// module may merge the recomputation with the forward pass and undo it.
    pub fn with_max_bytes(self, max_bytes: u64) -> Grad<F> {
        Grad { max_bytes: Some(max_bytes), cache: Mutex::default(), report: Mutex::default(), ..self }
    }

    /// What the latest checkpointed transform chose and measured (with a budget set by
    /// [`Grad::with_max_bytes`] only).
    pub fn checkpoint_report(&self) -> Option<transform::CheckpointReport> {
        self.report.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// JAX's `argnums`: differentiate only with respect to these top-level arguments
    /// (elements of the tuple, array or `Vec` the function takes); the others get zero
    /// gradients, which are not computed. The result keeps the argument's structure.
    ///
    /// ```
    /// use ferrax::{Array, Tensor, grad};
    /// let f = |(w, x, b): (Tensor, Tensor, Tensor)| (&(&w * &x) + &b).sum_all();
    /// let args = (Array::scalar(2.0f64), Array::scalar(3.0f64), Array::scalar(1.0f64));
    /// let (dw, dx, db) = grad(f).argnums(&[0, 2]).call(&args).unwrap();
    /// assert_eq!((dw.to_f64_vec(), dx.to_f64_vec(), db.to_f64_vec()), (vec![3.0], vec![0.0], vec![1.0]));
    /// ```
    pub fn argnums(self, argnums: &[usize]) -> Grad<F> {
        Grad { argnums: Some(argnums.to_vec()), cache: Mutex::default(), report: Mutex::default(), ..self }
    }

    /// The leaves differentiated: the float leaves of the selected top-level arguments
    /// (every float leaf without `argnums`). `children` is the argument's
    /// [`Tree::child_leaf_counts`].
    fn wrt(&self, children: Option<Vec<usize>>, types: &[Type]) -> Result<Vec<usize>, String> {
        crate::api::argnum_leaves(self.argnums.as_deref(), children, types)
    }

    /// [`Grad::wrt`] inside a trace: a bad `argnums` fails the trace at `location` (the
    /// first error is what the trace reports) and differentiates every float leaf.
    fn wrt_in_trace(
        &self,
        children: Option<Vec<usize>>,
        types: &[Type],
        location: &'static Location<'static>,
    ) -> Vec<usize> {
        self.wrt(children, types).unwrap_or_else(|message| {
            crate::tracer::fail_with(TraceError::at(location, message), Type::scalar(ferrax_ir::DType::F32));
            float_indices(types)
        })
    }

    /// The gradient module of `module`: plain, or checkpointed to the budget.
    fn differentiate(&self, module: &Module, wrt: &transform::Wrt) -> Result<Module, ferrax_ir::Error> {
        let Some(max_bytes) = self.max_bytes else {
            return match self.pass {
                Pass::Grad => transform::grad(module, wrt, self.has_aux),
                Pass::ValueAndGrad => transform::value_and_grad(module, wrt, self.has_aux),
            };
        };
        let (module, report) = match self.pass {
            Pass::Grad => transform::grad_with_budget(module, wrt, self.has_aux, max_bytes)?,
            Pass::ValueAndGrad => transform::value_and_grad_with_budget(module, wrt, self.has_aux, max_bytes)?,
        };
        *self.report.lock().unwrap_or_else(PoisonError::into_inner) = Some(report);
        Ok(module)
    }

    /// The transformed module for arguments of `types` (cached), with the captured
    /// constants and the traced result structure as types.
    fn module_for<In, O>(&self, args: &In, location: &'static Location<'static>) -> Result<Cached, Error>
    where
        In: Tree<Array> + ?Sized,
        O: Tree<Tensor>,
        O::With<Type>: Send + Sync + 'static,
        F: Traceable<In::With<Tensor>, Out = O>,
    {
        let types: Vec<Type> = args.leaves().iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
        // The structure too: `(Some(a), None)` and `(None, Some(a))` have the same leaves.
        let key = (types.clone(), crate::tree::tree_structure(args));
        if let Some(hit) = self.cache.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return Ok(hit.clone());
        }
        let rebuild = |params| unflatten(args, params);
        let wrt = self.wrt(args.child_leaf_counts(), &types).map_err(|m| arguments_at(location, m))?;
        let (traced, out) = trace_flat(|a| self.f.trace_apply(a), rebuild, &types, location)?;
        let wrt = transform::Wrt::Params(wrt);
        let module = self.differentiate(&traced.module, &wrt).map_err(|e| transform_at(location, e))?;
        let module = transform::dce(&module);
        ferrax_ir::verify(&module)?;
        let structure: Arc<dyn Any + Send + Sync> = Arc::new(out.map_leaves(&mut |t: &Tensor| t.ty().clone()));
        let entry: Cached = (module, traced.consts, structure);
        self.cache.lock().unwrap_or_else(PoisonError::into_inner).insert(key, entry.clone());
        Ok(entry)
    }

    /// Evaluates on host arrays: the gradient, in the structure of `args`.
    #[track_caller]
    pub fn call<In>(&self, args: &In) -> Result<In::With<Array>, Error>
    where
        In: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = Tensor>,
    {
        let (_, grads) = self.run(args, Location::caller())?;
        Ok(grads)
    }

    /// Only a `value_and_grad` had a value; that is now [`ValueAndGrad::call`].
    #[deprecated(note = "use `value_and_grad(f).call(..)`, which returns (value, gradient)")]
    #[track_caller]
    pub fn call_with_value<In>(&self, args: &In) -> Result<(Array, In::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = Tensor>,
    {
        let (value, grads) = self.run(args, Location::caller())?;
        let value = value.ok_or_else(|| Error::Arguments("call_with_value needs value_and_grad".into()))?;
        Ok((value, grads))
    }

    fn run<In>(
        &self,
        args: &In,
        location: &'static Location<'static>,
    ) -> Result<(Option<Array>, In::With<Array>), Error>
    where
        In: Tree<Array> + ?Sized,
        F: Traceable<In::With<Tensor>, Out = Tensor>,
    {
        let (module, consts, _) = self.module_for::<In, Tensor>(args, location)?;
        let mut inputs: Vec<Array> = args.leaves().into_iter().cloned().collect();
        let types: Vec<Type> = inputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
        inputs.extend(consts);
        let mut outputs = ferrax_ir::eval_entry(&module, &inputs, &EvalOptions::default())?;
        let value = match self.pass {
            Pass::ValueAndGrad if !outputs.is_empty() => Some(outputs.remove(0)),
            _ => None,
        };
        let wrt = self.wrt(args.child_leaf_counts(), &types).map_err(|m| arguments_at(location, m))?;
        let grads = fill_wrt(&types, &wrt, outputs)?;
        let grads = unflatten(args, grads).ok_or_else(|| Error::Arguments("gradient structure".into()))?;
        Ok((value, grads))
    }

    /// Emits the gradient into the open trace: the gradient of `f` at `args`, in their
    /// structure. Outer tensors `f` uses are constants of the differentiated Func.
    #[track_caller]
    pub fn apply<T>(&self, args: &T) -> T::With<Tensor>
    where
        T: Tree<Tensor> + ?Sized,
        F: Traceable<T::With<Tensor>, Out = Tensor>,
    {
        self.apply_both(args, Location::caller()).1
    }

    /// The value (for `value_and_grad`) and the gradient, emitted into the open trace.
    fn apply_both<T>(&self, args: &T, location: &'static Location<'static>) -> (Option<Tensor>, T::With<Tensor>)
    where
        T: Tree<Tensor> + ?Sized,
        F: Traceable<T::With<Tensor>, Out = Tensor>,
    {
        let leaves: Vec<Tensor> = args.leaves().into_iter().cloned().collect();
        let types: Vec<Type> = leaves.iter().map(|t| t.ty().clone()).collect();
        let wrt = self.wrt_in_trace(args.child_leaf_counts(), &types, location);
        let selected = wrt.clone();
        let wrt = transform::Wrt::Params(wrt);
        let pass = self.pass;
        let (outputs, _) = apply_transform(
            |params| self.f.trace_apply(unflatten(args, params).expect("Tree walks agree")),
            &leaves,
            &[],
            |module| self.differentiate(module, &wrt),
            location,
            None,
        );
        let mut outputs = outputs.into_iter();
        let value = if pass == Pass::ValueAndGrad { outputs.next() } else { None };
        let mut grads: Vec<Tensor> = Vec::with_capacity(leaves.len());
        for (i, leaf) in leaves.iter().enumerate() {
            grads.push(match selected.contains(&i) {
                true => outputs.next().unwrap_or_else(|| leaf.zeros_like()),
                false => leaf.zeros_like(),
            });
        }
        (value, unflatten(args, grads).expect("Tree walks agree"))
    }
}

/// Traces `f` as a body of the open trace (on parameters of `param_types`, by default
/// the types of `args`), transforms it with `pass`, imports the result into the module
/// being built and emits a call of it on `args`, the outer tensors `f` captured, then
/// `extra`. Returns the call's results (poisoned tensors on error) and what `f`
/// returned when traced, whose structure and types say how to read them.
pub(crate) fn apply_transform<O: Tree<Tensor>>(
    f: impl FnOnce(Vec<Tensor>) -> O,
    args: &[Tensor],
    extra: &[Tensor],
    pass: impl FnOnce(&Module) -> Result<Module, ferrax_ir::Error>,
    location: &'static Location<'static>,
    param_types: Option<&[Type]>,
) -> (Vec<Tensor>, O) {
    let outer = tracer::current();
    let shared = outer.as_ref().map(|o| o.borrow().shared.clone()).unwrap_or_default();
    let types: Vec<Type> = match param_types {
        Some(types) => types.to_vec(),
        None => args.iter().map(|t| t.ty().clone()).collect(),
    };
    let name = shared.borrow_mut().fresh_name("inner");
    // Traced even outside a trace, so that callers always get `f`'s result structure.
    let (trace, params) = new_trace(&name, &types, Scope::Nested);
    let out = tracer::at_user_site(location, || with_trace(&trace, || f(params)));
    let results: Vec<Tensor> = out.leaves().into_iter().cloned().collect();
    let scalar = Type::scalar(ferrax_ir::DType::F32);
    if outer.is_none() {
        let message = "apply: transforms of tensors work inside a trace (use call on arrays outside one)";
        return (vec![tracer::fail_with(TraceError::at(location, message), scalar)], out);
    }
    let (func, captured) = match tracer::finish(&trace, &results, location) {
        Ok(done) => done,
        Err(error) => return (vec![tracer::fail_with(error, scalar)], out),
    };
    let module = with_bodies(func, &shared.borrow().module);
    let transformed = match pass(&module).map(|m| transform::dce(&m)) {
        Ok(m) => m,
        Err(e) => {
            let error = TraceError::at(location, crate::api::transform_message(e));
            return (vec![tracer::fail_with(error, scalar)], out);
        }
    };
    let entry = import(&transformed, &mut shared.borrow_mut());
    let result_types: Vec<Type> = transformed.entry().map(|f| f.result_types.clone()).unwrap_or_default();
    let mut inputs: Vec<&Tensor> = args.iter().collect();
    inputs.extend(captured.iter());
    inputs.extend(extra.iter());
    (emit(Prim::call(entry), &inputs, location, &result_types), out)
}

/// A module of `func` and the bodies of `pool` it refers to (directly or through
/// other bodies); only those are copied, so a trace with many transformed closures
/// does not copy every earlier one's Funcs again.
pub(crate) fn with_bodies(func: Func, pool: &Module) -> Module {
    let mut module = Module::new();
    let mut queue: Vec<String> = func.eqns.iter().flat_map(|e| e.prim.callees()).map(String::from).collect();
    module.push(func);
    while let Some(name) = queue.pop() {
        if module.funcs.contains_key(&name) {
            continue;
        }
        if let Some(body) = pool.func(&name) {
            queue.extend(body.eqns.iter().flat_map(|e| e.prim.callees()).map(String::from));
            module.push(body.clone());
        }
    }
    module
}

/// Adds every Func of `module` to the module being built under fresh names (rewriting
/// the references); returns the new name of its entry.
pub(crate) fn import(module: &Module, shared: &mut crate::tracer::Shared) -> String {
    let mut names: HashMap<String, String> = HashMap::new();
    for name in module.funcs.keys() {
        let fresh = shared.fresh_name(name);
        names.insert(name.clone(), fresh);
    }
    let mut entry_name = String::new();
    for (i, func) in module.funcs.values().enumerate() {
        let mut copy = func.clone();
        copy.name = names[&func.name].clone();
        for eqn in &mut copy.eqns {
            eqn.prim.rename_callees(&mut |n| names.get(n).cloned().unwrap_or_else(|| n.to_string()));
        }
        if i == 0 {
            entry_name = copy.name.clone();
        }
        shared.module.push(copy);
    }
    entry_name
}

/// Forward mode on host arrays: the outputs of `f` at `primals` and their directional
/// derivatives along `tangents` (a tree of the same structure).
///
/// ```
/// use ferrax::{Array, Tensor, jvp};
/// // f(x) = x^3, so J v = 3 x^2 v
/// let (y, t) = jvp(|x: Tensor| x.powi(3), &Array::scalar(2.0f64), &Array::scalar(0.5f64)).unwrap();
/// assert_eq!((y.to_f64_vec(), t.to_f64_vec()), (vec![8.0], vec![6.0]));
/// ```
#[track_caller]
pub fn jvp<In, O>(
    f: impl Traceable<In::With<Tensor>, Out = O>,
    primals: &In,
    tangents: &In,
) -> Result<(O::With<Array>, O::With<Array>), Error>
where
    In: Tree<Array> + ?Sized,
    O: Tree<Tensor>,
{
    let location = Location::caller();
    let inputs: Vec<Array> = primals.leaves().into_iter().cloned().collect();
    let types: Vec<Type> = inputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
    let rebuild = |params| unflatten(primals, params);
    let (traced, out) = trace_flat(|a| f.trace_apply(a), rebuild, &types, location)?;
    check_leaves(location, "jvp", "tangent", &types, "primal", &tangents.leaves())?;
    let wrt = float_indices(&types);
    let module = transform::jvp(&traced.module, &transform::Wrt::Params(wrt.clone()));
    let module = transform::dce(&module.map_err(|e| transform_at(location, e))?);
    let tangent_leaves: Vec<Array> = tangents.leaves().into_iter().cloned().collect();
    let mut all = inputs;
    all.extend(traced.consts);
    all.extend(wrt.iter().filter_map(|&i| tangent_leaves.get(i).cloned()));
    let mut outputs = ferrax_ir::eval_entry(&module, &all, &EvalOptions::default())?;
    let n = out.leaf_count();
    let tangents_out = outputs.split_off(n);
    // Tangents exist for float outputs only; integer outputs get zeros.
    let out_types: Vec<Type> = outputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
    let tangents_out = fill_grads(&out_types, tangents_out)?;
    let primal = unflatten(&out, outputs).ok_or_else(|| Error::Arguments("output structure".into()))?;
    let tangent = unflatten(&out, tangents_out).ok_or_else(|| Error::Arguments("output structure".into()))?;
    Ok((primal, tangent))
}

/// Forward mode inside a trace; now [`crate::transforms::jvp`]`(f).apply(..)`.
#[deprecated(note = "use `ferrax::transforms::jvp(f).apply(&primals, &tangents)`")]
#[track_caller]
pub fn jvp_apply<T, O>(
    f: impl Traceable<T::With<Tensor>, Out = O>,
    primals: &T,
    tangents: &T,
) -> (O::With<Tensor>, O::With<Tensor>)
where
    T: Tree<Tensor> + ?Sized,
    O: Tree<Tensor>,
{
    jvp_traced(f, primals, tangents)
}

/// Forward mode inside a trace: the outputs of `f` at `primals` and their tangents
/// along `tangents` (same structure), as tensors of the open trace; so `grad` of a
/// function that uses it differentiates a forward-mode derivative.
#[track_caller]
pub(crate) fn jvp_traced<T, O>(
    f: impl Traceable<T::With<Tensor>, Out = O>,
    primals: &T,
    tangents: &T,
) -> (O::With<Tensor>, O::With<Tensor>)
where
    T: Tree<Tensor> + ?Sized,
    O: Tree<Tensor>,
{
    let location = Location::caller();
    let leaves: Vec<Tensor> = primals.leaves().into_iter().cloned().collect();
    let types: Vec<Type> = leaves.iter().map(|t| t.ty().clone()).collect();
    let wrt = float_indices(&types);
    let tangent_leaves: Vec<Tensor> = tangents.leaves().into_iter().cloned().collect();
    let extra: Vec<Tensor> = wrt.iter().filter_map(|&i| tangent_leaves.get(i).cloned()).collect();
    let (outputs, template) = apply_transform(
        |params| f.trace_apply(unflatten(primals, params).expect("Tree walks agree")),
        &leaves,
        &extra,
        |module| transform::jvp(module, &transform::Wrt::Params(wrt.clone())),
        location,
        None,
    );
    let mut outputs = outputs.into_iter();
    let primal: Vec<Tensor> =
        template.leaves().iter().map(|t| outputs.next().unwrap_or_else(|| t.zeros_like())).collect();
    let tangent: Vec<Tensor> = template
        .leaves()
        .iter()
        .map(|t| match t.dtype().is_float() {
            true => outputs.next().unwrap_or_else(|| t.zeros_like()),
            false => t.zeros_like(),
        })
        .collect();
    let rebuild = |leaves: Vec<Tensor>| unflatten(&template, leaves).expect("Tree walks agree");
    (rebuild(primal), rebuild(tangent))
}

/// The Hessian-vector product of a scalar `f` at `primals` along `tangents`
/// (forward-over-reverse: the jvp of the gradient), in the structure of `primals`.
///
/// ```
/// use ferrax::{Array, Tensor, hvp};
/// let f = |x: Tensor| x.powi(3).sum_all(); // H = diag(6 x)
/// let hv = hvp(f, &Array::from(vec![1.0f64, 2.0]), &Array::from(vec![1.0f64, 0.5])).unwrap();
/// assert_eq!(hv.to_f64_vec(), [6.0, 6.0]);
/// ```
#[track_caller]
pub fn hvp<In>(
    f: impl Traceable<In::With<Tensor>, Out = Tensor>,
    primals: &In,
    tangents: &In,
) -> Result<In::With<Array>, Error>
where
    In: Tree<Array> + ?Sized,
{
    let location = Location::caller();
    let inputs: Vec<Array> = primals.leaves().into_iter().cloned().collect();
    let types: Vec<Type> = inputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
    let rebuild = |params| unflatten(primals, params);
    let (traced, _) = trace_flat(|a| f.trace_apply(a), rebuild, &types, location)?;
    check_leaves(location, "hvp", "tangent", &types, "primal", &tangents.leaves())?;
    let wrt = float_indices(&types);
    let module = transform::hvp(&traced.module, &transform::Wrt::Params(wrt.clone()));
    let module = transform::dce(&module.map_err(|e| transform_at(location, e))?);
    // One tangent per float parameter of the traced entry: the given ones, then zeros
    // for the hoisted constants.
    let tangent_leaves: Vec<Array> = tangents.leaves().into_iter().cloned().collect();
    let mut all = inputs;
    let const_tangents: Vec<Array> = traced
        .consts
        .iter()
        .filter(|c| c.dtype().is_float())
        .map(|c| Array::zeros(c.dtype(), c.shape(), &Default::default()))
        .collect::<Result<_, _>>()?;
    all.extend(traced.consts);
    all.extend(wrt.iter().filter_map(|&i| tangent_leaves.get(i).cloned()));
    all.extend(const_tangents);
    let mut outputs = ferrax_ir::eval_entry(&module, &all, &EvalOptions::default())?;
    let hv = outputs.split_off(wrt.len());
    let hv = fill_grads(&types, hv)?;
    unflatten(primals, hv).ok_or_else(|| Error::Arguments("tangent structure".into()))
}

/// Reverse mode on host arrays: the outputs of `f` at `primals`, and the cotangent of
/// the arguments given `cotangents` for the outputs (a tree of arrays whose leaves are
/// the outputs' cotangents in order; integer outputs take none).
///
/// ```
/// use ferrax::{Array, Tensor, vjp};
/// // f(x) = 2x elementwise, so vᵀJ = 2v
/// let x = Array::from(vec![1.0f64, 2.0]);
/// let (y, ct): (Array, Array) = vjp(|x: Tensor| &x * 2.0, &x, &Array::from(vec![1.0f64, -1.0])).unwrap();
/// assert_eq!((y.to_f64_vec(), ct.to_f64_vec()), (vec![2.0, 4.0], vec![2.0, -2.0]));
/// ```
#[track_caller]
pub fn vjp<In, O, C>(
    f: impl Traceable<In::With<Tensor>, Out = O>,
    primals: &In,
    cotangents: &C,
) -> Result<(O::With<Array>, In::With<Array>), Error>
where
    In: Tree<Array> + ?Sized,
    O: Tree<Tensor>,
    C: Tree<Array> + ?Sized,
{
    vjp_at(f, primals, cotangents, None, Location::caller())
}

/// [`vjp`] with respect to the float leaves of the top-level arguments `argnums`
/// selects (all without it); the others' cotangents are zeros, not computed.
pub(crate) fn vjp_at<In, O, C>(
    f: impl Traceable<In::With<Tensor>, Out = O>,
    primals: &In,
    cotangents: &C,
    argnums: Option<&[usize]>,
    location: &'static Location<'static>,
) -> Result<(O::With<Array>, In::With<Array>), Error>
where
    In: Tree<Array> + ?Sized,
    O: Tree<Tensor>,
    C: Tree<Array> + ?Sized,
{
    let inputs: Vec<Array> = primals.leaves().into_iter().cloned().collect();
    let types: Vec<Type> = inputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
    let wrt = argnum_leaves(argnums, primals.child_leaf_counts(), &types).map_err(|m| arguments_at(location, m))?;
    let rebuild = |params| unflatten(primals, params);
    let (traced, out) = trace_flat(|a| f.trace_apply(a), rebuild, &types, location)?;
    let float_outputs: Vec<Type> =
        out.leaves().into_iter().map(|t| t.ty().clone()).filter(|t| t.dtype.is_float()).collect();
    check_leaves(location, "vjp", "cotangent", &float_outputs, "float output", &cotangents.leaves())?;
    let module = transform::vjp(&traced.module, &transform::Wrt::Params(wrt.clone()));
    let module = transform::dce(&module.map_err(|e| transform_at(location, e))?);
    let mut all = inputs;
    all.extend(traced.consts);
    all.extend(cotangents.leaves().into_iter().cloned());
    let mut outputs = ferrax_ir::eval_entry(&module, &all, &EvalOptions::default())?;
    let n = out.leaf_count();
    let in_cts = fill_wrt(&types, &wrt, outputs.split_off(n))?;
    let primal = unflatten(&out, outputs).ok_or_else(|| Error::Arguments("output structure".into()))?;
    let in_cts = unflatten(primals, in_cts).ok_or_else(|| Error::Arguments("cotangent structure".into()))?;
    Ok((primal, in_cts))
}

/// `grad(f)` is itself traceable: applied inside a trace it emits the gradient (as
/// [`Grad::apply`]), so `jit(grad(f))`, `vmap(grad(f))` and `grad(grad(f))` work.
impl<G, T> Traceable<T> for Grad<G>
where
    T: Tree<Tensor>,
    T::With<Tensor>: Tree<Tensor>,
    G: Traceable<T::With<Tensor>, Out = Tensor>,
{
    type Out = T::With<Tensor>;

    #[track_caller]
    fn trace_apply(&self, args: T) -> T::With<Tensor> {
        self.apply(&args)
    }
}
