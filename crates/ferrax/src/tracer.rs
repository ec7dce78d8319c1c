//! The tracer: `Tensor` handles to values of a Func under construction.
//!
//! A trace is a Func being built. Traces nest (a control-flow body or an inner
//! transform traces its own Func while the outer one is open), so the active traces
//! form a per-thread stack. Every operation on tensors appends an equation to the
//! innermost trace, through [`emit`]:
//!
//! - an operand of the innermost trace is used directly;
//! - an operand of an *outer* active trace is captured: the inner Func gets a new
//!   parameter standing for it (one per captured value, through every level), and
//!   whoever closes the inner trace passes the outer value in. An inner Func therefore
//!   never refers to outer values except through its parameters;
//! - an operand of a trace that has ended is an error.
//!
//! Operators cannot return `Result`, so a mistake (a shape or dtype error, a stale
//! tensor) is recorded in the trace with the caller's source location
//! (`#[track_caller]`), and the result is a *poisoned* tensor that later operations
//! pass along silently; closing the trace reports the first error. Nothing here panics
//! on user mistakes.

use ferrax_ir::{Array, Eqn, Func, Module, Prim, Type, Value};
use std::cell::RefCell;
use std::fmt;
use std::panic::Location;
use std::rc::Rc;
use std::sync::Arc;

/// An error found while tracing, at the user's source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// `file:line:col` of the user's call, when known.
    pub location: Option<String>,
    /// What went wrong, naming the operation and the operands' types.
    pub message: String,
}

impl TraceError {
    /// An error at the caller's location.
    #[track_caller]
    pub fn here(message: impl Into<String>) -> TraceError {
        TraceError::at(Location::caller(), message)
    }

    /// An error at `location`, or, where that is a line of ferrax's own (a transform
    /// applied by another transform), at the innermost user call being traced.
    pub fn at(location: &'static Location<'static>, message: impl Into<String>) -> TraceError {
        TraceError { location: Some(location_string(user_site(location))), message: message.into() }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(location) => write!(f, "{location}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TraceError {}

pub(crate) fn location_string(location: &Location<'_>) -> String {
    format!("{}:{}:{}", location.file(), location.line(), location.column())
}

thread_local! {
    /// The user's call sites of the transforms being traced on this thread, innermost
    /// last: where an error found by a transform that another transform applied (the
    /// `grad` in `jit(grad(f))`, applied from ferrax's own code) is reported.
    static USER_SITES: RefCell<Vec<&'static Location<'static>>> = const { RefCell::new(Vec::new()) };
}

/// Whether `location` is in ferrax's own sources (this file's directory, as the
/// compiler names it for this build: a workspace path or a registry path alike).
fn is_internal(location: &Location<'_>) -> bool {
    let own = file!();
    let dir = own.rfind(['/', '\\']).map_or("", |i| &own[..=i]);
    !dir.is_empty() && location.file().starts_with(dir)
}

/// `location`, unless it is a line of ferrax's own: then the innermost user call site
/// being traced (`location` when there is none).
pub(crate) fn user_site(location: &'static Location<'static>) -> &'static Location<'static> {
    if !is_internal(location) {
        return location;
    }
    USER_SITES.with(|sites| sites.borrow().last().copied()).unwrap_or(location)
}

/// Runs `f` with `location` as the innermost user call site (when it is the user's).
pub(crate) fn at_user_site<R>(location: &'static Location<'static>, f: impl FnOnce() -> R) -> R {
    struct Pop(bool);
    impl Drop for Pop {
        fn drop(&mut self) {
            if self.0 {
                USER_SITES.with(|sites| sites.borrow_mut().pop());
            }
        }
    }
    let pushed = !is_internal(location);
    if pushed {
        USER_SITES.with(|sites| sites.borrow_mut().push(location));
    }
    let _pop = Pop(pushed);
    f()
}

/// State shared by a root trace and every trace nested in it: the Funcs traced so far
/// (bodies of structured primitives), to become the rest of the module.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub(crate) module: Module,
    next_name: usize,
}

impl Shared {
    /// A Func name not used yet in this module: `prefix`, `prefix_1`, ...
    pub(crate) fn fresh_name(&mut self, prefix: &str) -> String {
        loop {
            self.next_name += 1;
            let name = format!("{prefix}_{}", self.next_name);
            if !self.module.funcs.contains_key(&name) {
                return name;
            }
        }
    }
}

/// One open (or finished) trace.
#[derive(Debug)]
pub(crate) struct TraceState {
    pub(crate) func: Func,
    /// Outer tensors captured by this trace, and the parameter standing for each.
    pub(crate) captures: Vec<(Tensor, Value)>,
    pub(crate) errors: Vec<TraceError>,
    pub(crate) shared: Rc<RefCell<Shared>>,
    pub(crate) finished: bool,
    /// Whether this trace is a body of another's module or the entry of its own.
    pub(crate) scope: Scope,
    /// Large host arrays captured by the traced closure, hoisted into parameters
    /// (after the declared ones) that the API binds at every call.
    pub(crate) hoisted: Vec<Array>,
}

pub(crate) type TraceRef = Rc<RefCell<TraceState>>;

thread_local! {
    static STACK: RefCell<Vec<TraceRef>> = const { RefCell::new(Vec::new()) };
}

/// A handle to a traced value: cheap to clone, its type known at trace time.
#[derive(Clone)]
pub struct Tensor(Rc<TensorInner>);

struct TensorInner {
    trace: TraceRef,
    value: Value,
    ty: Type,
    /// Set when the value could not be computed: the error that caused it.
    poison: Option<Rc<TraceError>>,
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.poison {
            None => write!(f, "Tensor({}: {})", self.0.value, self.0.ty),
            Some(e) => write!(f, "Tensor(poisoned: {e})"),
        }
    }
}

impl Tensor {
    /// The static type.
    pub fn ty(&self) -> &Type {
        &self.0.ty
    }

    /// The static shape.
    pub fn shape(&self) -> &[usize] {
        &self.0.ty.shape
    }

    /// The element type.
    pub fn dtype(&self) -> ferrax_ir::DType {
        self.0.ty.dtype
    }

    /// Number of axes.
    pub fn rank(&self) -> usize {
        self.0.ty.rank()
    }

    /// The error that poisoned this tensor, if any.
    pub fn error(&self) -> Option<&TraceError> {
        self.0.poison.as_deref()
    }

    pub(crate) fn value(&self) -> Value {
        self.0.value
    }

    pub(crate) fn trace(&self) -> &TraceRef {
        &self.0.trace
    }

    pub(crate) fn new(trace: &TraceRef, value: Value, ty: Type) -> Tensor {
        Tensor(Rc::new(TensorInner { trace: trace.clone(), value, ty, poison: None }))
    }

    fn poisoned(trace: &TraceRef, ty: Type, error: Rc<TraceError>) -> Tensor {
        Tensor(Rc::new(TensorInner { trace: trace.clone(), value: Value(u32::MAX), ty, poison: Some(error) }))
    }
}

/// Runs `body` with `trace` pushed as the innermost trace; pops it afterwards, even if
/// `body` panics.
pub(crate) fn with_trace<R>(trace: &TraceRef, body: impl FnOnce() -> R) -> R {
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            STACK.with(|stack| stack.borrow_mut().pop());
        }
    }
    STACK.with(|stack| stack.borrow_mut().push(trace.clone()));
    let _pop = Pop;
    body()
}

/// Whether a new trace builds a Func of the module being traced or a module of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// A body of the innermost open trace's module (control flow, custom rules).
    Nested,
    /// The entry of a new module (`trace`, `eval`), even when called inside a trace.
    Root,
}

/// A new trace for a Func named `name` with parameters of `types`; nested traces share
/// the module of the innermost open trace.
pub(crate) fn new_trace(name: &str, types: &[Type], scope: Scope) -> (TraceRef, Vec<Tensor>) {
    let shared = match scope {
        Scope::Nested => current().map(|t| t.borrow().shared.clone()).unwrap_or_default(),
        Scope::Root => Rc::default(),
    };
    let mut func = Func::new(name);
    let values: Vec<Value> = types.iter().map(|ty| func.new_value(ty.clone())).collect();
    func.params = values.clone();
    let state = TraceState { func, captures: vec![], errors: vec![], shared, finished: false, scope, hoisted: vec![] };
    let trace = Rc::new(RefCell::new(state));
    let params = values.into_iter().zip(types).map(|(v, ty)| Tensor::new(&trace, v, ty.clone())).collect();
    (trace, params)
}

/// The innermost open trace, if any.
pub(crate) fn current() -> Option<TraceRef> {
    STACK.with(|stack| stack.borrow().last().cloned())
}

/// Records an error in the innermost trace (if any) and returns it shared, for poisoning.
fn record(error: TraceError) -> Rc<TraceError> {
    if let Some(trace) = current() {
        trace.borrow_mut().errors.push(error.clone());
    }
    Rc::new(error)
}

/// The value standing for `tensor` in the innermost trace: itself, or a captured
/// parameter when it belongs to an outer open trace.
fn resolve(tensor: &Tensor, stack: &[TraceRef]) -> Result<Value, String> {
    let Some(depth) = stack.iter().position(|t| Rc::ptr_eq(t, tensor.trace())) else {
        return Err("a tensor from a trace that has ended was used here (tensors live only inside their trace)".into());
    };
    let mut value = tensor.value();
    let mut outer = tensor.clone();
    for inner in &stack[depth + 1..] {
        let mut state = inner.borrow_mut();
        let same = |t: &Tensor| Rc::ptr_eq(t.trace(), outer.trace()) && t.value() == outer.value();
        let existing = state.captures.iter().find(|(t, _)| same(t)).map(|(_, v)| *v);
        value = match existing {
            Some(v) => v,
            None => {
                let v = state.func.new_value(outer.ty().clone());
                state.func.params.push(v);
                state.captures.push((outer.clone(), v));
                v
            }
        };
        drop(state);
        outer = Tensor::new(inner, value, outer.ty().clone());
    }
    Ok(value)
}

/// Appends `prim(inputs)` to the innermost trace and returns its results. Errors are
/// recorded with `location` and give poisoned results (typed `fallback` where the type
/// rule could not decide).
pub(crate) fn emit(
    prim: Prim,
    inputs: &[&Tensor],
    location: &'static Location<'static>,
    fallback: &[Type],
) -> Vec<Tensor> {
    let Some(trace) = current() else {
        let message = format!("{}: tensors can only be used inside a trace (trace, grad, jit, ...)", prim.name());
        let error = Rc::new(TraceError::at(location, message));
        let orphan = orphan_trace();
        return fallback.iter().map(|ty| Tensor::poisoned(&orphan, ty.clone(), error.clone())).collect();
    };
    let poison = |error: Rc<TraceError>| -> Vec<Tensor> {
        fallback.iter().map(|ty| Tensor::poisoned(&trace, ty.clone(), error.clone())).collect()
    };
    if let Some(error) = inputs.iter().find_map(|t| t.0.poison.clone()) {
        return poison(error);
    }
    let stack: Vec<TraceRef> = STACK.with(|s| s.borrow().clone());
    let mut values = Vec::with_capacity(inputs.len());
    for input in inputs {
        match resolve(input, &stack) {
            Ok(v) => values.push(v),
            Err(message) => return poison(record(TraceError::at(location, format!("{}: {message}", prim.name())))),
        }
    }
    let types: Vec<Type> = inputs.iter().map(|t| t.ty().clone()).collect();
    let shared = trace.borrow().shared.clone();
    let inferred = prim.infer(&types, &shared.borrow().module);
    let out_types = match inferred {
        Ok(out) => out,
        Err(message) => {
            let operands: Vec<String> = types.iter().map(Type::to_string).collect();
            let text = format!("{}: {}: {message}", prim.name(), operands.join(" x "));
            return poison(record(TraceError::at(location, text)));
        }
    };
    let mut state = trace.borrow_mut();
    let outputs: Vec<Value> = out_types.iter().map(|ty| state.func.new_value(ty.clone())).collect();
    let loc: Arc<str> = location_string(location).into();
    state.func.eqns.push(Eqn {
        prim,
        inputs: values.into(),
        outputs: outputs.iter().copied().collect(),
        loc: Some(loc),
    });
    drop(state);
    outputs.into_iter().zip(out_types).map(|(v, ty)| Tensor::new(&trace, v, ty)).collect()
}

/// [`emit`] for a single-result primitive.
pub(crate) fn emit1(prim: Prim, inputs: &[&Tensor], location: &'static Location<'static>, fallback: Type) -> Tensor {
    let mut outputs = emit(prim, inputs, location, std::slice::from_ref(&fallback));
    if outputs.len() == 1 {
        outputs.remove(0)
    } else {
        fail(location, format!("expected one result, got {}", outputs.len()), fallback)
    }
}

/// A finished, empty trace that poisoned tensors made outside any trace belong to.
fn orphan_trace() -> TraceRef {
    let func = Func::new("orphan");
    let shared = Rc::default();
    let state = TraceState {
        func,
        captures: vec![],
        errors: vec![],
        shared,
        finished: true,
        scope: Scope::Root,
        hoisted: vec![],
    };
    Rc::new(RefCell::new(state))
}

/// Records a user mistake found outside any primitive's type rule (a bad axis in a
/// convenience method, say) and returns a poisoned tensor of type `ty`.
pub(crate) fn fail(location: &'static Location<'static>, message: String, ty: Type) -> Tensor {
    let error = record(TraceError::at(location, message));
    let trace = current().unwrap_or_else(orphan_trace);
    Tensor::poisoned(&trace, ty, error)
}

/// `array` as a parameter of the innermost root trace (the entry being traced), bound
/// to `array` by the API at every call; used by nested traces through captures.
pub(crate) fn hoist(array: &Array, location: &'static Location<'static>) -> Tensor {
    let ty = Type::new(array.dtype(), array.shape());
    let root = STACK.with(|stack| stack.borrow().iter().rev().find(|t| t.borrow().scope == Scope::Root).cloned());
    let Some(root) = root else {
        return fail(location, "constant: tensors can only be made inside a trace".into(), ty);
    };
    let mut state = root.borrow_mut();
    let value = state.func.new_value(ty.clone());
    state.func.params.push(value);
    state.hoisted.push(array.clone());
    drop(state);
    Tensor::new(&root, value, ty)
}

/// Records `error` in the innermost trace and returns a poisoned tensor of type `ty`.
pub(crate) fn fail_with(error: TraceError, ty: Type) -> Tensor {
    let error = record(error);
    let trace = current().unwrap_or_else(orphan_trace);
    Tensor::poisoned(&trace, ty, error)
}

/// A poisoned tensor of type `ty` that records nothing (the error was recorded already).
pub(crate) fn poison_quietly(ty: Type, error: TraceError) -> Tensor {
    let trace = current().unwrap_or_else(orphan_trace);
    Tensor::poisoned(&trace, ty, Rc::new(error))
}

/// Closes `trace`: sets its results (resolving outputs of outer traces as captures)
/// and marks it finished. Returns the Func and the captured outer tensors, in
/// parameter order after the declared parameters, or the first error.
pub(crate) fn finish(
    trace: &TraceRef,
    results: &[Tensor],
    location: &'static Location<'static>,
) -> Result<(Func, Vec<Tensor>), TraceError> {
    let outcome = with_trace(trace, || {
        let stack: Vec<TraceRef> = STACK.with(|s| s.borrow().clone());
        let mut values = Vec::with_capacity(results.len());
        for tensor in results {
            if let Some(error) = tensor.error() {
                return Err(error.clone());
            }
            values.push(resolve(tensor, &stack).map_err(|m| TraceError::at(location, format!("result: {m}")))?);
        }
        Ok(values)
    });
    let mut state = trace.borrow_mut();
    state.finished = true;
    if let Some(error) = state.errors.first() {
        return Err(error.clone());
    }
    let values = outcome?;
    // A Func traced while axis names are in scope declares them (its collectives, or
    // those of the bodies it calls, name them; the vmap that binds one removes it).
    let axes = crate::ops::collective::names_in_scope();
    if !axes.is_empty() {
        let declared: Vec<&str> = axes.iter().map(String::as_str).collect();
        state.func.set_axis_names(&declared);
    }
    state.func.result_types = values.iter().map(|&v| state.func.ty(v).clone()).collect();
    state.func.results = values;
    let captured = state.captures.iter().map(|(t, _)| t.clone()).collect();
    Ok((state.func.clone(), captured))
}
