//! Funcs and Modules: the containers of the SSA IR.
//!
//! A [`Func`] owns a table of value types indexed by [`Value`] ids, its parameters,
//! a straight-line list of [`Eqn`]s and its results. A [`Module`] is an ordered map
//! of Funcs by name; the first is the entry, and structured primitives refer to the
//! others by name, so every printed module is flat.

use crate::{AttrValue, Prim, Type};
use indexmap::IndexMap;
use smallvec::SmallVec;
use std::fmt;
use std::sync::Arc;

/// An SSA value of one Func: an index into the Func's type table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

impl Value {
    /// The index into [`Func::value_types`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// One equation: `outputs = prim(inputs)`, with an optional source location.
#[derive(Clone, Debug, PartialEq)]
pub struct Eqn {
    /// The primitive and its static parameters.
    pub prim: Prim,
    /// Operands, in order.
    pub inputs: SmallVec<[Value; 4]>,
    /// Results, in order (most primitives have one).
    pub outputs: SmallVec<[Value; 2]>,
    /// The user's source location (`src/model.rs:42:17`), kept through transforms.
    pub loc: Option<Arc<str>>,
}

/// A function: typed parameters, equations, results.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    /// Name, without the `@`.
    pub name: String,
    /// Func attributes, in written order (`kind="fusion"`, `residuals=K`).
    pub attrs: Vec<(String, AttrValue)>,
    /// The type of every value, indexed by [`Value::index`].
    pub value_types: Vec<Type>,
    /// Parameter values.
    pub params: Vec<Value>,
    /// The declared result types (the signature).
    pub result_types: Vec<Type>,
    /// Equations in execution order.
    pub eqns: Vec<Eqn>,
    /// Returned values.
    pub results: Vec<Value>,
}

/// When a value of a Func is last read (see [`Func::last_uses`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastUse {
    /// Nothing reads it.
    Unused,
    /// Equation `i` is the last to read it.
    Eqn(usize),
    /// It is a result of the Func (read after the last equation).
    Returned,
}

impl LastUse {
    /// The step of the last read: the equation index, `n_eqns` for a result, `None` when
    /// nothing reads it.
    pub fn step(self, n_eqns: usize) -> Option<usize> {
        match self {
            LastUse::Unused => None,
            LastUse::Eqn(i) => Some(i),
            LastUse::Returned => Some(n_eqns),
        }
    }
}

impl Func {
    /// The liveness of every value of the Func, indexed by [`Value::index`]: the last
    /// equation that reads it, or its return. Every pass that frees or reuses buffers
    /// (the interpreter, the cost model's peak, checkpointing, the JIT's planner) reads
    /// this. Inputs outside the type table are ignored (verification reports them).
    pub fn last_uses(&self) -> Vec<LastUse> {
        let mut last = vec![LastUse::Unused; self.value_types.len()];
        for (i, eqn) in self.eqns.iter().enumerate() {
            for v in &eqn.inputs {
                if let Some(slot) = last.get_mut(v.index()) {
                    *slot = LastUse::Eqn(i);
                }
            }
        }
        for v in &self.results {
            if let Some(slot) = last.get_mut(v.index()) {
                *slot = LastUse::Returned;
            }
        }
        last
    }

    /// A copy of `eqn`, an equation of `src`, for this Func: its inputs read through
    /// `map` (every one must be there), its outputs new values of this Func of the same
    /// types, which `map` then records. How passes move equations between Funcs (fusion's
    /// kernels and merges, loop-invariant hoisting).
    pub fn copy_eqn(&mut self, src: &Func, eqn: &Eqn, map: &mut std::collections::HashMap<Value, Value>) -> Eqn {
        let mut copy = eqn.clone();
        copy.inputs = eqn.inputs.iter().map(|v| map[v]).collect();
        copy.outputs = eqn
            .outputs
            .iter()
            .map(|&o| {
                let v = self.new_value(src.ty(o).clone());
                map.insert(o, v);
                v
            })
            .collect();
        copy
    }

    /// An empty Func with no parameters, equations or results.
    pub fn new(name: impl Into<String>) -> Func {
        Func {
            name: name.into(),
            attrs: Vec::new(),
            value_types: Vec::new(),
            params: Vec::new(),
            result_types: Vec::new(),
            eqns: Vec::new(),
            results: Vec::new(),
        }
    }

    /// Adds a fresh value of type `ty` to the type table (defining it is up to the caller).
    pub fn new_value(&mut self, ty: Type) -> Value {
        self.value_types.push(ty);
        Value((self.value_types.len() - 1) as u32)
    }

    /// The type of `value`, if it is in the table.
    pub fn value_type(&self, value: Value) -> Option<&Type> {
        self.value_types.get(value.index())
    }

    /// The type of `value`. Only for values known to be in the table (a verified Func).
    pub fn ty(&self, value: Value) -> &Type {
        &self.value_types[value.index()]
    }

    /// Parameter types, in order (values missing from the table are skipped).
    pub fn param_types(&self) -> Vec<Type> {
        self.params.iter().filter_map(|&p| self.value_type(p).cloned()).collect()
    }

    /// A Func attribute by name.
    pub fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Sets (or replaces) a Func attribute.
    pub fn set_attr(&mut self, name: &str, value: AttrValue) {
        match self.attrs.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.attrs.push((name.to_string(), value)),
        }
    }

    /// The axis names the Func declares (`axis_names=["i", ...]`): the named axes its
    /// collectives (and its callees') refer to without binding them.
    pub fn axis_names(&self) -> Vec<&str> {
        match self.attr("axis_names") {
            Some(AttrValue::List(names)) => names
                .iter()
                .filter_map(|n| match n {
                    AttrValue::Str(s) => Some(s.as_str()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Declares exactly `names` as the Func's axis names (no attribute for none).
    pub fn set_axis_names(&mut self, names: &[&str]) {
        self.attrs.retain(|(n, _)| n != "axis_names");
        if !names.is_empty() {
            let list = names.iter().map(|n| AttrValue::Str(n.to_string())).collect();
            self.attrs.push(("axis_names".to_string(), AttrValue::List(list)));
        }
    }
}

/// A list of Funcs by name; the first is the entry.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    /// The Funcs, in order; the first is the entry.
    pub funcs: IndexMap<String, Func>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        Module::default()
    }

    /// Adds a Func at the end; returns the Func it replaced if the name was taken.
    pub fn push(&mut self, func: Func) -> Option<Func> {
        self.funcs.insert(func.name.clone(), func)
    }

    /// The entry Func (the first), if any.
    pub fn entry(&self) -> Option<&Func> {
        self.funcs.get_index(0).map(|(_, f)| f)
    }

    /// A Func by name.
    pub fn func(&self, name: &str) -> Option<&Func> {
        self.funcs.get(name)
    }

    /// The parameter and result types of a Func, if it exists.
    pub fn signature(&self, name: &str) -> Option<(Vec<Type>, &[Type])> {
        self.func(name).map(|f| (f.param_types(), f.result_types.as_slice()))
    }
}
