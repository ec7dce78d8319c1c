//! `jit`: compiles a closure (or a module) to native code through `ferrax_jit`.
//!
//! [`jit`] wraps a closure; [`Jit::call`] traces it once per argument signature (as
//! `grad` does), compiles the traced module, and on later calls with the same types
//! runs the cached executable. It composes with the transforms (any
//! [`Traceable`](crate::Traceable)): `jit(grad(f))` compiles the gradient, and inside
//! another trace a `Jit` traces its function inline. [`Jit::lower`] traces ahead of
//! time from types; [`jit_module`] compiles a module as it is.

use crate::Tensor;
use crate::api::{Error, trace_flat};
use crate::traceable::Traceable;
use crate::tree::{Tree, tree_structure, unflatten};
use ferrax_ir::{Array, Module, Type};
use ferrax_jit::{Executable, JitOptions};
use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

/// A closure compiled per argument signature; see [`jit`].
///
/// `Jit<F>` is `Send + Sync` when `F` is: threads share one compiled function and its
/// cache. The first signature compiled is looked up without a lock (the common case:
/// one signature per `Jit`); the others through a read-mostly map. Two threads that
/// race for a new signature trace and compile it once: the second waits for the first.
pub struct Jit<F> {
    f: F,
    options: JitOptions,
    /// The first signature compiled and its entry, set once, read without a lock.
    first: OnceLock<(Signature, Entry)>,
    /// Per signature, a slot filled once under its own lock (a failed compile leaves it
    /// empty, so the next call retries and reports its own error).
    cache: RwLock<HashMap<Signature, Arc<Mutex<Option<Entry>>>>>,
    compiles: AtomicUsize,
}

/// A compiled signature: the executable, the captured constants, and the result
/// structure (the traced results' types in the structure `f` returned).
type Entry = (Arc<Executable>, Arc<Vec<Array>>, Arc<dyn Any + Send + Sync>);

/// What a compiled function is specific to: the argument leaves' types and the
/// argument tree's structure (two trees with the same leaf types, say `(Some(a), None)`
/// and `(None, Some(a))`, are different functions of their leaves).
type Signature = (Vec<Type>, String);

thread_local! {
    /// The cache slots this thread is tracing a function for (by address).
    static TRACING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Marks a slot as being traced by this thread until dropped (also when the traced
/// function panics).
struct Tracing(usize);

impl Tracing {
    fn enter(id: usize) -> Tracing {
        TRACING.with(|tracing| tracing.borrow_mut().push(id));
        Tracing(id)
    }
}

impl Drop for Tracing {
    fn drop(&mut self) {
        TRACING.with(|tracing| tracing.borrow_mut().retain(|&t| t != self.0));
    }
}

/// Whether `args` has the tree structure `structure`, written into a per-thread buffer
/// so that the per-call check allocates nothing.
fn same_structure<A: Tree<Array> + ?Sized>(args: &A, structure: &str) -> bool {
    thread_local! {
        static BUFFER: RefCell<String> = const { RefCell::new(String::new()) };
    }
    BUFFER.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        buffer.clear();
        args.write_structure(&mut buffer);
        *buffer == structure
    })
}

/// Whether `leaves` have exactly the types `types`.
fn same_types(leaves: &[&Array], types: &[Type]) -> bool {
    leaves.len() == types.len()
        && leaves.iter().zip(types).all(|(a, t)| a.dtype() == t.dtype && a.shape() == t.shape.as_slice())
}

/// `jit(f)`: `f` traced and compiled on its first call with each argument signature.
///
/// ```
/// use ferrax::{Array, Tensor, grad, jit};
/// let g = grad(|x: Tensor| x.tanh().sum_all());
/// let fast = jit(|x: Tensor| g.apply(&x)); // a compiled gradient
/// let dx = fast.call(&Array::from(vec![0.0f64, 0.5])).unwrap().to_f64_vec();
/// assert!((dx[0] - 1.0).abs() < 1e-15 && (dx[1] - (1.0 - 0.5f64.tanh().powi(2))).abs() < 1e-15);
/// assert_eq!(fast.compiles(), 1);
/// ```
pub fn jit<F>(f: F) -> Jit<F> {
    jit_with(f, JitOptions::default())
}

/// [`jit`] with compile options (dumps, budget, fuel).
pub fn jit_with<F>(f: F, options: JitOptions) -> Jit<F> {
    Jit { f, options, first: OnceLock::new(), cache: RwLock::default(), compiles: AtomicUsize::new(0) }
}

/// Compiles a module's entry for its declared input types (ahead of time, no data).
pub fn jit_module(module: &Module) -> Result<Executable, Error> {
    Ok(ferrax_jit::compile(module, &JitOptions::default())?)
}

impl<F> Jit<F> {
    /// Runs `f` on host arrays through its compiled form for their types.
    ///
    /// The bound on `Out::With<Type>` holds for every result structure built from
    /// tensors (a tensor, tuples, arrays, `Vec`s, `Option`s and `#[derive(Tree)]`
    /// structs of them): it lets the compiled function keep its result structure
    /// without the traced tensors, which belong to one thread.
    #[track_caller]
    pub fn call<A, Out>(&self, args: &A) -> Result<Out::With<Array>, Error>
    where
        A: Tree<Array> + ?Sized,
        Out: Tree<Tensor>,
        Out::With<Type>: Tree<Type, With<Array> = Out::With<Array>> + Send + Sync + 'static,
        F: Traceable<A::With<Tensor>, Out = Out>,
    {
        let location = Location::caller();
        let leaves: Vec<&Array> = args.leaves();
        let looked_up;
        let (exe, consts, shape) = match self.first.get() {
            Some(((types, structure), entry)) if same_types(&leaves, types) && same_structure(args, structure) => entry,
            _ => {
                looked_up = self.entry(args, &leaves, location)?;
                &looked_up
            }
        };
        // Borrowed, not cloned: a call copies neither the arguments nor the captured constants.
        let inputs: Vec<&Array> = leaves.into_iter().chain(consts.iter()).collect();
        let outputs = exe.call_refs(&inputs)?;
        let out = shape
            .downcast_ref::<Out::With<Type>>()
            .ok_or_else(|| Error::Arguments("jit: the result structure changed".into()))?;
        unflatten(out, outputs)
            .ok_or_else(|| Error::Arguments("jit: the traced function's results changed shape".into()))
    }

    /// The entry of the signature of `leaves`: from the cache, or traced and compiled
    /// now (once, however many threads ask at the same time). Kept out of line: the
    /// common call never gets here, and its fast path stays small.
    #[cold]
    #[inline(never)]
    fn entry<A, Out>(&self, args: &A, leaves: &[&Array], location: &'static Location<'static>) -> Result<Entry, Error>
    where
        A: Tree<Array> + ?Sized,
        Out: Tree<Tensor>,
        Out::With<Type>: Send + Sync + 'static,
        F: Traceable<A::With<Tensor>, Out = Out>,
    {
        let types: Vec<Type> = leaves.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
        let signature: Signature = (types.clone(), tree_structure(args));
        let known = self.cache.read().unwrap_or_else(PoisonError::into_inner).get(&signature).cloned();
        let slot = match known {
            Some(slot) => slot,
            None => {
                let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
                cache.entry(signature.clone()).or_default().clone()
            }
        };
        // A function that calls its own compiled form (same signature) while being traced
        // would wait for itself on the slot's lock: an error instead.
        let id = Arc::as_ptr(&slot) as usize;
        if TRACING.with(|tracing| tracing.borrow().contains(&id)) {
            let message = "jit: the function calls its own jit with the same argument types while it is traced";
            return Err(crate::api::arguments_at(location, message));
        }
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = slot.as_ref() {
            return Ok(entry.clone());
        }
        let rebuild = |params| unflatten(args, params);
        let traced = {
            let _tracing = Tracing::enter(id);
            trace_flat(|a| self.f.trace_apply(a), rebuild, &types, location)
        };
        let (traced, out) = traced?;
        let exe = Arc::new(ferrax_jit::compile(&traced.module, &self.options)?);
        self.compiles.fetch_add(1, Ordering::Relaxed);
        let template: Out::With<Type> = out.map_leaves(&mut |t: &Tensor| t.ty().clone());
        let entry: Entry = (exe, Arc::new(traced.consts), Arc::new(template));
        *slot = Some(entry.clone());
        // The first signature compiled is the lock-free one; later ones stay in the map.
        let _ = self.first.set((signature, entry.clone()));
        Ok(entry)
    }

    /// How many times `f` was traced and compiled (one per argument signature).
    pub fn compiles(&self) -> usize {
        self.compiles.load(Ordering::Relaxed)
    }
}

impl<F> Jit<F> {
    /// Ahead of time, without data (JAX's `jit(f).lower(specs)`): traces `f` for
    /// arguments of the types in `specs`, a tree of [`Type`]s shaped as the arguments
    /// will be. The result displays as the traced module; [`Lowered::compile`] compiles
    /// it into a function of that one signature.
    #[track_caller]
    pub fn lower<S, Out>(&self, specs: &S) -> Result<Lowered<Out::With<Type>>, Error>
    where
        S: Tree<Type> + ?Sized,
        Out: Tree<Tensor>,
        F: Traceable<S::With<Tensor>, Out = Out>,
    {
        let location = Location::caller();
        let types: Vec<Type> = specs.leaves().into_iter().cloned().collect();
        let rebuild = |params| unflatten(specs, params);
        let (traced, out) = trace_flat(|a| self.f.trace_apply(a), rebuild, &types, location)?;
        let template = out.map_leaves(&mut |t: &Tensor| t.ty().clone());
        Ok(Lowered { module: traced.module, consts: traced.consts, types, template, options: self.options.clone() })
    }
}

/// A function traced for one signature, not yet compiled; see [`Jit::lower`].
pub struct Lowered<T> {
    module: Module,
    consts: Vec<Array>,
    types: Vec<Type>,
    template: T,
    options: JitOptions,
}

impl<T> Lowered<T> {
    /// The traced module (its entry takes the arguments' leaves, then any captured
    /// arrays as extra parameters).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// Compiles the module: a callable of exactly the lowered signature.
    pub fn compile(self) -> Result<Compiled<T>, Error> {
        let exe = ferrax_jit::compile(&self.module, &self.options)?;
        Ok(Compiled { exe, consts: self.consts, types: self.types, template: self.template })
    }
}

/// The canonical text of the lowered module, `{:#}` with source locations.
impl<T> std::fmt::Display for Lowered<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() { write!(f, "{:#}", self.module) } else { write!(f, "{}", self.module) }
    }
}

/// A function compiled ahead of time for one signature; see [`Jit::lower`].
pub struct Compiled<T> {
    exe: Executable,
    consts: Vec<Array>,
    types: Vec<Type>,
    template: T,
}

impl<T: Tree<Type>> Compiled<T> {
    /// Runs on `args`, which must have exactly the lowered signature: the error names
    /// the first argument leaf whose type differs, with both types.
    #[track_caller]
    pub fn call<A: Tree<Array> + ?Sized>(&self, args: &A) -> Result<T::With<Array>, Error> {
        let location = Location::caller();
        let leaves: Vec<&Array> = args.leaves();
        if leaves.len() != self.types.len() {
            let message = format!(
                "{location}: compiled function: {} argument leaves given, its signature has {}",
                leaves.len(),
                self.types.len()
            );
            return Err(Error::Arguments(message));
        }
        for (i, (a, t)) in leaves.iter().zip(&self.types).enumerate() {
            if a.dtype() != t.dtype || a.shape() != t.shape.as_slice() {
                let given = Type::new(a.dtype(), a.shape());
                let message =
                    format!("{location}: compiled function: argument leaf {i} is {given}, its signature has {t}");
                return Err(Error::Arguments(message));
            }
        }
        let inputs: Vec<&Array> = leaves.into_iter().chain(self.consts.iter()).collect();
        let outputs = self.exe.call_refs(&inputs)?;
        unflatten(&self.template, outputs)
            .ok_or_else(|| Error::Arguments("compiled function: the results changed shape".into()))
    }

    /// The signature it was compiled for: the argument leaves' types, in order.
    pub fn signature(&self) -> &[Type] {
        &self.types
    }
}

/// `jit(f)` is itself traceable: inside a trace it traces `f` inline (the outermost
/// `jit` compiles the whole module), so `grad(jit(f))` and `vmap(jit(f))` work.
impl<G, T> Traceable<T> for Jit<G>
where
    G: Traceable<T>,
{
    type Out = G::Out;

    fn trace_apply(&self, args: T) -> G::Out {
        self.f.trace_apply(args)
    }
}
