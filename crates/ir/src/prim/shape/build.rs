//! Constructors and the literal accessor of the structural primitives that rules,
//! passes and the frontend build or inspect most: they name the `ShapeOp` variant in one
//! place, so a change to an op's attributes does not reach every call site.

use super::ShapeOp;
use crate::{Emitter, Prim, Value};
use ferrax_array::{Array, DType, Shape};

impl Prim {
    /// `constant`, the one literal primitive: `value` (rank 0: every element) of `shape`.
    pub fn constant(value: Array, shape: impl Into<Shape>) -> Prim {
        Prim::Shape(ShapeOp::Constant { value, shape: shape.into() })
    }

    /// `reshape` to `shape` (same element count, row-major order).
    pub fn reshape(shape: impl Into<Shape>) -> Prim {
        Prim::Shape(ShapeOp::Reshape { shape: shape.into() })
    }

    /// `transpose`: axis `i` of the result is axis `perm[i]` of the operand.
    pub fn transpose_axes(perm: Vec<usize>) -> Prim {
        Prim::Shape(ShapeOp::Transpose { perm })
    }

    /// `broadcast_in_dim`: operand axis `i` becomes result axis `dims[i]` of `shape`.
    pub fn broadcast_in_dim(shape: impl Into<Shape>, dims: Vec<usize>) -> Prim {
        Prim::Shape(ShapeOp::BroadcastInDim { shape: shape.into(), dims })
    }

    /// `slice`: the strided box `[start, limit)` with steps `strides`.
    pub fn slice(start: Vec<usize>, limit: Vec<usize>, strides: Vec<usize>) -> Prim {
        Prim::Shape(ShapeOp::Slice { start, limit, strides })
    }

    /// `concatenate` along `axis`.
    pub fn concatenate(axis: usize) -> Prim {
        Prim::Shape(ShapeOp::Concatenate { axis })
    }

    /// `rev` of `axes`.
    pub fn rev(axes: Vec<usize>) -> Prim {
        Prim::Shape(ShapeOp::Rev { axes })
    }

    /// `pad` with edges `low`/`high` (negative crops) and `interior` padding.
    pub fn pad(low: Vec<i64>, high: Vec<i64>, interior: Vec<usize>) -> Prim {
        Prim::Shape(ShapeOp::Pad { low, high, interior })
    }

    /// `iota`: a `dtype` array of `shape` counting 0, 1, ... along `dim`.
    pub fn iota(dtype: DType, shape: impl Into<Shape>, dim: usize) -> Prim {
        Prim::Shape(ShapeOp::Iota { dtype, shape: shape.into(), dim })
    }

    /// The value and shape of a `constant`; `None` for any other primitive.
    pub fn literal(&self) -> Option<(&Array, &Shape)> {
        if let Prim::Shape(ShapeOp::Constant { value, shape }) = self { Some((value, shape)) } else { None }
    }
}

/// The shorthands for this family's ops that rules of every family build with.
impl Emitter {
    /// `broadcast_in_dim[shape, dims](x)` (no equation when it changes nothing).
    pub fn broadcast_in_dim(&mut self, x: Value, shape: &[usize], dims: &[usize]) -> Result<Value, String> {
        let identity = self.ty(x).shape.as_slice() == shape && dims.iter().enumerate().all(|(i, &d)| i == d);
        if identity {
            return Ok(x);
        }
        self.op(Prim::broadcast_in_dim(shape, dims.to_vec()), &[x])
    }

    /// `reshape[shape](x)` (no equation when the shape is already `shape`).
    pub fn reshape(&mut self, x: Value, shape: &[usize]) -> Result<Value, String> {
        if self.ty(x).shape.as_slice() == shape { Ok(x) } else { self.op(Prim::reshape(shape), &[x]) }
    }

    /// `transpose[perm](x)`.
    pub fn transpose(&mut self, x: Value, perm: &[usize]) -> Result<Value, String> {
        self.op(Prim::transpose_axes(perm.to_vec()), &[x])
    }

    /// `x` with a new axis of `size` inserted at `at`, every slice a copy of `x`.
    pub fn add_batch_axis(&mut self, x: Value, size: usize, at: usize) -> Result<Value, String> {
        let ty = self.ty(x).clone();
        let mut shape = ty.shape.clone();
        shape.insert(at, size);
        let dims: Vec<usize> = (0..ty.rank()).map(|a| if a < at { a } else { a + 1 }).collect();
        self.op(Prim::broadcast_in_dim(shape, dims), &[x])
    }

    /// The box `[start, limit)` of `x`, with unit steps.
    pub fn slice(&mut self, x: Value, start: Vec<usize>, limit: Vec<usize>) -> Result<Value, String> {
        let strides = vec![1; start.len()];
        self.op(Prim::slice(start, limit, strides), &[x])
    }

    /// `xs` joined along `axis` (no equation for one operand).
    pub fn concatenate(&mut self, xs: &[Value], axis: usize) -> Result<Value, String> {
        if let [one] = xs { Ok(*one) } else { self.op(Prim::concatenate(axis), xs) }
    }

    /// `x` reversed along `axes`.
    pub fn rev(&mut self, x: Value, axes: Vec<usize>) -> Result<Value, String> {
        self.op(Prim::rev(axes), &[x])
    }

    /// `x` padded with the scalar `value`: edges `low`/`high`, `interior` between elements.
    pub fn pad(
        &mut self,
        x: Value,
        value: Value,
        low: Vec<i64>,
        high: Vec<i64>,
        interior: Vec<usize>,
    ) -> Result<Value, String> {
        self.op(Prim::pad(low, high, interior), &[x, value])
    }
}
