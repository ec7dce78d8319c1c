//! Custom differentiation rules from closures: [`custom_jvp`] and [`custom_vjp`], JAX's
//! decorators of the same names.
//!
//! Each builder holds a function and its rule(s) as closures over traced tensors;
//! `call` traces them, inside the open trace, into Funcs of the module being built and
//! emits one `custom_jvp[func, jvp]` or `custom_vjp[func, fwd, bwd]` equation (their
//! text form and rules are in `ir/README.md`). Evaluation, `jit` and `vmap` run (or batch) the function; forward
//! mode calls the jvp rule; reverse mode linearizes the jvp rule and transposes it, or
//! runs `fwd` in the forward pass and `bwd` in the backward pass. Forward mode through a
//! `custom_vjp` differentiates the function itself, so a rule that
//! deliberately differs from the true derivative (gradient clipping) gives different
//! forward- and reverse-mode results.
//!
//! # Captured tensors
//!
//! The function and its rules may use tensors of the enclosing trace (closure
//! conversion): like the bodies of `cond`, every such tensor becomes an extra operand
//! of the equation, after the declared arguments, and an extra parameter of every Func
//! (unused where one does not need it). They are **differentiated**, never silently
//! treated as constants: the rule gives the derivative with respect to the declared
//! arguments, and the derivative with respect to a captured tensor is that of the
//! function's own formula (the jvp rule adds `∂f/∂c · ċ`; `bwd`'s results are followed
//! by `vjp` of the function with respect to the captures, so `fwd` then also passes the
//! arguments and the captures on as residuals). So a value whose derivative the rule
//! must govern is passed as an argument; a captured one gets automatic differentiation.
//! Where the function cannot be differentiated with respect to its captures (a
//! `while_loop` without `max_iters` in a `custom_vjp`, say), `call` reports an error at
//! the caller's line saying to pass them as arguments. Without captures the equation
//! has exactly the declared operands and the rules are used as written.
//!
//! # Checks
//!
//! The rule's types are checked against the function's when `call` traces them: a jvp
//! rule must return the function's outputs and tangents of the same types, `fwd` must
//! return the function's outputs followed by residuals, and `bwd` a tree with one leaf
//! per argument whose float leaves have the arguments' types (the leaves at integer
//! arguments are ignored). A mismatch is an error naming both sides, at the caller's
//! line, reported when the trace closes, like every tracing mistake.

use crate::Tensor;
use crate::autodiff::{import, with_bodies};
use crate::control::{Body, align_captures, poisoned_like, rebuild, register, trace_flat_body, union_of_captures};
use crate::tracer::{self, TraceError, emit, new_trace, with_trace};
use crate::tree::{Tree, unflatten};
use ferrax_ir::{Func, Module, Prim, Type, format_types};
use ferrax_transform as transform;
use std::panic::Location;

/// A function with a custom forward-mode rule; made by [`custom_jvp`].
pub struct CustomJvp<F, J> {
    f: F,
    jvp: J,
}

/// `f` with the jvp rule `jvp(primals, tangents) -> (outputs, output tangents)`, like
/// JAX's `jax.custom_jvp` with `defjvp`. The rule serves both modes: reverse mode
/// linearizes it, so its tangents must be linear in the input tangents. Apply it to
/// tensors with [`CustomJvp::call`]; captured outer tensors are treated as the module
/// docs say.
///
/// ```
/// use ferrax::{Array, Tensor, custom_jvp, grad};
///
/// // log(1 + e^x), whose formula's derivative e^x / (1 + e^x) is inf / inf at x = 100.
/// let softplus = custom_jvp(
///     |x: Tensor| x.exp().log1p(),
///     |x: Tensor, t: Tensor| {
///         let slope = 1.0 - 1.0 / (x.exp() + 1.0);
///         (x.exp().log1p(), slope * t)
///     },
/// );
/// let g = grad(|x: Tensor| softplus.call(&x).sum_all()).call(&Array::from(vec![0.0f32, 100.0])).unwrap();
/// assert_eq!(g.to_f64_vec(), [0.5, 1.0]);
/// ```
pub fn custom_jvp<F, J>(f: F, jvp: J) -> CustomJvp<F, J> {
    CustomJvp { f, jvp }
}

impl<F, J> CustomJvp<F, J> {
    /// Applies the function to `args` (any [`Tree`] of tensors of the open trace),
    /// emitting a `custom_jvp` equation; returns the outputs in `f`'s structure.
    #[track_caller]
    pub fn call<T, O>(&self, args: &T) -> O::With<Tensor>
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        F: Fn(T::With<Tensor>) -> O,
        J: Fn(T::With<Tensor>, T::With<Tensor>) -> (O, O),
    {
        let location = Location::caller();
        let leaves: Vec<Tensor> = args.leaves().into_iter().cloned().collect();
        let types: Vec<Type> = leaves.iter().map(|t| t.ty().clone()).collect();
        let n = types.len();
        let tree = |params: Vec<Tensor>| unflatten(args, params).expect("Tree walks agree");
        let mut f = match trace_flat_body("custom_fn", &types, |p| (self.f)(tree(p)), location) {
            Ok(body) => body,
            Err((out, error)) => return poisoned_like(&out, error, location),
        };
        let doubled: Vec<Type> = types.iter().chain(&types).cloned().collect();
        let traced_rule = trace_flat_body(
            "custom_jvp_rule",
            &doubled,
            |mut p| {
                let tangents = p.split_off(n);
                (self.jvp)(tree(p), tree(tangents))
            },
            location,
        );
        let mut rule = match traced_rule {
            Ok(body) => body,
            Err((_, error)) => return poisoned_like(&f.out, error, location),
        };
        let outs = &f.func.result_types;
        let expected: Vec<Type> = outs.iter().chain(outs).cloned().collect();
        if rule.func.result_types != expected {
            let message = format!(
                "custom_jvp: the jvp rule returns {} (outputs, then tangents) but the function returns {}, so the rule \
                 must return {}",
                format_types(&rule.func.result_types),
                format_types(outs),
                format_types(&expected)
            );
            return poisoned_like(&f.out, TraceError::at(location, message), location);
        }
        let union = union_of_captures([f.captured.as_slice(), rule.captured.as_slice()].into_iter());
        align_captures(&mut f.func, n, &f.captured, &union);
        align_captures(&mut rule.func, 2 * n, &rule.captured, &union);
        let jvp_name = if union.is_empty() {
            let name = rule.func.name.clone();
            register(rule.func);
            name
        } else {
            match jvp_with_captures(&f.func, rule.func, &types, &union, location) {
                Ok(name) => name,
                Err(error) => return poisoned_like(&f.out, error, location),
            }
        };
        let prim = Prim::custom_jvp(f.func.name.clone(), jvp_name);
        emit_custom(prim, f, &leaves, &union, location)
    }
}

/// Registers `f`'s Func and emits `prim(leaves..., union...)`, rebuilt in `f`'s result
/// structure.
fn emit_custom<O: Tree<Tensor>>(
    prim: Prim,
    f: Body<O>,
    leaves: &[Tensor],
    union: &[Tensor],
    location: &'static Location<'static>,
) -> O::With<Tensor> {
    let fallback = f.func.result_types.clone();
    register(f.func);
    let inputs: Vec<&Tensor> = leaves.iter().chain(union).collect();
    let outputs = emit(prim, &inputs, location, &fallback);
    rebuild(&f.out, outputs, location)
}

/// The jvp Func of a `custom_jvp` whose Funcs take the captures `union` after the
/// arguments: `(args..., union..., tangents of args..., tangents of union...)` to the
/// rule's outputs and its tangents plus `∂f/∂union · tangents of union`. `rule` takes
/// `(args..., tangents..., union...)`. Registers the Funcs; returns the jvp's name.
fn jvp_with_captures(
    f: &Func,
    rule: Func,
    types: &[Type],
    union: &[Tensor],
    location: &'static Location<'static>,
) -> Result<String, TraceError> {
    let n = types.len();
    let union_types: Vec<Type> = union.iter().map(|t| t.ty().clone()).collect();
    let float_caps: Vec<usize> = (0..union.len()).filter(|&k| union_types[k].dtype.is_float()).collect();
    let wrt = transform::Wrt::Params(float_caps.iter().map(|k| n + k).collect());
    let f_jvp = match float_caps.is_empty() {
        true => None,
        false => Some(transformed(f, |m| transform::jvp(m, &wrt), "custom_jvp", location)?),
    };
    let rule_name = rule.name.clone();
    register(rule);
    let u = union.len();
    let params: Vec<Type> = [types, &union_types, types, &union_types].concat();
    let m = f.result_types.len();
    let name = fresh_name("custom_jvp");
    let (trace, p) = new_trace(&name, &params, tracer::Scope::Nested);
    let results = with_trace(&trace, || {
        let (args, rest) = p.split_at(n);
        let (caps, rest) = rest.split_at(u);
        let (arg_tangents, cap_tangents) = rest.split_at(n);
        let rule_inputs: Vec<&Tensor> = args.iter().chain(arg_tangents).chain(caps).collect();
        let mut outs = emit(Prim::call(rule_name), &rule_inputs, location, &[]);
        let Some(f_jvp) = f_jvp else { return outs };
        let mut jvp_inputs: Vec<&Tensor> = args.iter().chain(caps).collect();
        jvp_inputs.extend(float_caps.iter().map(|&k| &cap_tangents[k]));
        let from_caps = emit(Prim::call(f_jvp), &jvp_inputs, location, &[]);
        let mut extra = from_caps.iter().skip(m);
        for (i, ty) in f.result_types.iter().enumerate() {
            if let (true, Some(more), Some(t)) = (ty.dtype.is_float(), extra.next(), outs.get(m + i)) {
                outs[m + i] = crate::ops::lax::add(t, more, location);
            }
        }
        outs
    });
    let (func, _) = tracer::finish(&trace, &results, location)?;
    register(func);
    Ok(name)
}

/// A Func name not used yet in the module being built.
fn fresh_name(prefix: &str) -> String {
    match tracer::current() {
        Some(outer) => outer.borrow().shared.borrow_mut().fresh_name(prefix),
        None => prefix.to_string(),
    }
}

/// `pass` applied to `func` (with the bodies of the module being built), added to the
/// module under a fresh name; errors name the builder and say what to do.
fn transformed(
    func: &Func,
    pass: impl FnOnce(&Module) -> Result<Module, ferrax_ir::Error>,
    what: &str,
    location: &'static Location<'static>,
) -> Result<String, TraceError> {
    let Some(outer) = tracer::current() else {
        return Err(TraceError::at(location, format!("{what}: call works inside a trace (trace, grad, jit, ...)")));
    };
    let shared = outer.borrow().shared.clone();
    let module = with_bodies(func.clone(), &shared.borrow().module);
    let done = pass(&module).map(|m| transform::dce(&m)).map_err(|e| {
        let message = format!(
            "{what}: the function uses tensors of the enclosing trace, which are differentiated through the \
             function itself, and it cannot be differentiated with respect to them ({e}); pass them as arguments"
        );
        TraceError::at(location, message)
    })?;
    Ok(import(&done, &mut shared.borrow_mut()))
}

/// A function with custom reverse-mode rules; made by [`custom_vjp`].
pub struct CustomVjp<F, Fw, Bw> {
    f: F,
    fwd: Fw,
    bwd: Bw,
}

/// `f` with the reverse-mode rules `fwd(args) -> (outputs, residuals)` and
/// `bwd(residuals, output cotangents) -> argument cotangents`, like JAX's
/// `jax.custom_vjp` with `defvjp`. `bwd` returns a tree of the arguments' structure;
/// its leaves at integer arguments are ignored. Forward mode differentiates `f`
/// itself. Apply it to tensors with [`CustomVjp::call`].
///
/// ```
/// use ferrax::{Array, Tensor, custom_vjp, grad};
///
/// // The identity, with its cotangent clipped to [-1, 1] on the way back.
/// let clip_gradient = custom_vjp(
///     |x: Tensor| x,
///     |x: Tensor| (x, ()),
///     |(): (), g: Tensor| g.clamp(-1.0f64, 1.0f64),
/// );
/// let loss = |x: Tensor| clip_gradient.call(&x).powi(2).sum_all();
/// let g = grad(loss).call(&Array::from(vec![0.2f64, 3.0, -5.0])).unwrap();
/// assert_eq!(g.to_f64_vec(), [0.4, 1.0, -1.0]);
/// ```
pub fn custom_vjp<F, Fw, Bw>(f: F, fwd: Fw, bwd: Bw) -> CustomVjp<F, Fw, Bw> {
    CustomVjp { f, fwd, bwd }
}

impl<F, Fw, Bw> CustomVjp<F, Fw, Bw> {
    /// Applies the function to `args` (any [`Tree`] of tensors of the open trace),
    /// emitting a `custom_vjp` equation; returns the outputs in `f`'s structure.
    #[track_caller]
    pub fn call<T, O, R, G>(&self, args: &T) -> O::With<Tensor>
    where
        T: Tree<Tensor> + ?Sized,
        O: Tree<Tensor>,
        R: Tree<Tensor>,
        G: Tree<Tensor>,
        F: Fn(T::With<Tensor>) -> O,
        Fw: Fn(T::With<Tensor>) -> (O, R),
        Bw: Fn(R::With<Tensor>, O::With<Tensor>) -> G,
    {
        let location = Location::caller();
        let leaves: Vec<Tensor> = args.leaves().into_iter().cloned().collect();
        let types: Vec<Type> = leaves.iter().map(|t| t.ty().clone()).collect();
        let n = types.len();
        let tree = |params: Vec<Tensor>| unflatten(args, params).expect("Tree walks agree");
        let mut f = match trace_flat_body("custom_fn", &types, |p| (self.f)(tree(p)), location) {
            Ok(body) => body,
            Err((out, error)) => return poisoned_like(&out, error, location),
        };
        let mut fwd = match trace_flat_body("custom_fwd", &types, |p| (self.fwd)(tree(p)), location) {
            Ok(body) => body,
            Err((_, error)) => return poisoned_like(&f.out, error, location),
        };
        let outs = f.func.result_types.clone();
        let m = outs.len();
        if fwd.func.result_types.get(..m) != Some(outs.as_slice()) {
            let message = fwd_mismatch(&fwd.func.result_types, &outs);
            return poisoned_like(&f.out, TraceError::at(location, message), location);
        }
        let residual_types = fwd.func.result_types[m..].to_vec();
        let k = residual_types.len();
        let bwd_types: Vec<Type> = residual_types.iter().chain(&outs).cloned().collect();
        let residual_template = &fwd.out.1;
        let traced_bwd = trace_flat_body(
            "custom_bwd",
            &bwd_types,
            |mut p| {
                let cts = p.split_off(k);
                let residuals = unflatten(residual_template, p).expect("Tree walks agree");
                let cts = unflatten(&f.out, cts).expect("Tree walks agree");
                (self.bwd)(residuals, cts)
            },
            location,
        );
        let mut bwd = match traced_bwd {
            Ok(body) => body,
            Err((_, error)) => return poisoned_like(&f.out, error, location),
        };
        if let Err(message) = keep_float_cotangents(&mut bwd.func, &types) {
            return poisoned_like(&f.out, TraceError::at(location, message), location);
        }
        let union = union_of_captures([&f.captured, &fwd.captured, &bwd.captured].into_iter().map(Vec::as_slice));
        align_captures(&mut f.func, n, &f.captured, &union);
        align_captures(&mut fwd.func, n, &fwd.captured, &union);
        align_captures(&mut bwd.func, k + m, &bwd.captured, &union);
        let bwd_name = if union.is_empty() {
            let name = bwd.func.name.clone();
            register(bwd.func);
            name
        } else {
            // The arguments and captures ride along as residuals, for the vjp of `f`.
            return_params(&mut fwd.func, n + union.len());
            match bwd_with_captures(&f.func, bwd.func, &types, &residual_types, &union, location) {
                Ok(name) => name,
                Err(error) => return poisoned_like(&f.out, error, location),
            }
        };
        let fwd_name = fwd.func.name.clone();
        register(fwd.func);
        let prim = Prim::custom_vjp(f.func.name.clone(), fwd_name, bwd_name);
        emit_custom(prim, f, &leaves, &union, location)
    }
}

/// The error of a `fwd` returning `returned`, which does not start with the function's
/// outputs `outs`.
fn fwd_mismatch(returned: &[Type], outs: &[Type]) -> String {
    format!(
        "custom_vjp: fwd returns {} but must start with the function's outputs {}, then the residuals",
        format_types(returned),
        format_types(outs)
    )
}

/// Appends `func`'s first `count` parameters to its results.
fn return_params(func: &mut Func, count: usize) {
    for i in 0..count {
        let param = func.params[i];
        func.results.push(param);
        func.result_types.push(func.ty(param).clone());
    }
}

/// Checks `bwd`'s results (one per argument, float ones of the argument's type) and
/// keeps those at float arguments: the cotangents the IR's `bwd` returns.
fn keep_float_cotangents(bwd: &mut Func, types: &[Type]) -> Result<(), String> {
    let returned = &bwd.result_types;
    let fits = returned.len() == types.len() && returned.iter().zip(types).all(|(r, t)| !t.dtype.is_float() || r == t);
    if !fits {
        return Err(format!(
            "custom_vjp: bwd returns {} but the arguments are {} (one cotangent per argument, of its type; those of \
             integer arguments are ignored)",
            format_types(returned),
            format_types(types)
        ));
    }
    let float: Vec<bool> = types.iter().map(|t| t.dtype.is_float()).collect();
    let mut keep = float.iter();
    bwd.results.retain(|_| *keep.next().unwrap_or(&false));
    let mut keep = float.iter();
    bwd.result_types.retain(|_| *keep.next().unwrap_or(&false));
    Ok(())
}

/// The bwd Func of a `custom_vjp` whose Funcs take the captures `union` after the
/// arguments: `(residuals..., args..., union..., cotangents...)` to the user's `bwd`
/// results (cotangents of the float arguments) and `vjp` of `f` with respect to the
/// float captures. `bwd` takes `(residuals..., cotangents..., union...)`. Registers
/// the Funcs; returns the name.
fn bwd_with_captures(
    f: &Func,
    bwd: Func,
    types: &[Type],
    residual_types: &[Type],
    union: &[Tensor],
    location: &'static Location<'static>,
) -> Result<String, TraceError> {
    let n = types.len();
    let union_types: Vec<Type> = union.iter().map(|t| t.ty().clone()).collect();
    let float_caps: Vec<usize> = (0..union.len()).filter(|&k| union_types[k].dtype.is_float()).collect();
    let wrt = transform::Wrt::Params(float_caps.iter().map(|k| n + k).collect());
    let f_vjp = match float_caps.is_empty() {
        true => None,
        false => Some(transformed(f, |m| transform::vjp(m, &wrt), "custom_vjp", location)?),
    };
    let bwd_name = bwd.name.clone();
    register(bwd);
    let (k, u, m) = (residual_types.len(), union.len(), f.result_types.len());
    let params: Vec<Type> = [residual_types, types, &union_types, &f.result_types].concat();
    let name = fresh_name("custom_bwd");
    let (trace, p) = new_trace(&name, &params, tracer::Scope::Nested);
    let results = with_trace(&trace, || {
        let (residuals, rest) = p.split_at(k);
        let (args, rest) = rest.split_at(n);
        let (caps, cts) = rest.split_at(u);
        let bwd_inputs: Vec<&Tensor> = residuals.iter().chain(cts).chain(caps).collect();
        let mut results = emit(Prim::call(bwd_name), &bwd_inputs, location, &[]);
        let Some(f_vjp) = f_vjp else { return results };
        let mut vjp_inputs: Vec<&Tensor> = args.iter().chain(caps).collect();
        vjp_inputs.extend(cts.iter().filter(|t| t.dtype().is_float()));
        let from_f = emit(Prim::call(f_vjp), &vjp_inputs, location, &[]);
        results.extend(from_f.into_iter().skip(m));
        results
    });
    let (func, _) = tracer::finish(&trace, &results, location)?;
    register(func);
    Ok(name)
}

/// A function with a custom jvp rule is traceable: `grad(custom_jvp(f, rule))` and
/// `jit(custom_jvp(f, rule))` take it as they take `f`, emitting its `custom_jvp`
/// equation (as [`CustomJvp::call`]).
impl<F, J, T, O> crate::Traceable<T> for CustomJvp<F, J>
where
    T: Tree<Tensor>,
    O: Tree<Tensor>,
    O::With<Tensor>: Tree<Tensor>,
    F: Fn(T::With<Tensor>) -> O,
    J: Fn(T::With<Tensor>, T::With<Tensor>) -> (O, O),
{
    type Out = O::With<Tensor>;

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.call(&args)
    }
}

/// A function with a custom vjp rule is traceable, as [`CustomJvp`] is.
impl<F, Fw, Bw, T, O, R, G> crate::Traceable<T> for CustomVjp<F, Fw, Bw>
where
    T: Tree<Tensor>,
    O: Tree<Tensor>,
    O::With<Tensor>: Tree<Tensor>,
    R: Tree<Tensor>,
    G: Tree<Tensor>,
    F: Fn(T::With<Tensor>) -> O,
    Fw: Fn(T::With<Tensor>) -> (O, R),
    Bw: Fn(R::With<Tensor>, O::With<Tensor>) -> G,
{
    type Out = O::With<Tensor>;

    #[track_caller]
    fn trace_apply(&self, args: T) -> Self::Out {
        self.call::<T, O, R, G>(&args)
    }
}
