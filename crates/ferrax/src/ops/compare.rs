//! Comparisons (`lt le gt ge eq_ ne_`, bool results) and [`where_`], the elementwise
//! choice between two operands (`select`).

use super::broadcast_at;
use super::lax;
use super::operand::{Operand, common_shape, compare_operands, describe_all, materialize, promote_operands};
use crate::Tensor;
use crate::tracer::fail;
use ferrax_ir::DType;
use ferrax_ir::prim::CompareOp;
use std::panic::Location;

macro_rules! compare_methods {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {
        impl Tensor {
            $(
                $(#[$doc])*
                ///
                /// The operands are promoted and broadcast; the result is bool.
                #[track_caller]
                pub fn $name(&self, other: impl Into<Operand>) -> Tensor {
                    compare_operands(CompareOp::$op, &self.into(), &other.into(), Location::caller())
                }
            )*
        }
    };
}

compare_methods! {
    /// `self < other` elementwise.
    lt => Lt,
    /// `self <= other` elementwise.
    le => Le,
    /// `self > other` elementwise.
    gt => Gt,
    /// `self >= other` elementwise.
    ge => Ge,
    /// `self == other` elementwise (NaN equals nothing).
    eq_ => Eq,
    /// `self != other` elementwise.
    ne_ => Ne,
}

/// `on_true` where `cond` holds, else `on_false` (NumPy's `where`), elementwise.
///
/// `cond` must be a bool tensor (it is not converted: a non-bool condition is an
/// error). The three operands broadcast together; `on_true` and `on_false` (tensors or
/// scalars) are promoted to a common dtype.
#[track_caller]
pub fn where_(cond: &Tensor, on_true: impl Into<Operand>, on_false: impl Into<Operand>) -> Tensor {
    let location = Location::caller();
    let (on_true, on_false) = (on_true.into(), on_false.into());
    let dtype = promote_operands(&[&on_true, &on_false]);
    let operands = [&Operand::from(cond), &on_true, &on_false];
    if cond.dtype() != DType::Bool {
        let message = format!("where_: {}: the condition must be bool, got {}", describe_all(&operands), cond.ty());
        return fail(location, message, cond.ty().with_dtype(dtype));
    }
    let shape = match common_shape("where_", &operands, dtype, location) {
        Ok(shape) => shape,
        Err(poisoned) => return poisoned,
    };
    let cond = broadcast_at(cond, &shape, location);
    let on_true = materialize(&on_true, dtype, &shape, location);
    let on_false = materialize(&on_false, dtype, &shape, location);
    lax::select(&cond, &on_true, &on_false, location)
}
