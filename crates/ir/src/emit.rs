//! `Emitter`: builds a Func equation by equation for the transforms and their rules.
//!
//! Unlike [`crate::Builder`], which is for users, an emitter does not hold on to a
//! module: the transforms add Funcs to the module they are building while rules emit
//! into the current Func, so structured primitives pass the module to
//! [`Emitter::eqn`] at each call. Errors are plain messages; the pass that drives the
//! rules adds the place. The shorthands (`add`, `mul`, `zeros`, ...) are what rules are
//! written with: a jvp rule is a few lines of them.

use crate::prim::{BinaryOp, CompareOp, ReduceOp, UnaryOp};
use crate::prim::{ShapeOp, TernaryOp};
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

    /// `x + y`.
    pub fn add(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.binary(BinaryOp::Add, x, y)
    }

    /// `x - y`.
    pub fn sub(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.binary(BinaryOp::Sub, x, y)
    }

    /// `x * y` (no equation when one side is a constant one of the other's type).
    pub fn mul(&mut self, x: Value, y: Value) -> Result<Value, String> {
        if self.ty(x) == self.ty(y) && self.ty(x).dtype.is_float() {
            if self.splats.get(&y) == Some(&1.0) {
                return Ok(x);
            }
            if self.splats.get(&x) == Some(&1.0) {
                return Ok(y);
            }
        }
        self.binary(BinaryOp::Mul, x, y)
    }

    /// `x / y`.
    pub fn div(&mut self, x: Value, y: Value) -> Result<Value, String> {
        self.binary(BinaryOp::Div, x, y)
    }

    /// `-x`.
    pub fn neg(&mut self, x: Value) -> Result<Value, String> {
        self.unary(UnaryOp::Neg, x)
    }

    /// `op(x, y)`, a bool result.
    pub fn compare(&mut self, op: CompareOp, x: Value, y: Value) -> Result<Value, String> {
        self.op(Prim::Compare(op), &[x, y])
    }

    /// `select(pred, on_true, on_false)`.
    pub fn select(&mut self, pred: Value, on_true: Value, on_false: Value) -> Result<Value, String> {
        self.op(Prim::Ternary(TernaryOp::Select), &[pred, on_true, on_false])
    }

    /// `x` converted to `dtype` (no equation when it already is).
    pub fn convert(&mut self, x: Value, dtype: DType) -> Result<Value, String> {
        if self.ty(x).dtype == dtype { Ok(x) } else { self.op(Prim::Unary(UnaryOp::Convert { dtype }), &[x]) }
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

    /// `broadcast_in_dim[shape, dims](x)` (no equation when it changes nothing).
    pub fn broadcast_in_dim(&mut self, x: Value, shape: &[usize], dims: &[usize]) -> Result<Value, String> {
        let identity = self.ty(x).shape.as_slice() == shape && dims.iter().enumerate().all(|(i, &d)| i == d);
        if identity {
            return Ok(x);
        }
        self.op(Prim::Shape(ShapeOp::BroadcastInDim { shape: shape.into(), dims: dims.to_vec() }), &[x])
    }

    /// `reshape[shape](x)` (no equation when the shape is already `shape`).
    pub fn reshape(&mut self, x: Value, shape: &[usize]) -> Result<Value, String> {
        if self.ty(x).shape.as_slice() == shape { Ok(x) } else { self.op(Prim::reshape(shape), &[x]) }
    }

    /// `transpose[perm](x)`.
    pub fn transpose(&mut self, x: Value, perm: &[usize]) -> Result<Value, String> {
        self.op(Prim::transpose_axes(perm.to_vec()), &[x])
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

    /// `x` with a new axis of `size` inserted at `at`, every slice a copy of `x`.
    pub fn add_batch_axis(&mut self, x: Value, size: usize, at: usize) -> Result<Value, String> {
        let ty = self.ty(x).clone();
        let mut shape = ty.shape.clone();
        shape.insert(at, size);
        let dims: Vec<usize> = (0..ty.rank()).map(|a| if a < at { a } else { a + 1 }).collect();
        self.op(Prim::Shape(ShapeOp::BroadcastInDim { shape, dims }), &[x])
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
