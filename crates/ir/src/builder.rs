//! `Builder`: constructs a Func equation by equation, inferring every result type
//! with the primitives' type rules, so that what it builds always verifies.

use crate::{Eqn, Error, Func, Module, Place, Prim, Type, Value};
use ferrax_array::Array;
use smallvec::SmallVec;
use std::sync::Arc;

/// Builds one Func. Structured primitives resolve their Funcs in the module given
/// to [`Builder::with_module`].
#[derive(Debug)]
pub struct Builder<'m> {
    func: Func,
    module: Option<&'m Module>,
    loc: Option<Arc<str>>,
}

impl Builder<'static> {
    /// A builder for a Func named `name` that refers to no other Func.
    pub fn new(name: impl Into<String>) -> Builder<'static> {
        Builder { func: Func::new(name), module: None, loc: None }
    }
}

impl<'m> Builder<'m> {
    /// A builder whose structured primitives refer to Funcs of `module`.
    pub fn with_module(name: impl Into<String>, module: &'m Module) -> Builder<'m> {
        Builder { func: Func::new(name), module: Some(module), loc: None }
    }

    /// Adds a parameter of type `ty`.
    pub fn param(&mut self, ty: Type) -> Value {
        let value = self.func.new_value(ty);
        self.func.params.push(value);
        value
    }

    /// The source location attached to the equations added from now on.
    pub fn set_loc(&mut self, loc: Option<Arc<str>>) {
        self.loc = loc;
    }

    /// The type of a value of this Func.
    pub fn ty(&self, value: Value) -> &Type {
        self.func.ty(value)
    }

    /// Adds `prim(inputs)`, returning its results; the type rule decides their types,
    /// and its error names this Func, the equation index and the primitive.
    pub fn eqn(&mut self, prim: impl Into<Prim>, inputs: &[Value]) -> Result<SmallVec<[Value; 2]>, Error> {
        let prim = prim.into();
        let place =
            || Place { func: self.func.name.clone(), eqn: Some(self.func.eqns.len()), prim: Some(prim.name().into()) };
        let mut input_types = Vec::with_capacity(inputs.len());
        for &input in inputs {
            let ty =
                self.func.value_type(input).ok_or_else(|| Error::verify(place(), format!("unknown value {input}")))?;
            input_types.push(ty.clone());
        }
        let empty = Module::new();
        let module = self.module.unwrap_or(&empty);
        let output_types = prim.infer(&input_types, module).map_err(|m| Error::verify(place(), m))?;
        let outputs: SmallVec<[Value; 2]> = output_types.into_iter().map(|ty| self.func.new_value(ty)).collect();
        self.func.eqns.push(Eqn { prim, inputs: inputs.into(), outputs: outputs.clone(), loc: self.loc.clone() });
        Ok(outputs)
    }

    /// Adds a single-result primitive and returns its result.
    pub fn eqn1(&mut self, prim: Prim, inputs: &[Value]) -> Result<Value, Error> {
        let name = prim.name();
        let outputs = self.eqn(prim, inputs)?;
        match outputs.as_slice() {
            [one] => Ok(*one),
            _ => Err(Error::verify(
                Place { func: self.func.name.clone(), eqn: Some(self.func.eqns.len() - 1), prim: Some(name.into()) },
                format!("expected one result, got {}", outputs.len()),
            )),
        }
    }

    /// Adds a constant holding `value` (its own shape).
    pub fn constant(&mut self, value: Array) -> Result<Value, Error> {
        let shape = ferrax_array::Shape::from_slice(value.shape());
        self.eqn1(Prim::constant(value, shape), &[])
    }

    /// Finishes the Func, returning `results` (its result types are theirs).
    pub fn finish(mut self, results: &[Value]) -> Func {
        self.func.result_types = results.iter().map(|&v| self.func.ty(v).clone()).collect();
        self.func.results = results.to_vec();
        self.func
    }
}

#[cfg(test)]
#[path = "tests/builder.rs"]
mod tests;
