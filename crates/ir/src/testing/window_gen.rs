//! The generator's windowed reductions: a `reduce_window` of a random value with small
//! windows, strides, padding and dilations, and sometimes the two pooling selections on
//! the same windows (kept apart from `gen.rs`, which holds every other family).

use super::Gen;
use crate::prim::{Select, ShapeOp, Window, WindowOp, WindowReduce};
use crate::{Func, Prim, Value};
use ferrax_array::{Array, DType, Shape};

impl Gen {
    /// A `reduce_window` of `x` from its op's identity (small windows, strides 1-2,
    /// padding 0-1, dilations 1-2), and sometimes a selection on the same windows.
    pub(super) fn window_eqn(&mut self, func: &mut Func, x: Value) -> Option<()> {
        let ty = func.ty(x).clone();
        let rank = ty.rank();
        let mut pick = |hi: usize| -> Vec<usize> { (0..rank).map(|_| 1 + self.rng.below(hi)).collect() };
        let (dimensions, strides, base_dilation, window_dilation) = (pick(3), pick(2), pick(2), pick(2));
        let padding = (0..rank).map(|_| [self.rng.below(2), self.rng.below(2)]).collect();
        let window = Window { dimensions, strides, padding, base_dilation, window_dilation };
        let op = self.rng.pick(&[WindowReduce::Sum, WindowReduce::Max, WindowReduce::Min]);
        let identity = match op {
            WindowReduce::Sum => 0.0,
            WindowReduce::Max => f64::NEG_INFINITY,
            WindowReduce::Min => f64::INFINITY,
        };
        let value = match ty.dtype {
            DType::I32 => Array::scalar_i32(identity as i32),
            DType::F32 => Array::scalar_f32(identity as f32),
            DType::F64 => Array::scalar_f64(identity),
            DType::Bool | DType::BF16 | DType::F16 => return None,
        };
        let init = self.emit(func, Prim::Shape(ShapeOp::Constant { value, shape: Shape::new() }), &[])?[0];
        let pooled =
            self.emit(func, Prim::Window(WindowOp::ReduceWindow { op, window: window.clone() }), &[x, init])?;
        if ty.dtype.is_float() && self.rng.chance(50) {
            let select = self.rng.pick(&[Select::Max, Select::Min]);
            let y = self.any_value(func, |t| *t == ty)?;
            let gathered = self.emit(
                func,
                Prim::Window(WindowOp::SelectAndGatherAdd { select, window: window.clone() }),
                &[y, x],
            )?;
            let source = if self.rng.chance(50) { gathered[0] } else { pooled[0] };
            self.emit(func, Prim::Window(WindowOp::SelectAndScatterAdd { select, window }), &[source, x])?;
        }
        Some(())
    }
}
