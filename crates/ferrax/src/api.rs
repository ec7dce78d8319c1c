//! The user-facing entry points: [`trace`], [`make_ir`] and [`eval`].

use crate::Tensor;
use crate::traceable::TraceOnce;
use crate::tracer::{self, TraceError, with_trace};
use crate::tree::{Tree, unflatten};
use ferrax_ir::{Array, EvalOptions, Module, PrintOptions, Type};
use std::fmt;
use std::panic::Location;

/// An error from the ferrax API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A mistake found while tracing, at the user's source line.
    Trace(TraceError),
    /// An error of the IR layer (verifying or evaluating).
    Ir(ferrax_ir::Error),
    /// Arguments whose structure does not match the function's.
    Arguments(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Trace(e) => e.fmt(f),
            Error::Ir(e) => e.fmt(f),
            Error::Arguments(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl From<TraceError> for Error {
    fn from(e: TraceError) -> Error {
        Error::Trace(e)
    }
}

impl From<ferrax_ir::array::Error> for Error {
    fn from(e: ferrax_ir::array::Error) -> Error {
        Error::Ir(ferrax_ir::Error::Array(e))
    }
}

impl From<ferrax_ir::Error> for Error {
    fn from(e: ferrax_ir::Error) -> Error {
        Error::Ir(e)
    }
}

/// A traced module and the host arrays its entry's trailing parameters are bound to.
#[derive(Clone, Debug, PartialEq)]
pub struct Traced {
    /// The module; its entry `@main` takes the declared parameters, then one parameter
    /// per hoisted constant (its Func attribute `consts=K` counts them).
    pub module: Module,
    /// The large host arrays captured by the closure, in parameter order.
    pub consts: Vec<Array>,
}

/// [`trace`], keeping the large host arrays the closure captured ([`Tensor::constant`]):
/// the entry takes them as trailing parameters.
#[track_caller]
pub fn trace_with_consts<S, Out>(f: impl TraceOnce<S::With<Tensor>, Out = Out>, spec: &S) -> Result<Traced, Error>
where
    S: Tree<Type> + ?Sized,
    Out: Tree<Tensor>,
{
    let types: Vec<Type> = spec.leaves().into_iter().cloned().collect();
    let rebuild = |params| unflatten(spec, params);
    trace_flat(|a| f.trace_once(a), rebuild, &types, Location::caller()).map(|(traced, _)| traced)
}

/// Traces `f` on symbolic tensors of the types in `spec` (any [`Tree`] of [`Type`]s:
/// a slice, an array, a tuple, a parameter struct) into a verified module whose entry,
/// `@main`, takes the leaves in order and returns the leaves of `f`'s result.
#[track_caller]
pub fn trace<S, Out>(f: impl TraceOnce<S::With<Tensor>, Out = Out>, spec: &S) -> Result<Module, Error>
where
    S: Tree<Type> + ?Sized,
    Out: Tree<Tensor>,
{
    let types: Vec<Type> = spec.leaves().into_iter().cloned().collect();
    let rebuild = |params| unflatten(spec, params);
    trace_flat(|a| f.trace_once(a), rebuild, &types, Location::caller()).map(|(traced, _)| traced.module)
}

/// [`trace`], then the module as text with source locations (JAX's `make_jaxpr`): the
/// thing to snapshot-test.
#[track_caller]
pub fn make_ir<S, Out>(f: impl TraceOnce<S::With<Tensor>, Out = Out>, spec: &S) -> Result<String, Error>
where
    S: Tree<Type> + ?Sized,
    Out: Tree<Tensor>,
{
    let types: Vec<Type> = spec.leaves().into_iter().cloned().collect();
    let rebuild = |params| unflatten(spec, params);
    let (traced, _) = trace_flat(|a| f.trace_once(a), rebuild, &types, Location::caller())?;
    Ok(ferrax_ir::print_with(&traced.module, &PrintOptions { locs: true }))
}

/// Traces `f` on the types of `args` and runs it with the reference interpreter,
/// returning results in the structure `f` returns, with [`Array`] leaves.
#[track_caller]
pub fn eval<A, Out>(f: impl TraceOnce<A::With<Tensor>, Out = Out>, args: &A) -> Result<Out::With<Array>, Error>
where
    A: Tree<Array> + ?Sized,
    Out: Tree<Tensor>,
{
    eval_once(|a| f.trace_once(a), args, Location::caller())
}

/// [`eval`] of a closure that runs once (the crate's own callers' may move what they
/// capture).
pub(crate) fn eval_once<A, Out>(
    f: impl FnOnce(A::With<Tensor>) -> Out,
    args: &A,
    location: &'static Location<'static>,
) -> Result<Out::With<Array>, Error>
where
    A: Tree<Array> + ?Sized,
    Out: Tree<Tensor>,
{
    let inputs: Vec<Array> = args.leaves().into_iter().cloned().collect();
    let types: Vec<Type> = inputs.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
    let rebuild = |params| unflatten(args, params);
    let (traced, out) = trace_flat(f, rebuild, &types, location)?;
    let mut inputs = inputs;
    inputs.extend(traced.consts);
    let outputs = ferrax_ir::eval_entry(&traced.module, &inputs, &EvalOptions::default())?;
    unflatten(&out, outputs).ok_or_else(|| Error::Arguments("the traced function's results changed shape".into()))
}

/// The leaves a transform with `argnums` differentiates: the float leaves of the
/// selected top-level arguments (every float leaf without `argnums`). `children` is the
/// argument's [`Tree::child_leaf_counts`].
pub(crate) fn argnum_leaves(
    argnums: Option<&[usize]>,
    children: Option<Vec<usize>>,
    types: &[Type],
) -> Result<Vec<usize>, String> {
    let floats = |range: std::ops::Range<usize>| range.filter(|&i| types[i].dtype.is_float());
    let Some(argnums) = argnums else { return Ok(floats(0..types.len()).collect()) };
    let Some(children) = children else {
        // One argument that is not a tuple of arguments: argnums=0 is the whole of it.
        if argnums.iter().all(|&k| k == 0) {
            return Ok(floats(0..types.len()).collect());
        }
        return Err(
            "argnums: the function takes one argument (not a tuple, an array or a Vec of them); only 0 selects it"
                .into(),
        );
    };
    let mut ranges = Vec::with_capacity(children.len());
    let mut at = 0;
    for &n in &children {
        ranges.push(at..at + n);
        at += n;
    }
    let mut wrt = Vec::new();
    for &k in argnums {
        let leaves = ranges.get(k).ok_or_else(|| {
            format!("argnums: argument {k} does not exist: the function takes {} arguments", children.len())
        })?;
        wrt.extend(floats(leaves.clone()));
    }
    wrt.sort_unstable();
    wrt.dedup();
    Ok(wrt)
}

/// A misuse found before anything runs (arguments that do not fit the function), at
/// the user's call site: `file:line:col: message`.
pub(crate) fn arguments_at(location: &'static Location<'static>, message: impl fmt::Display) -> Error {
    Error::Arguments(format!("{}: {message}", tracer::location_string(tracer::user_site(location))))
}

/// A transform's refusal (grad of a non-scalar, reverse mode through an unbounded loop,
/// an axis out of range) reported at the user's call site, without the IR-internal
/// name of the traced Func.
pub(crate) fn transform_at(location: &'static Location<'static>, error: ferrax_ir::Error) -> Error {
    Error::Trace(TraceError::at(location, transform_message(error)))
}

/// The message of a transform's error, without the place inside the traced module
/// (a Func the user never named); other errors as they print.
pub(crate) fn transform_message(error: ferrax_ir::Error) -> String {
    match error {
        ferrax_ir::Error::Transform { message, .. } => message,
        other => other.to_string(),
    }
}

/// Checks that `given` leaves have the types of `expected` (the primals' types for
/// tangents, the float outputs' for cotangents): the error names the first leaf that
/// differs with both types, or both counts.
pub(crate) fn check_leaves(
    location: &'static Location<'static>,
    op: &str,
    what: &str,
    expected: &[Type],
    against: &str,
    given: &[&Array],
) -> Result<(), Error> {
    if given.len() != expected.len() {
        let message = format!("{op}: {} {what} leaves given for {} {against} leaves", given.len(), expected.len());
        return Err(arguments_at(location, message));
    }
    for (i, (a, t)) in given.iter().zip(expected).enumerate() {
        if a.dtype() != t.dtype || a.shape() != t.shape.as_slice() {
            let message = format!("{op}: {what} leaf {i} is {}, its {against} is {t}", Type::new(a.dtype(), a.shape()));
            return Err(arguments_at(location, message));
        }
    }
    Ok(())
}

/// Traces `f` on parameters of `types`, given to it rebuilt by `rebuild`; returns the
/// verified module and `f`'s result (its structure, for rebuilding outputs).
pub(crate) fn trace_flat<In, Out>(
    f: impl FnOnce(In) -> Out,
    rebuild: impl FnOnce(Vec<Tensor>) -> Option<In>,
    types: &[Type],
    location: &'static Location<'static>,
) -> Result<(Traced, Out), Error>
where
    Out: Tree<Tensor>,
{
    let (trace, params) = tracer::new_trace("main", types, tracer::Scope::Root);
    let arguments = rebuild(params).ok_or_else(|| Error::Arguments("argument structure mismatch".into()))?;
    let out = tracer::at_user_site(location, || with_trace(&trace, || f(arguments)));
    let results: Vec<Tensor> = out.leaves().into_iter().cloned().collect();
    let (func, captured) = tracer::finish(&trace, &results, location)?;
    if let Some(outer) = captured.first() {
        let message = format!("the traced function uses a tensor of another trace ({outer:?}); pass it as an argument");
        return Err(Error::Trace(TraceError::at(location, message)));
    }
    let consts = std::mem::take(&mut trace.borrow_mut().hoisted);
    let mut func = func;
    if !consts.is_empty() {
        func.set_attr("consts", ferrax_ir::AttrValue::Int(consts.len() as i64));
    }
    let mut module = Module::new();
    module.push(func);
    let shared = trace.borrow().shared.clone();
    for (_, sub) in std::mem::take(&mut shared.borrow_mut().module.funcs) {
        module.push(sub);
    }
    ferrax_ir::verify(&module)?;
    Ok((Traced { module, consts }, out))
}
