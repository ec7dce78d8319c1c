//! Control-flow builders: [`cond`], [`switch`], [`while_loop`], [`scan`] and
//! [`fori_loop`]. Each traces its bodies into Funcs of the module being built and
//! emits one structured equation.
//!
//! Bodies may use tensors of the enclosing trace: the tracer turns each into an extra
//! parameter of the body's Func (a capture), and the builder passes the outer value
//! in: as extra operands of `cond` (every branch gets the union of all branches'
//! captures, unused where a branch does not need one), as constants of `scan`, and as
//! extra carries, passed through unchanged, of `while`.

use crate::Tensor;
use crate::tracer::{self, TraceError, emit, new_trace, with_trace};
use crate::tree::{Tree, unflatten};
use ferrax_ir::prim::ScanParams;
use ferrax_ir::{DType, Func, Prim, Type, Value, format_types};
use std::panic::Location;
use std::rc::Rc;

/// A body traced into a Func, with the outer tensors it captured.
pub(crate) struct Body<O> {
    pub(crate) func: Func,
    pub(crate) out: O,
    pub(crate) captured: Vec<Tensor>,
}

/// Traces `f` on parameters of `template`'s structure and types into a Func named
/// after `prefix`. The body's result comes back even when tracing it failed, so that
/// the caller can shape poisoned results like it.
pub(crate) fn trace_body<T, O>(
    prefix: &str,
    template: &T,
    f: impl FnOnce(T::With<Tensor>) -> O,
    location: &'static Location<'static>,
) -> Result<Body<O>, (O, TraceError)>
where
    T: Tree<Tensor> + ?Sized,
    O: Tree<Tensor>,
{
    let types: Vec<Type> = template.leaves().iter().map(|t| t.ty().clone()).collect();
    // As many parameters as leaves: only a `Tree` impl whose two walks disagree fails.
    let rebuild = |params| unflatten(template, params).expect("Tree::for_each_leaf and Tree::map_leaves agree");
    trace_flat_body(prefix, &types, |params| f(rebuild(params)), location)
}

/// Traces `f` on parameters of `types` into a Func named after `prefix`.
pub(crate) fn trace_flat_body<O: Tree<Tensor>>(
    prefix: &str,
    types: &[Type],
    f: impl FnOnce(Vec<Tensor>) -> O,
    location: &'static Location<'static>,
) -> Result<Body<O>, (O, TraceError)> {
    let name = match tracer::current() {
        Some(outer) => outer.borrow().shared.borrow_mut().fresh_name(prefix),
        None => prefix.to_string(),
    };
    let (trace, params) = new_trace(&name, types, tracer::Scope::Nested);
    let out = with_trace(&trace, || f(params));
    let results: Vec<Tensor> = out.leaves().into_iter().cloned().collect();
    match tracer::finish(&trace, &results, location) {
        Ok((func, captured)) => Ok(Body { func, out, captured }),
        Err(error) => Err((out, error)),
    }
}

fn same_value(a: &Tensor, b: &Tensor) -> bool {
    Rc::ptr_eq(a.trace(), b.trace()) && a.value() == b.value()
}

/// The captures of several bodies, without repeats, in first-seen order.
pub(crate) fn union_of_captures<'a>(bodies: impl Iterator<Item = &'a [Tensor]>) -> Vec<Tensor> {
    let mut union: Vec<Tensor> = Vec::new();
    for captured in bodies {
        for t in captured {
            if !union.iter().any(|u| same_value(u, t)) {
                union.push(t.clone());
            }
        }
    }
    union
}

/// Rewrites `func`'s parameters to `declared..., union...`: its own captures move to
/// their place in `union`, and captures it does not use become unused parameters.
pub(crate) fn align_captures(func: &mut Func, declared: usize, own: &[Tensor], union: &[Tensor]) {
    let own_params: Vec<Value> = func.params[declared..].to_vec();
    let mut params: Vec<Value> = func.params[..declared].to_vec();
    for u in union {
        let param = match own.iter().position(|t| same_value(t, u)) {
            Some(i) => own_params[i],
            None => func.new_value(u.ty().clone()),
        };
        params.push(param);
    }
    func.params = params;
}

/// Adds `func` to the module under construction.
pub(crate) fn register(func: Func) {
    if let Some(trace) = tracer::current() {
        let shared = trace.borrow().shared.clone();
        shared.borrow_mut().module.push(func);
    }
}

/// Records `error` and returns poisoned results shaped like `template`.
pub(crate) fn poisoned_like<O: Tree<Tensor> + ?Sized>(
    template: &O,
    error: TraceError,
    location: &'static Location<'static>,
) -> O::With<Tensor> {
    let mut first = Some(error);
    template.map_leaves(&mut |leaf: &Tensor| match first.take() {
        Some(error) => tracer::fail_with(error, leaf.ty().clone()),
        None => fail_silently(leaf, location),
    })
}

/// A poisoned copy of `leaf` that records no second error.
pub(crate) fn fail_silently(leaf: &Tensor, location: &'static Location<'static>) -> Tensor {
    tracer::poison_quietly(leaf.ty().clone(), TraceError::at(location, "a result of a failed control-flow body"))
}

/// A branch of [`switch`]: a boxed closure from the operands to the results.
pub type Branch<'f, In, Out> = Box<dyn FnOnce(In) -> Out + 'f>;

/// Runs `on_true(operands)` if `pred` (a `bool[]`) is true, else `on_false(operands)`.
/// Both branches must return the same structure and types. Like `jax.lax.cond`.
#[track_caller]
pub fn cond<'f, T, O>(
    pred: &Tensor,
    on_true: impl FnOnce(T::With<Tensor>) -> O + 'f,
    on_false: impl FnOnce(T::With<Tensor>) -> O + 'f,
    operands: &T,
) -> O::With<Tensor>
where
    T: Tree<Tensor> + ?Sized,
    O: Tree<Tensor>,
{
    let branches: Vec<Branch<'f, T::With<Tensor>, O>> = vec![Box::new(on_false), Box::new(on_true)];
    switch_at(pred, branches, operands, Location::caller())
}

/// Runs branch `index` (an `i32[]`, clamped into range) on `operands`. Like
/// `jax.lax.switch`; `N` must be at least 1 (checked at compile time).
#[track_caller]
pub fn switch<'f, T, O, const N: usize>(
    index: &Tensor,
    branches: [Branch<'f, T::With<Tensor>, O>; N],
    operands: &T,
) -> O::With<Tensor>
where
    T: Tree<Tensor> + ?Sized,
    O: Tree<Tensor>,
{
    const { assert!(N > 0, "switch needs at least one branch") };
    switch_at(index, Vec::from(branches), operands, Location::caller())
}

/// `cond`/`switch` with at least one branch.
fn switch_at<'f, T, O>(
    selector: &Tensor,
    branches: Vec<Branch<'f, T::With<Tensor>, O>>,
    operands: &T,
    location: &'static Location<'static>,
) -> O::With<Tensor>
where
    T: Tree<Tensor> + ?Sized,
    O: Tree<Tensor>,
{
    let mut bodies: Vec<Body<O>> = Vec::with_capacity(branches.len());
    let mut failure: Option<(O, TraceError)> = None;
    for branch in branches {
        match trace_body("branch", operands, branch, location) {
            Ok(body) => bodies.push(body),
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }
    if let Some((out, error)) = failure {
        return poisoned_like(&out, error, location);
    }
    let first_types = bodies[0].func.result_types.clone();
    if let Some((i, body)) = bodies.iter().enumerate().find(|(_, b)| b.func.result_types != first_types) {
        let message = format!(
            "cond: branch results differ: {} (branch 0) vs {} (branch {i})",
            format_types(&first_types),
            format_types(&body.func.result_types)
        );
        return poisoned_like(&bodies[0].out, TraceError::at(location, message), location);
    }
    let union = union_of_captures(bodies.iter().map(|b| b.captured.as_slice()));
    let declared = operands.leaf_count();
    let mut names = Vec::with_capacity(bodies.len());
    let mut outs = Vec::with_capacity(bodies.len());
    for mut body in bodies {
        align_captures(&mut body.func, declared, &body.captured, &union);
        names.push(body.func.name.clone());
        register(body.func);
        outs.push(body.out);
    }
    let template = &outs[0];
    let mut inputs: Vec<&Tensor> = vec![selector];
    inputs.extend(operands.leaves());
    inputs.extend(union.iter());
    let fallback: Vec<Type> = template.leaves().iter().map(|t| t.ty().clone()).collect();
    let outputs = emit(Prim::cond(names), &inputs, location, &fallback);
    rebuild(template, outputs, location)
}

/// Rebuilds `template`'s structure from `outputs`.
pub(crate) fn rebuild<O: Tree<Tensor> + ?Sized>(
    template: &O,
    outputs: Vec<Tensor>,
    location: &'static Location<'static>,
) -> O::With<Tensor> {
    match unflatten(template, outputs) {
        Some(rebuilt) => rebuilt,
        None => poisoned_like(template, TraceError::at(location, "result structure mismatch"), location),
    }
}

/// Repeats `body` while `cond` holds, starting from `init`; like `jax.lax.while_loop`.
/// With `max_iters = Some(n)` the loop stops after at most n iterations, which reverse
/// mode requires. `cond` returns a `bool[]`; `body` returns a carry of the same
/// structure and types as `init`.
#[track_caller]
pub fn while_loop<C, B>(
    cond: impl FnOnce(C::With<Tensor>) -> Tensor,
    body: impl FnOnce(C::With<Tensor>) -> B,
    init: &C,
    max_iters: Option<usize>,
) -> C::With<Tensor>
where
    C: Tree<Tensor> + ?Sized,
    B: Tree<Tensor>,
{
    let location = Location::caller();
    let carry_types: Vec<Type> = init.leaves().iter().map(|t| t.ty().clone()).collect();
    let cond_body = match trace_body("while_cond", init, cond, location) {
        Ok(b) => b,
        Err((_, error)) => return poisoned_like(init, error, location),
    };
    let mut step = match trace_body("while_body", init, body, location) {
        Ok(b) => b,
        Err((_, error)) => return poisoned_like(init, error, location),
    };
    if step.func.result_types != carry_types {
        let message = carry_changed("while_loop", &carry_types, &step.func.result_types);
        return poisoned_like(init, TraceError::at(location, message), location);
    }
    let mut cond_func = cond_body.func;
    let union = union_of_captures([cond_body.captured.as_slice(), step.captured.as_slice()].into_iter());
    let n = carry_types.len();
    align_captures(&mut cond_func, n, &cond_body.captured, &union);
    align_captures(&mut step.func, n, &step.captured, &union);
    // Captured values ride along as extra carries that the body passes through.
    let pass_through: Vec<Value> = step.func.params[n..].to_vec();
    for &param in &pass_through {
        let ty = step.func.ty(param).clone();
        step.func.results.push(param);
        step.func.result_types.push(ty);
    }
    let names = (cond_func.name.clone(), step.func.name.clone());
    register(cond_func);
    register(step.func);
    let mut inputs: Vec<&Tensor> = init.leaves();
    inputs.extend(union.iter());
    let fallback: Vec<Type> = inputs.iter().map(|t| t.ty().clone()).collect();
    let prim = Prim::while_loop(names.0, names.1, max_iters);
    let mut outputs = emit(prim, &inputs, location, &fallback);
    outputs.truncate(n);
    rebuild(init, outputs, location)
}

/// Options of [`scan_with`].
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    /// The number of iterations when there are no `xs` (otherwise their leading size).
    pub length: Option<usize>,
    /// Walk the slices from last to first.
    pub reverse: bool,
    /// Reverse mode keeps every K-th carry and recomputes the rest.
    pub checkpoint: Option<usize>,
}

/// Scans `body` over the leading axis of `xs`, threading a carry: `body((carry, x))`
/// returns `(carry, y)`; the result is the final carry and the stacked `y`s. Like
/// `jax.lax.scan`.
#[track_caller]
pub fn scan<C, X, C2, Y>(
    body: impl FnOnce((C::With<Tensor>, X::With<Tensor>)) -> (C2, Y),
    init: &C,
    xs: &X,
) -> (C::With<Tensor>, Y::With<Tensor>)
where
    C: Tree<Tensor> + ?Sized,
    X: Tree<Tensor> + ?Sized,
    C2: Tree<Tensor>,
    Y: Tree<Tensor>,
{
    scan_at(body, init, xs, &ScanOptions::default(), Location::caller())
}

/// [`scan`] with a length (when there are no `xs`), direction and checkpointing.
#[track_caller]
pub fn scan_with<C, X, C2, Y>(
    body: impl FnOnce((C::With<Tensor>, X::With<Tensor>)) -> (C2, Y),
    init: &C,
    xs: &X,
    options: &ScanOptions,
) -> (C::With<Tensor>, Y::With<Tensor>)
where
    C: Tree<Tensor> + ?Sized,
    X: Tree<Tensor> + ?Sized,
    C2: Tree<Tensor>,
    Y: Tree<Tensor>,
{
    scan_at(body, init, xs, options, Location::caller())
}

fn scan_at<C, X, C2, Y>(
    body: impl FnOnce((C::With<Tensor>, X::With<Tensor>)) -> (C2, Y),
    init: &C,
    xs: &X,
    options: &ScanOptions,
    location: &'static Location<'static>,
) -> (C::With<Tensor>, Y::With<Tensor>)
where
    C: Tree<Tensor> + ?Sized,
    X: Tree<Tensor> + ?Sized,
    C2: Tree<Tensor>,
    Y: Tree<Tensor>,
{
    let carry_types: Vec<Type> = init.leaves().iter().map(|t| t.ty().clone()).collect();
    let x_leaves = xs.leaves();
    let lengths: Vec<usize> = x_leaves.iter().map(|t| t.shape().first().copied().unwrap_or(0)).collect();
    let length = options.length.or(lengths.first().copied());
    let bad_x = x_leaves.iter().find(|t| t.rank() == 0 || Some(t.shape()[0]) != length);
    let n_carry = carry_types.len();
    let slice_types: Vec<Type> =
        x_leaves.iter().map(|t| Type::new(t.dtype(), t.shape().get(1..).unwrap_or(&[]))).collect();
    let types: Vec<Type> = carry_types.iter().chain(&slice_types).cloned().collect();
    let traced = trace_flat_body(
        "scan_body",
        &types,
        |mut params| {
            let x_params = params.split_off(n_carry);
            let carry = unflatten(init, params).expect("Tree walks agree");
            let x = unflatten(xs, x_params).expect("Tree walks agree");
            body((carry, x))
        },
        location,
    );
    let fail = |template: &(C2, Y), error: TraceError| {
        let carry = poisoned_like(init, error, location);
        let ys = template.1.map_leaves(&mut |t: &Tensor| fail_silently(t, location));
        (carry, ys)
    };
    let mut step = match traced {
        Ok(step) => step,
        Err((out, error)) => return fail(&out, error),
    };
    let (Some(length), None) = (length, bad_x) else {
        let described: Vec<String> = x_leaves.iter().map(|t| t.ty().to_string()).collect();
        let message = format!("scan: xs must share a leading axis (of size length), got [{}]", described.join(", "));
        return fail(&step.out, TraceError::at(location, message));
    };
    let returned_carry = &step.func.result_types[..step.out.0.leaf_count().min(step.func.result_types.len())];
    if returned_carry != carry_types.as_slice() {
        let message = carry_changed("scan", &carry_types, returned_carry);
        return fail(&step.out, TraceError::at(location, message));
    }
    // Captured values become the scan's constants: parameters first.
    let declared = types.len();
    let mut params: Vec<Value> = step.func.params[declared..].to_vec();
    params.extend_from_slice(&step.func.params[..declared]);
    step.func.params = params;
    let name = step.func.name.clone();
    register(step.func);
    let mut inputs: Vec<&Tensor> = step.captured.iter().collect();
    inputs.extend(init.leaves());
    inputs.extend(x_leaves.iter().copied());
    let y_types = stacked_types(&step.out.1.leaves(), length);
    let fallback: Vec<Type> = carry_types.iter().chain(&y_types).cloned().collect();
    let params = ScanParams {
        body: name,
        length,
        num_consts: step.captured.len(),
        num_carry: n_carry,
        reverse: options.reverse,
        checkpoint: options.checkpoint,
    };
    let mut outputs = emit(Prim::scan(params), &inputs, location, &fallback);
    let ys = outputs.split_off(n_carry.min(outputs.len()));
    let ys = match unflatten(&step.out.1, ys) {
        Some(ys) => ys,
        None => step.out.1.map_leaves(&mut |t: &Tensor| fail_silently(t, location)),
    };
    (rebuild(init, outputs, location), ys)
}

/// The error of a loop `op` whose body returns carries of types `returned` for carries
/// of types `carry`.
fn carry_changed(op: &str, carry: &[Type], returned: &[Type]) -> String {
    format!("{op}: the body changes the carry type: {} -> {}", format_types(carry), format_types(returned))
}

/// The types of the `ys` a scan of `length` iterations stacks from the leaves one
/// iteration returns: each with a leading axis of size `length`.
fn stacked_types(leaves: &[&Tensor], length: usize) -> Vec<Type> {
    leaves
        .iter()
        .map(|t| {
            let mut shape = t.shape().to_vec();
            shape.insert(0, length);
            Type::new(t.dtype(), &shape)
        })
        .collect()
}

/// Runs `body(i, carry)` for `i` in `lower..upper` (static bounds), like
/// `jax.lax.fori_loop`; traced as a `scan` without `xs`, so reverse mode works.
#[track_caller]
pub fn fori_loop<C, B>(
    lower: i32,
    upper: i32,
    body: impl FnOnce(Tensor, C::With<Tensor>) -> B,
    init: &C,
) -> C::With<Tensor>
where
    C: Tree<Tensor> + ?Sized,
    B: Tree<Tensor>,
{
    let location = Location::caller();
    let length = usize::try_from(i64::from(upper) - i64::from(lower)).unwrap_or(0);
    let start = crate::ops::scalar_constant(crate::Scalar::Int(i64::from(lower)), DType::I32, location);
    let carry_with_counter = (start, init.leaves().into_iter().cloned().collect::<Vec<Tensor>>());
    let options = ScanOptions { length: Some(length), ..ScanOptions::default() };
    let ((_, carry), ()) = scan_at(
        |((i, carry), ()): ((Tensor, Vec<Tensor>), ())| {
            let next = &i + 1;
            let carry = unflatten(init, carry).expect("Tree walks agree");
            let out: Vec<Tensor> = body(i, carry).leaves().into_iter().cloned().collect();
            ((next, out), ())
        },
        &carry_with_counter,
        &(),
        &options,
        location,
    );
    rebuild(init, carry, location)
}
