//! Constructors and the literal accessor of the structural primitives that rules,
//! passes and the frontend build or inspect most: they name the `ShapeOp` variant in one
//! place, so a change to an op's attributes does not reach every call site.

use super::ShapeOp;
use crate::Prim;
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

    /// `iota`: a `dtype` array of `shape` counting 0, 1, ... along `dim`.
    pub fn iota(dtype: DType, shape: impl Into<Shape>, dim: usize) -> Prim {
        Prim::Shape(ShapeOp::Iota { dtype, shape: shape.into(), dim })
    }

    /// The value and shape of a `constant`; `None` for any other primitive.
    pub fn literal(&self) -> Option<(&Array, &Shape)> {
        if let Prim::Shape(ShapeOp::Constant { value, shape }) = self { Some((value, shape)) } else { None }
    }
}
