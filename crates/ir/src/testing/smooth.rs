//! The smooth equation builders of the generator ([`GenConfig::smooth`]): every
//! differentiable primitive, with its operands guarded into the domain where the
//! primitive is smooth, so that generated programs can be checked against finite
//! differences.
//!
//! - Poles and branch points are kept away by construction: `log`, `sqrt`, `rsqrt`,
//!   negative integer powers and the base of `pow` take a positive operand (`1 + x²`,
//!   `exp(tanh x)` or `0.5 + logistic x`), `div` divides by one, `log1p` takes `x²`,
//!   `tan` takes `0.5·tanh x` (inside (-π/2, π/2) with room to spare) and `atan2` has a
//!   positive first or second operand (never the origin, never the branch cut).
//! - Kinks and steps (`max`, `min`, `clamp`, `select` on a comparison,
//!   `reduce_max`/`reduce_min`, a `cond` whose predicate is computed) are allowed: the
//!   set of points where they switch has measure zero, and the checks trust finite
//!   differences only where two step sizes agree, which rejects a step across a
//!   switch. The two operands of `max`/`min` are distinct values.
//! - `custom_jvp` and `custom_vjp` get true rules: the function is a chain of one or
//!   two elementary functions whose derivatives are written out here, the jvp rule
//!   returns `g'(x)·t`, the vjp's forward pass saves `g'(x)` and its backward pass
//!   multiplies the cotangent by it. A wrong rule is then a wrong derivative.
//!
//! [`GenConfig::smooth`]: super::GenConfig::smooth

use super::Gen;
use crate::prim::{BinaryOp, CompareOp, ReduceOp, UnaryOp};
use crate::prim::{ControlOp, ReductionOp, ShapeOp, TernaryOp};
use crate::{Func, Prim, Type, Value};
use ferrax_array::{Array, DType, Shape};

/// Elementary functions with hand-written derivatives, the bodies of custom rules.
#[derive(Clone, Copy, Debug)]
enum Elementary {
    Sin,
    Tanh,
    Exp,
    Square,
    Logistic,
    /// `log1p(x²)`.
    LogOnePlusSquare,
}

const ELEMENTARY: [Elementary; 6] = [
    Elementary::Sin,
    Elementary::Tanh,
    Elementary::Exp,
    Elementary::Square,
    Elementary::Logistic,
    Elementary::LogOnePlusSquare,
];

impl Gen {
    /// A 1-D convolution of a float value with another of its type, seen as `[1, n, 1]`
    /// (`NWC`) and `[n, 1, 1]` (`WIO`), with random strides, padding (negative too) and
    /// dilations; bilinear, so smooth. `None` when the type rule rejects the draw.
    pub(super) fn conv_eqn(&mut self, func: &mut Func) -> Option<()> {
        // The kernel is as long as the input, so the work is n²: small values only (a
        // long one made the reference loop run for minutes).
        let x = self.any_value(func, |t| t.dtype.is_float() && t.element_count().is_some_and(|n| n <= 64))?;
        let ty = func.ty(x).clone();
        let y = self.any_value(func, |t| *t == ty)?;
        let n = ty.element_count()?;
        let lhs = self.emit(func, Prim::reshape(&[1, n, 1][..]), &[x])?[0];
        let rhs = self.emit(func, Prim::reshape(&[n, 1, 1][..]), &[y])?[0];
        let ld = 1 + self.rng.below(2);
        let conv = crate::prim::Conv {
            window_strides: vec![1 + self.rng.below(2)],
            padding: vec![(self.rng.below(4) as i64 - 1, self.rng.below(4) as i64 - 1)],
            lhs_dilation: vec![ld],
            rhs_dilation: vec![if ld == 1 { 1 } else { 1 + self.rng.below(2) }],
            dimension_numbers: ["NWC", "WIO", "NWC"].map(str::to_string),
            feature_group_count: 1,
            batch_group_count: 1,
            preferred: None,
        };
        self.emit(func, Prim::Conv(crate::prim::ConvOp::ConvGeneralDilated(Box::new(conv))), &[lhs, rhs]).map(|_| ())
    }

    /// A smooth elementwise equation on the f64 value `x`.
    pub(super) fn smooth_elementwise_eqn(&mut self, func: &mut Func, x: Value) -> Option<()> {
        let ty = func.ty(x).clone();
        match self.rng.below(14) {
            0 | 1 => {
                let op = self.rng.pick(&[
                    UnaryOp::Neg,
                    UnaryOp::Sin,
                    UnaryOp::Cos,
                    UnaryOp::Tanh,
                    UnaryOp::Logistic,
                    UnaryOp::Exp,
                    UnaryOp::Erf,
                    UnaryOp::Expm1,
                ]);
                self.unary(func, op, x)?;
            }
            2 => self.smooth_positive_unary(func, x)?,
            3 => self.smooth_bounded_unary(func, x)?,
            4 => {
                let y = self.rng.range(0, 3) as i32;
                self.emit(func, Prim::Unary(UnaryOp::IntegerPow { y }), &[x])?;
            }
            5 => {
                let name = self.fresh_name("tag");
                self.emit(func, Prim::Name { name }, &[x])?;
            }
            6 | 7 => {
                let y = self.any_value(func, |t| *t == ty)?;
                let op = self.rng.pick(&[BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul]);
                self.binary(func, op, x, y)?;
            }
            8 => {
                // div by a positive denominator; pow of a positive base.
                let y = self.any_value(func, |t| *t == ty)?;
                if self.rng.chance(50) {
                    let d = self.positive(func, y)?;
                    self.binary(func, BinaryOp::Div, x, d)?;
                } else {
                    let base = self.positive(func, x)?;
                    self.binary(func, BinaryOp::Pow, base, y)?;
                }
            }
            9 => {
                // atan2 away from the origin and off its branch cut (x = 0, y < 0).
                let y = self.any_value(func, |t| *t == ty)?;
                if self.rng.chance(50) {
                    let p = self.positive(func, x)?;
                    self.binary(func, BinaryOp::Atan2, p, y)?;
                } else {
                    let p = self.positive(func, y)?;
                    self.binary(func, BinaryOp::Atan2, x, p)?;
                }
            }
            10 | 11 => self.smooth_select_eqn(func)?,
            _ => self.custom_rule_eqn(func, x)?,
        }
        Some(())
    }

    /// A unary op with a pole or branch point at or below zero (`log`, `sqrt`, `rsqrt`,
    /// a negative integer power) on a positive function of `x`.
    fn smooth_positive_unary(&mut self, func: &mut Func, x: Value) -> Option<()> {
        let p = self.positive(func, x)?;
        match self.rng.below(4) {
            0 => self.unary(func, UnaryOp::Log, p)?,
            1 => self.unary(func, UnaryOp::Sqrt, p)?,
            2 => self.unary(func, UnaryOp::Rsqrt, p)?,
            _ => {
                let y = -self.rng.range(1, 2) as i32;
                self.emit(func, Prim::Unary(UnaryOp::IntegerPow { y }), &[p])?[0]
            }
        };
        Some(())
    }

    /// `log1p` of the square of `x` (never at -1), or `tan` of `0.5·tanh x` (never at
    /// ±π/2).
    fn smooth_bounded_unary(&mut self, func: &mut Func, x: Value) -> Option<()> {
        if self.rng.chance(50) {
            let sq = self.emit(func, Prim::Unary(UnaryOp::IntegerPow { y: 2 }), &[x])?[0];
            self.unary(func, UnaryOp::Log1p, sq)?;
        } else {
            let ty = func.ty(x).clone();
            let t = self.unary(func, UnaryOp::Tanh, x)?;
            let half = self.splat(func, &ty, 0.5)?;
            let arg = self.binary(func, BinaryOp::Mul, half, t)?;
            self.unary(func, UnaryOp::Tan, arg)?;
        }
        Some(())
    }

    /// `max`, `min`, `clamp`, or `select` on a comparison: piecewise smooth.
    pub(super) fn smooth_select_eqn(&mut self, func: &mut Func) -> Option<()> {
        let x = self.any_value(func, |_| true)?;
        let ty = func.ty(x).clone();
        let y = self.any_value(func, |t| *t == ty).filter(|&y| y != x)?;
        match self.rng.below(4) {
            0 => self.binary(func, BinaryOp::Max, x, y).map(|_| ()),
            1 => self.binary(func, BinaryOp::Min, x, y).map(|_| ()),
            2 => {
                let low = -0.5 - self.rng.below(2) as f64;
                let lo = self.splat(func, &ty, low)?;
                let hi = self.any_value(func, |t| *t == ty)?;
                let hi = self.positive(func, hi)?;
                self.emit(func, Prim::Ternary(TernaryOp::Clamp), &[lo, x, hi]).map(|_| ())
            }
            _ => {
                let a = self.any_value(func, |t| *t == ty)?;
                let op = self.rng.pick(&[CompareOp::Lt, CompareOp::Le, CompareOp::Gt, CompareOp::Ge]);
                let pred = self.emit(func, Prim::Compare(op), &[a, y])?[0];
                self.emit(func, Prim::Ternary(TernaryOp::Select), &[pred, x, y]).map(|_| ())
            }
        }
    }

    /// A smooth reduction: sum, product, max, min, or a running sum, max or min.
    pub(super) fn smooth_reduce_eqn(&mut self, func: &mut Func) -> Option<()> {
        let x = self.any_value(func, |_| true)?;
        let rank = func.ty(x).rank();
        let prim = match self.rng.below(5) {
            3 if rank > 0 => {
                Prim::Reduction(ReductionOp::Cumsum { axis: self.rng.below(rank), reverse: self.rng.chance(50) })
            }
            4 if rank > 0 => {
                let (axis, reverse) = (self.rng.below(rank), self.rng.chance(50));
                let running = if self.rng.chance(50) {
                    ReductionOp::Cummax { axis, reverse }
                } else {
                    ReductionOp::Cummin { axis, reverse }
                };
                Prim::Reduction(running)
            }
            k => Prim::Reduction(ReductionOp::Reduce {
                op: if k == 0 {
                    self.rng.pick(&[ReduceOp::Max, ReduceOp::Min])
                } else {
                    self.rng.pick(&[ReduceOp::Sum, ReduceOp::Prod])
                },
                axes: (0..rank).filter(|_| self.rng.chance(50)).collect(),
            }),
        };
        self.emit(func, prim, &[x]).map(|_| ())
    }

    /// The selector of a smooth `cond` with `n` branches: a constant index, or (when a
    /// scalar f64 value exists) one computed from it, so that the branch taken depends
    /// on the parameters (`lt(s, c)` for two branches, `convert` to i32 of `s + c`
    /// otherwise). Returns the selector and how many branches it can pick.
    pub(super) fn smooth_cond_selector(&mut self, func: &mut Func, n: usize) -> Option<(Value, usize)> {
        let scalar = self.any_value(func, |t| t.rank() == 0);
        match scalar {
            Some(s) if self.rng.chance(60) => {
                let scalar_ty = Type::scalar(DType::F64);
                let threshold = self.rng.float(false) / 3.0;
                let c = self.splat(func, &scalar_ty, threshold)?;
                if self.rng.chance(50) {
                    let pred = self.emit(func, Prim::Compare(CompareOp::Lt), &[s, c])?[0];
                    Some((pred, 2))
                } else {
                    let shifted = self.binary(func, BinaryOp::Add, s, c)?;
                    let index = self.emit(func, Prim::Unary(UnaryOp::Convert { dtype: DType::I32 }), &[shifted])?[0];
                    Some((index, n))
                }
            }
            _ => Some((self.index_constant(func, &[], n as i64)?, n)),
        }
    }

    /// A `custom_jvp` or `custom_vjp` of a chain of one or two elementary functions of
    /// `x` (after a `tanh` when one of them grows without bound), with true rules.
    fn custom_rule_eqn(&mut self, func: &mut Func, x: Value) -> Option<()> {
        let ty = func.ty(x).clone();
        let mut chain: Vec<Elementary> = (0..1 + self.rng.below(2)).map(|_| self.rng.pick(&ELEMENTARY)).collect();
        // `exp` and the square grow without bound: behind a `tanh` they stay finite
        // whatever the operand (`exp(x²)` overflows at |x| > 26.6, and a derivative
        // through an infinity is NaN where the function itself saturates).
        if chain.iter().any(|e| matches!(e, Elementary::Exp | Elementary::Square)) {
            chain.insert(0, Elementary::Tanh);
        }
        // The function: g(x).
        let mut g = Func::new(self.fresh_name("custom"));
        let a = g.new_value(ty.clone());
        g.params = vec![a];
        let (y, _) = self.elementary_chain(&mut g, &chain, a, false)?;
        g.results = vec![y];
        g.result_types = vec![ty.clone()];
        let g_name = g.name.clone();
        self.subs.push(g);
        let prim = if self.rng.chance(50) {
            // jvp(x, t) = (g(x), g'(x)·t).
            let mut j = Func::new(self.fresh_name("custom_jvp"));
            let (a, t) = (j.new_value(ty.clone()), j.new_value(ty.clone()));
            j.params = vec![a, t];
            let (y, d) = self.elementary_chain(&mut j, &chain, a, true)?;
            let dt = self.binary(&mut j, BinaryOp::Mul, d?, t)?;
            j.results = vec![y, dt];
            j.result_types = vec![ty.clone(), ty.clone()];
            let jvp = j.name.clone();
            self.subs.push(j);
            Prim::Control(ControlOp::CustomJvp { func: g_name, jvp })
        } else {
            // fwd(x) = (g(x), g'(x)); bwd(g'(x), u) = g'(x)·u.
            let mut fw = Func::new(self.fresh_name("custom_fwd"));
            let a = fw.new_value(ty.clone());
            fw.params = vec![a];
            let (y, d) = self.elementary_chain(&mut fw, &chain, a, true)?;
            fw.results = vec![y, d?];
            fw.result_types = vec![ty.clone(), ty.clone()];
            let mut bw = Func::new(self.fresh_name("custom_bwd"));
            let (d, u) = (bw.new_value(ty.clone()), bw.new_value(ty.clone()));
            bw.params = vec![d, u];
            let du = self.binary(&mut bw, BinaryOp::Mul, d, u)?;
            bw.results = vec![du];
            bw.result_types = vec![ty.clone()];
            let (fwd, bwd) = (fw.name.clone(), bw.name.clone());
            self.subs.push(fw);
            self.subs.push(bw);
            Prim::Control(ControlOp::CustomVjp { func: g_name, fwd, bwd })
        };
        self.emit(func, prim, &[x]).map(|_| ())
    }

    /// Emits `chain` applied to `x` into `f`: the value, and (when `derivative`) the
    /// derivative of the chain at `x` by the chain rule.
    fn elementary_chain(
        &mut self,
        f: &mut Func,
        chain: &[Elementary],
        x: Value,
        derivative: bool,
    ) -> Option<(Value, Option<Value>)> {
        let mut value = x;
        let mut slope: Option<Value> = None;
        for &e in chain {
            let (y, d) = self.elementary(f, e, value, derivative)?;
            slope = match (slope, d) {
                (Some(s), Some(d)) => Some(self.binary(f, BinaryOp::Mul, d, s)?),
                (None, d) => d,
                (s, None) => s,
            };
            value = y;
        }
        Some((value, slope))
    }

    /// One elementary function of `x` and (when `derivative`) its derivative at `x`.
    fn elementary(
        &mut self,
        f: &mut Func,
        e: Elementary,
        x: Value,
        derivative: bool,
    ) -> Option<(Value, Option<Value>)> {
        let ty = f.ty(x).clone();
        let (y, d) = match e {
            Elementary::Sin => {
                let y = self.unary(f, UnaryOp::Sin, x)?;
                (y, if derivative { Some(self.unary(f, UnaryOp::Cos, x)?) } else { None })
            }
            Elementary::Tanh => {
                let y = self.unary(f, UnaryOp::Tanh, x)?;
                let d = if derivative {
                    let one = self.splat(f, &ty, 1.0)?;
                    let sq = self.binary(f, BinaryOp::Mul, y, y)?;
                    Some(self.binary(f, BinaryOp::Sub, one, sq)?)
                } else {
                    None
                };
                (y, d)
            }
            Elementary::Exp => {
                let y = self.unary(f, UnaryOp::Exp, x)?;
                (y, derivative.then_some(y))
            }
            Elementary::Square => {
                let y = self.binary(f, BinaryOp::Mul, x, x)?;
                let d = if derivative {
                    let two = self.splat(f, &ty, 2.0)?;
                    Some(self.binary(f, BinaryOp::Mul, two, x)?)
                } else {
                    None
                };
                (y, d)
            }
            Elementary::Logistic => {
                let y = self.unary(f, UnaryOp::Logistic, x)?;
                let d = if derivative {
                    let one = self.splat(f, &ty, 1.0)?;
                    let rest = self.binary(f, BinaryOp::Sub, one, y)?;
                    Some(self.binary(f, BinaryOp::Mul, y, rest)?)
                } else {
                    None
                };
                (y, d)
            }
            Elementary::LogOnePlusSquare => {
                let sq = self.binary(f, BinaryOp::Mul, x, x)?;
                let y = self.unary(f, UnaryOp::Log1p, sq)?;
                let d = if derivative {
                    let one = self.splat(f, &ty, 1.0)?;
                    let den = self.binary(f, BinaryOp::Add, one, sq)?;
                    let two = self.splat(f, &ty, 2.0)?;
                    let num = self.binary(f, BinaryOp::Mul, two, x)?;
                    Some(self.binary(f, BinaryOp::Div, num, den)?)
                } else {
                    None
                };
                (y, d)
            }
        };
        Some((y, d))
    }

    /// A positive smooth function of `x`: `1 + x²`, `exp(tanh x)` or `0.5 + logistic x`.
    fn positive(&mut self, func: &mut Func, x: Value) -> Option<Value> {
        let ty = func.ty(x).clone();
        match self.rng.below(3) {
            0 => {
                let sq = self.emit(func, Prim::Unary(UnaryOp::IntegerPow { y: 2 }), &[x])?[0];
                let one = self.splat(func, &ty, 1.0)?;
                self.binary(func, BinaryOp::Add, one, sq)
            }
            1 => {
                let t = self.unary(func, UnaryOp::Tanh, x)?;
                self.unary(func, UnaryOp::Exp, t)
            }
            _ => {
                let s = self.unary(func, UnaryOp::Logistic, x)?;
                let half = self.splat(func, &ty, 0.5)?;
                self.binary(func, BinaryOp::Add, s, half)
            }
        }
    }

    /// A constant of type `ty` (f64) with every element `value`.
    fn splat(&mut self, func: &mut Func, ty: &Type, value: f64) -> Option<Value> {
        let shape: Shape = ty.shape.clone();
        self.emit(func, Prim::Shape(ShapeOp::Constant { value: Array::scalar_f64(value), shape }), &[]).map(|o| o[0])
    }

    fn unary(&mut self, func: &mut Func, op: UnaryOp, x: Value) -> Option<Value> {
        self.emit(func, Prim::Unary(op), &[x]).map(|o| o[0])
    }

    fn binary(&mut self, func: &mut Func, op: BinaryOp, x: Value, y: Value) -> Option<Value> {
        self.emit(func, Prim::Binary(op), &[x, y]).map(|o| o[0])
    }
}
