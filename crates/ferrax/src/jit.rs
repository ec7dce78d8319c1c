//! `jit`: compiles a closure (or a module) to native code through `ferrax_jit`.
//!
//! [`jit`] wraps a closure; [`Jit::call`] traces it once per argument signature (as
//! `grad` does), compiles the traced module, and on later calls with the same types
//! runs the cached executable. It composes with the transforms: `jit(|x| g.apply(x))`
//! of a `grad`/`vmap` object compiles the transformed program. [`jit_module`] compiles
//! a module as it is.

use crate::Tensor;
use crate::api::{Error, trace_flat};
use crate::tree::{Tree, unflatten};
use ferrax_ir::{Array, Module, Type};
use ferrax_jit::{Executable, JitOptions};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::panic::Location;
use std::rc::Rc;
use std::sync::Arc;

/// A closure compiled per argument signature; see [`jit`].
pub struct Jit<F> {
    f: F,
    options: JitOptions,
    /// Per signature: the executable, the captured constants and the result structure.
    cache: RefCell<HashMap<Vec<Type>, Entry>>,
    /// The signature of the last call and its entry: a repeated call with the same types
    /// (the common case) is recognised without building a key or hashing it.
    last: RefCell<Option<(Vec<Type>, Entry)>>,
    compiles: Cell<usize>,
}

/// A compiled signature: the executable, the captured constants and the result structure.
type Entry = (Arc<Executable>, Rc<Vec<Array>>, Rc<dyn Any>);

/// Whether `leaves` have exactly the types `types`.
fn same_types(leaves: &[&Array], types: &[Type]) -> bool {
    leaves.len() == types.len()
        && leaves.iter().zip(types).all(|(a, t)| a.dtype() == t.dtype && a.shape() == t.shape.as_slice())
}

/// `jit(f)`: `f` traced and compiled on its first call with each argument signature.
pub fn jit<F>(f: F) -> Jit<F> {
    jit_with(f, JitOptions::default())
}

/// [`jit`] with compile options (dumps, budget, fuel).
pub fn jit_with<F>(f: F, options: JitOptions) -> Jit<F> {
    Jit { f, options, cache: RefCell::default(), last: RefCell::default(), compiles: Cell::new(0) }
}

/// Compiles a module's entry for its declared input types (ahead of time, no data).
pub fn jit_module(module: &Module) -> Result<Executable, Error> {
    Ok(ferrax_jit::compile(module, &JitOptions::default())?)
}

impl<F> Jit<F> {
    /// Runs `f` on host arrays through its compiled form for their types.
    #[track_caller]
    pub fn call<A, Out>(&self, args: &A) -> Result<Out::With<Array>, Error>
    where
        A: Tree<Array> + ?Sized,
        Out: Tree<Tensor> + 'static,
        F: Fn(A::With<Tensor>) -> Out,
    {
        let location = Location::caller();
        let leaves: Vec<&Array> = args.leaves();
        let last = self.last.borrow().as_ref().filter(|(types, _)| same_types(&leaves, types)).map(|(_, e)| e.clone());
        let (exe, consts, shape) = match last {
            Some(entry) => entry,
            None => {
                let types: Vec<Type> = leaves.iter().map(|a| Type::new(a.dtype(), a.shape())).collect();
                let hit = self.cache.borrow().get(&types).cloned();
                let entry = match hit {
                    Some(hit) => hit,
                    None => {
                        let rebuild = |params| unflatten(args, params);
                        let (traced, out) = trace_flat(|a| (self.f)(a), rebuild, &types, location)?;
                        let exe = Arc::new(ferrax_jit::compile(&traced.module, &self.options)?);
                        self.compiles.set(self.compiles.get() + 1);
                        let entry: Entry = (exe, Rc::new(traced.consts), Rc::new(out));
                        self.cache.borrow_mut().insert(types.clone(), entry.clone());
                        entry
                    }
                };
                *self.last.borrow_mut() = Some((types, entry.clone()));
                entry
            }
        };
        // Borrowed, not cloned: a call copies neither the arguments nor the captured constants.
        let inputs: Vec<&Array> = leaves.into_iter().chain(consts.iter()).collect();
        let outputs = exe.call_refs(&inputs)?;
        let out =
            shape.downcast_ref::<Out>().ok_or_else(|| Error::Arguments("jit: the result structure changed".into()))?;
        unflatten(out, outputs)
            .ok_or_else(|| Error::Arguments("jit: the traced function's results changed shape".into()))
    }

    /// How many times `f` was traced and compiled (one per argument signature).
    pub fn compiles(&self) -> usize {
        self.compiles.get()
    }
}
