//! `Emitter`: builds a Func equation by equation for the transforms and their rules.
//!
//! Unlike [`crate::Builder`], which is for users, an emitter does not hold on to a
//! module: the transforms add Funcs to the module they are building while rules emit
//! into the current Func, so structured primitives pass the module to
//! [`Emitter::eqn`] at each call. Errors are plain messages; the pass that drives the
//! rules adds the place. The shorthands (`add`, `mul`, `zeros`, ...) are what rules are
//! written with: a jvp rule is a few lines of them. Each family's shorthands live in
//! its own file (`prim/binary.rs` has `add` and `eq`, `prim/shape/build.rs` has
//! `broadcast_in_dim`, ...), so that a rule of one family builds another family's ops
//! without naming their variants; this file keeps the generic ones.

use crate::prim::{BinaryOp, CompareOp, ReduceOp, UnaryOp};
use crate::{Eqn, Func, Module, Prim, Type, Value};
use ferrax_array::{Array, DType, Data, Shape};
use smallvec::SmallVec;
use std::sync::Arc;

/// The most equations a transform may emit into one Func: passes
/// that grow a module stop with an error past it instead of exhausting memory.
pub const MAX_EQUATIONS: usize = 1_000_000;

/// Builds one Func for a transform.
#[derive(Debug)]
pub struct Emitter {
    func: Func,
    loc: Option<Arc<str>>,
    /// Values known to be a constant with every element equal to this number (made by
    /// [`Emitter::full`]), so that `mul` by one and similar no-ops emit nothing.
    splats: std::collections::HashMap<Value, f64>,
    /// The splat constants made so far, by type and bits, so that each is made once.
    made: std::collections::HashMap<(Type, u64), Value>,
}

impl Emitter {
    /// An emitter of a new Func named `name`.
    pub fn new(name: impl Into<String>) -> Emitter {
        Emitter { func: Func::new(name), loc: None, splats: Default::default(), made: Default::default() }
    }

    /// Adds a parameter of type `ty`.
    pub fn param(&mut self, ty: Type) -> Value {
        let value = self.func.new_value(ty);
        self.func.params.push(value);
        value
    }

    /// The type of a value of the Func being built.
    pub fn ty(&self, value: Value) -> &Type {
        self.func.ty(value)
    }

    /// The source location given to the equations emitted from now on (transforms
    /// keep the location of the equation a rule is for).
    pub fn set_loc(&mut self, loc: Option<Arc<str>>) {
        self.loc = loc;
    }

    /// The Func built so far.
    pub fn func(&self) -> &Func {
        &self.func
    }

    /// Sets a Func attribute.
    pub fn set_attr(&mut self, name: &str, value: crate::AttrValue) {
        self.func.set_attr(name, value);
    }

    /// Finishes the Func, returning `results`.
    pub fn finish(mut self, results: &[Value]) -> Func {
        self.func.result_types = results.iter().map(|&v| self.func.ty(v).clone()).collect();
        self.func.results = results.to_vec();
        self.func
    }

    /// Emits `prim(inputs)`; `module` resolves the Funcs a structured primitive names.
    pub fn eqn(
        &mut self,
        module: &Module,
        prim: impl Into<Prim>,
        inputs: &[Value],
    ) -> Result<SmallVec<[Value; 2]>, String> {
        let prim = prim.into();
        if self.func.eqns.len() >= MAX_EQUATIONS {
            return Err(format!("the transformed Func @{} grows past {MAX_EQUATIONS} equations", self.func.name));
        }
        let mut types = Vec::with_capacity(inputs.len());
        for &input in inputs {
            let ty = self.func.value_type(input).ok_or_else(|| format!("{}: unknown value {input}", prim.name()))?;
            types.push(ty.clone());
        }
        let out_types = prim.infer(&types, module).map_err(|m| format!("{}: {m}", prim.name()))?;
        let outputs: SmallVec<[Value; 2]> = out_types.into_iter().map(|ty| self.func.new_value(ty)).collect();
        let eqn = Eqn { prim, inputs: inputs.into(), outputs: outputs.clone(), loc: self.loc.clone() };
        self.func.eqns.push(eqn);
        Ok(outputs)
    }

    /// Emits a single-result primitive that refers to no Func.
    pub fn op(&mut self, prim: impl Into<Prim>, inputs: &[Value]) -> Result<Value, String> {
        let prim = prim.into();
        let name = prim.name();
        let outputs = self.eqn(&Module::new(), prim, inputs)?;
        match outputs.as_slice() {
            [one] => Ok(*one),
            _ => Err(format!("{name}: expected one result, got {}", outputs.len())),
        }
    }

    /// `op(x)`.
    pub fn unary(&mut self, op: UnaryOp, x: Value) -> Result<Value, String> {
        self.op(Prim::Unary(op), &[x])
    }

    /// `op(x, y)`.
    pub fn binary(&mut self, op: BinaryOp, x: Value, y: Value) -> Result<Value, String> {
        self.op(Prim::Binary(op), &[x, y])
    }

    /// `op(x, y)`, a bool result.
    pub fn compare(&mut self, op: CompareOp, x: Value, y: Value) -> Result<Value, String> {
        self.op(Prim::Compare(op), &[x, y])
    }

    /// The number every element of `x` equals, when `x` is a constant made by
    /// [`Emitter::full`] (the shorthands use it to emit nothing for `x * 1` and the
    /// like).
    pub(crate) fn splat(&self, x: Value) -> Option<f64> {
        self.splats.get(&x).copied()
    }

    /// A constant of type `ty` with every element `value` (rounded to the dtype; bool
    /// is `value != 0`); each distinct one is made once per Func.
    pub fn full(&mut self, ty: &Type, value: f64) -> Result<Value, String> {
        let (data, exact) = match ty.dtype {
            DType::F32 => (Data::F32(vec![value as f32]), f64::from(value as f32)),
            DType::BF16 | DType::F16 => {
                let data = Data::narrow_half(&[value as f32], ty.dtype).unwrap_or(Data::F32(vec![value as f32]));
                let exact = data.get_f64(0);
                (data, exact)
            }
            DType::F64 => (Data::F64(vec![value]), value),
            DType::I32 => (Data::I32(vec![value as i32]), f64::from(value as i32)),
            DType::Bool => (Data::Bool(vec![value != 0.0]), f64::from(u8::from(value != 0.0))),
        };
        let key = (ty.clone(), exact.to_bits());
        if let Some(&made) = self.made.get(&key) {
            return Ok(made);
        }
        let scalar = Array::new(Shape::new(), data).map_err(|e| e.to_string())?;
        let constant = self.op(Prim::constant(scalar, ty.shape.clone()), &[])?;
        self.splats.insert(constant, exact);
        self.made.insert(key, constant);
        Ok(constant)
    }

    /// Zeros of type `ty`.
    pub fn zeros(&mut self, ty: &Type) -> Result<Value, String> {
        self.full(ty, 0.0)
    }

    /// A constant of `x`'s type with every element `value`.
    pub fn full_like(&mut self, x: Value, value: f64) -> Result<Value, String> {
        let ty = self.ty(x).clone();
        self.full(&ty, value)
    }

    /// `reduce_sum[axes](x)` (no equation for no axes).
    pub fn reduce_sum(&mut self, x: Value, axes: &[usize]) -> Result<Value, String> {
        self.reduce(ReduceOp::Sum, x, axes)
    }

    /// `reduce_<op>[axes](x)` (no equation for no axes).
    pub fn reduce(&mut self, op: ReduceOp, x: Value, axes: &[usize]) -> Result<Value, String> {
        if axes.is_empty() { Ok(x) } else { self.op(Prim::reduce(op, axes), &[x]) }
    }

    /// `iota`: an i32 array of `shape` counting 0, 1, ... along `dim`.
    pub fn iota(&mut self, shape: &[usize], dim: usize) -> Result<Value, String> {
        self.op(Prim::iota(DType::I32, shape, dim), &[])
    }
}

impl Emitter {
    /// `x` with axis `from` moved to position `to` (the others keep their order); no
    /// equation when `from == to`.
    pub fn move_axis(&mut self, x: Value, from: usize, to: usize) -> Result<Value, String> {
        if from == to {
            return Ok(x);
        }
        let rank = self.ty(x).rank();
        let mut perm: Vec<usize> = (0..rank).filter(|&a| a != from).collect();
        perm.insert(to.min(perm.len()), from);
        self.transpose(x, &perm)
    }

    /// `x` batched at axis `to`: moved there if batched at `dim`, broadcast if unbatched.
    pub fn batch_at(&mut self, x: Value, dim: Option<usize>, size: usize, to: usize) -> Result<Value, String> {
        match dim {
            Some(d) => self.move_axis(x, d, to),
            None => self.add_batch_axis(x, size, to),
        }
    }
}

/// Adds two optional (symbolically zero when `None`) tangents or cotangents.
pub fn add_optional(em: &mut Emitter, a: Option<Value>, b: Option<Value>) -> Result<Option<Value>, String> {
    match (a, b) {
        (Some(a), Some(b)) => em.add(a, b).map(Some),
        (one, None) | (None, one) => Ok(one),
    }
}
