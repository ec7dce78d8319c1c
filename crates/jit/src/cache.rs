//! A bounded (least-recently-used) cache of executables keyed by (module text, input
//! types), reporting hits, misses and why each miss happened.

use crate::api::{Executable, JitOptions, compile};
use ferrax_ir::{Error, Module, Type};
use std::sync::{Arc, Mutex};

/// Why a lookup missed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Miss {
    /// No cached module has this entry name.
    NewModule,
    /// A cached module of the same entry differs in one argument's type.
    ArgType {
        /// The argument (from 0).
        index: usize,
        /// Its type in the most recent cached version.
        was: Type,
        /// Its type now.
        now: Type,
    },
    /// A cached module of the same entry takes a different number of arguments.
    Arity {
        /// Arguments in the most recent cached version.
        was: usize,
        /// Arguments now.
        now: usize,
    },
    /// Same entry and input types, different body.
    ModuleChanged,
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Miss::NewModule => write!(f, "new module"),
            Miss::ArgType { index, was, now } => write!(f, "argument {index} changed from {was} to {now}"),
            Miss::Arity { was, now } => write!(f, "the number of arguments changed from {was} to {now}"),
            Miss::ModuleChanged => write!(f, "the module changed (same input types)"),
        }
    }
}

/// Counters of a [`JitCache`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that found an executable.
    pub hits: u64,
    /// Lookups that compiled, with the reason of each (oldest first).
    pub misses: Vec<Miss>,
    /// Executables dropped to stay within the capacity.
    pub evictions: u64,
}

struct Entry {
    entry: String,
    text: String,
    types: Vec<Type>,
    exe: Arc<Executable>,
}

struct Inner {
    /// Least recently used first.
    entries: Vec<Entry>,
    stats: CacheStats,
}

/// A bounded cache of compiled modules; `Send + Sync`.
pub struct JitCache {
    capacity: usize,
    options: JitOptions,
    inner: Mutex<Inner>,
}

impl JitCache {
    /// A cache of at most `capacity` executables (at least 1), compiled with `options`.
    pub fn new(capacity: usize, options: JitOptions) -> JitCache {
        JitCache {
            capacity: capacity.max(1),
            options,
            inner: Mutex::new(Inner { entries: Vec::new(), stats: CacheStats::default() }),
        }
    }

    /// The executable of `module` (whose entry's types are the input types), compiled
    /// on a miss.
    pub fn get(&self, module: &Module) -> Result<Arc<Executable>, Error> {
        let entry = module.entry().ok_or_else(|| Error::eval(Default::default(), "jit: the module has no Funcs"))?;
        let types = entry.param_types();
        let text = ferrax_ir::print(module);
        let miss = {
            let mut inner = self.lock();
            if let Some(i) = inner.entries.iter().position(|e| e.text == text && e.types == types) {
                let hit = inner.entries.remove(i);
                let exe = hit.exe.clone();
                inner.entries.push(hit);
                inner.stats.hits += 1;
                return Ok(exe);
            }
            match inner.entries.iter().rev().find(|e| e.entry == entry.name) {
                None => Miss::NewModule,
                Some(e) if e.types.len() != types.len() => Miss::Arity { was: e.types.len(), now: types.len() },
                Some(e) => match e.types.iter().zip(&types).position(|(a, b)| a != b) {
                    Some(index) => Miss::ArgType { index, was: e.types[index].clone(), now: types[index].clone() },
                    None => Miss::ModuleChanged,
                },
            }
        };
        let exe = Arc::new(compile(module, &self.options)?);
        let mut inner = self.lock();
        inner.stats.misses.push(miss);
        // Another thread may have compiled the same module meanwhile: keep one copy.
        if let Some(i) = inner.entries.iter().position(|e| e.text == text && e.types == types) {
            let same = inner.entries.remove(i);
            let exe = same.exe.clone();
            inner.entries.push(same);
            return Ok(exe);
        }
        if inner.entries.len() >= self.capacity {
            inner.entries.remove(0);
            inner.stats.evictions += 1;
        }
        inner.entries.push(Entry { entry: entry.name.clone(), text, types, exe: exe.clone() });
        Ok(exe)
    }

    /// Hits, misses (with reasons) and evictions so far.
    pub fn stats(&self) -> CacheStats {
        self.lock().stats.clone()
    }

    /// Number of cached executables.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
