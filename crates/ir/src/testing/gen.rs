//! The generator proper: [`random_module`] and the per-family equation builders.

use super::{GenConfig, Rng, random_array};
use crate::prim::{ControlOp, IndexOp, LinalgOp, RandomOp, ReductionOp, ShapeOp, TernaryOp};

// The smooth builders live beside this file; as a child module they share `Gen`.
#[path = "smooth.rs"]
mod smooth;
#[path = "window_gen.rs"]
mod window_gen;
use crate::prim::{ArgOp, BinaryOp, CompareOp, DotDims, ReduceOp, RematPolicy, ScanParams, UnaryOp};
use crate::{Eqn, Func, Module, Prim, Type, Value};
use ferrax_array::{Array, DType, Shape};
use smallvec::SmallVec;

/// The dtypes generated programs convert to: every one, the 16-bit floats included.
pub const GENERATED_DTYPES: [DType; 6] = DType::ALL;

/// A random well-typed module: the entry first, then its bodies.
pub fn random_module(seed: u64, config: &GenConfig) -> Module {
    let mut g =
        Gen { rng: Rng::new(seed), config: config.clone(), subs: Module::new(), next_name: 0, big_shapes: Vec::new() };
    g.big_shapes = g.big_shapes();
    let n_params = 1 + g.rng.below(3);
    let params: Vec<Type> = (0..n_params).map(|_| g.random_type(None)).collect();
    let entry = g.func("main".to_string(), &params, 0);
    let mut module = Module::new();
    module.push(entry);
    for (_, func) in std::mem::take(&mut g.subs.funcs) {
        module.push(func);
    }
    module
}

struct Gen {
    rng: Rng,
    config: GenConfig,
    subs: Module,
    next_name: usize,
    /// The module's big shapes (`Gen::big_shapes`), empty outside big mode.
    big_shapes: Vec<Shape>,
}

impl Gen {
    fn random_type(&mut self, dtype: Option<DType>) -> Type {
        let dtype = match dtype {
            Some(d) => d,
            None if self.config.smooth => DType::F64,
            None => self.rng.pick(&[DType::F32, DType::F32, DType::F64, DType::I32, DType::Bool]),
        };
        let rank = self.rng.below(self.config.max_rank + 1);
        let mut shape: Shape = (0..rank).map(|_| self.dim()).collect();
        if let Some(last) = shape.last_mut()
            && !self.big_shapes.is_empty()
        {
            // Big mode draws from the module's few big shapes, so that binary operations
            // find operands of the same type.
            if self.rng.chance(self.config.huge_percent) {
                shape = self.big_shapes[0].clone();
            } else {
                *last = self.big_shapes[1 + self.rng.below(self.big_shapes.len() - 1)][1];
            }
        }
        Type { dtype, shape }
    }

    /// The big shapes of one module ([`GenConfig::big`]): first a huge `[rows, inner]`
    /// (one leading axis sized to reach the element count), then two `[1, inner]` whose
    /// inner extent innermost axes take; empty when the config has no big mode.
    fn big_shapes(&mut self) -> Vec<Shape> {
        let Some((lo, hi)) = self.config.inner_extent else { return Vec::new() };
        let inner: Vec<usize> = (0..2).map(|_| self.rng.range(lo as i64, hi as i64) as usize).collect();
        let (lo, hi) = self.config.huge_elements;
        let scale = if self.rng.chance(25) { 3 } else { 1 };
        let target = self.rng.range(lo as i64, hi as i64) as usize * scale;
        let mut shapes: Vec<Shape> = vec![[target.div_ceil(inner[0]), inner[0]].into_iter().collect()];
        shapes.extend(inner.iter().map(|&n| -> Shape { [1, n].into_iter().collect() }));
        shapes
    }

    fn dim(&mut self) -> usize {
        if self.rng.chance(8) { 0 } else { 1 + self.rng.below(self.config.max_dim) }
    }

    fn fresh_name(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    /// A Func with the given parameters and random equations.
    fn func(&mut self, name: String, params: &[Type], depth: usize) -> Func {
        let mut func = Func::new(name);
        for ty in params {
            let v = func.new_value(ty.clone());
            func.params.push(v);
        }
        let target = 1 + self.rng.below(self.config.max_eqns);
        let mut attempts = 0;
        while func.eqns.len() < target && attempts < target * 8 {
            attempts += 1;
            self.random_eqn(&mut func, depth);
        }
        let candidates: Vec<Value> = (0..func.value_types.len() as u32).map(Value).collect();
        let n_results = 1 + self.rng.below(2.min(candidates.len()));
        let mut results: Vec<Value> = (0..n_results).map(|_| self.rng.pick(&candidates)).collect();
        if let Some(last) = func.eqns.last().and_then(|e| e.outputs.first()) {
            results[0] = *last;
        }
        func.result_types = results.iter().map(|&v| func.ty(v).clone()).collect();
        func.results = results;
        func
    }

    fn values(&self, func: &Func, pred: impl Fn(&Type) -> bool) -> Vec<Value> {
        (0..func.value_types.len() as u32).map(Value).filter(|&v| pred(func.ty(v))).collect()
    }

    /// A random value satisfying `pred` (only f64 values in smooth mode).
    fn any_value(&mut self, func: &Func, pred: impl Fn(&Type) -> bool) -> Option<Value> {
        let smooth = self.config.smooth;
        let values = self.values(func, |t| pred(t) && (!smooth || t.dtype == DType::F64));
        (!values.is_empty()).then(|| self.rng.pick(&values))
    }

    /// Infers, size-checks and appends an equation; `None` when the rule rejects it.
    fn emit(&mut self, func: &mut Func, prim: Prim, inputs: &[Value]) -> Option<SmallVec<[Value; 2]>> {
        let types: Vec<Type> = inputs.iter().map(|&v| func.ty(v).clone()).collect();
        let outs = prim.infer(&types, &self.subs).ok()?;
        if outs.iter().any(|t| t.element_count().is_none_or(|n| n > self.config.max_elements)) {
            return None;
        }
        let outputs: SmallVec<[Value; 2]> = outs.into_iter().map(|t| func.new_value(t)).collect();
        func.eqns.push(Eqn { prim, inputs: inputs.into(), outputs: outputs.clone(), loc: None });
        Some(outputs)
    }

    fn constant(&mut self, func: &mut Func, ty: &Type) -> Option<Value> {
        let value = if self.rng.chance(50) {
            random_array(&Type::scalar(ty.dtype), &mut self.rng, self.config.special_values)
        } else {
            random_array(ty, &mut self.rng, self.config.special_values)
        };
        self.emit(func, Prim::Shape(ShapeOp::Constant { value, shape: ty.shape.clone() }), &[]).map(|o| o[0])
    }

    fn index_constant(&mut self, func: &mut Func, shape: &[usize], hi: i64) -> Option<Value> {
        let n = ferrax_array::element_count(shape).ok()?;
        let values: Vec<i32> = (0..n).map(|_| self.rng.range(-2, hi + 2) as i32).collect();
        let value = Array::from_i32(shape, values).ok()?;
        self.emit(func, Prim::Shape(ShapeOp::Constant { value, shape: shape.into() }), &[]).map(|o| o[0])
    }

    fn random_eqn(&mut self, func: &mut Func, depth: usize) -> Option<()> {
        let structured = depth < self.config.max_depth && self.rng.chance(12);
        if structured {
            return self.structured_eqn(func, depth);
        }
        match self.rng.below(9) {
            0 | 1 => self.elementwise_eqn(func),
            2 if self.config.smooth => self.smooth_select_eqn(func),
            2 => self.compare_select_eqn(func),
            3 | 4 => self.shape_eqn(func),
            5 => self.index_eqn(func),
            6 if self.config.smooth => self.smooth_reduce_eqn(func),
            6 => self.reduce_eqn(func),
            7 if self.rng.chance(25) => self.conv_eqn(func),
            7 => self.dot_eqn(func),
            _ => {
                let ty = self.random_type(None);
                if self.rng.chance(20) && !self.config.smooth {
                    self.random_bits_eqn(func, &ty.shape)
                } else if self.rng.chance(50) && ty.dtype != DType::Bool && ty.rank() > 0 {
                    let dim = self.rng.below(ty.rank());
                    self.emit(func, Prim::Shape(ShapeOp::Iota { dtype: ty.dtype, shape: ty.shape.clone(), dim }), &[])
                        .map(|_| ())
                } else {
                    self.constant(func, &ty).map(|_| ())
                }
            }
        }
    }

    /// `random_bits` of `shape` from an `i32[2]` value, or from a new constant key.
    fn random_bits_eqn(&mut self, func: &mut Func, shape: &[usize]) -> Option<()> {
        let key_type = crate::prim::random::key_type();
        let key = match self.any_value(func, |t| *t == key_type) {
            Some(key) if self.rng.chance(50) => key,
            _ => self.constant(func, &key_type)?,
        };
        self.emit(func, Prim::Random(RandomOp::RandomBits { shape: shape.into() }), &[key]).map(|_| ())
    }

    fn elementwise_eqn(&mut self, func: &mut Func) -> Option<()> {
        let x = self.any_value(func, |_| true)?;
        let ty = func.ty(x).clone();
        if self.config.smooth {
            return self.smooth_elementwise_eqn(func, x);
        }
        let prim = match self.rng.below(6) {
            0 | 1 => {
                let ops: Vec<UnaryOp> = UnaryOp::MATH.into_iter().filter(|op| op.domain().accepts(ty.dtype)).collect();
                if ops.is_empty() {
                    return None;
                }
                Prim::Unary(self.rng.pick(&ops))
            }
            2 => Prim::Unary(UnaryOp::Convert { dtype: self.rng.pick(&GENERATED_DTYPES) }),
            3 => Prim::Unary(UnaryOp::IntegerPow {
                y: self.rng.range(if ty.dtype.is_float() { -2 } else { 0 }, 3) as i32,
            }),
            4 => {
                if self.rng.chance(50) {
                    Prim::Unary(UnaryOp::StopGradient)
                } else {
                    Prim::Name { name: self.fresh_name("tag") }
                }
            }
            _ => {
                let ops: Vec<BinaryOp> = BinaryOp::ALL.into_iter().filter(|op| op.domain().accepts(ty.dtype)).collect();
                if ops.is_empty() {
                    return None;
                }
                let y = self.any_value(func, |t| *t == ty)?;
                // Floats get a multiply-add now and then: the pattern the JIT contracts
                // into one `fma`, which a random pick of operations rarely forms.
                let fused = ty.dtype.is_float() && self.rng.chance(40);
                let op = if fused { BinaryOp::Mul } else { self.rng.pick(&ops) };
                let product = self.emit(func, Prim::Binary(op), &[x, y])?[0];
                if fused {
                    let c = self.any_value(func, |t| *t == ty)?;
                    let (op, operands) = match self.rng.below(3) {
                        0 => (BinaryOp::Add, [product, c]),
                        1 => (BinaryOp::Add, [c, product]),
                        _ => (BinaryOp::Sub, [product, c]),
                    };
                    self.emit(func, Prim::Binary(op), &operands)?;
                }
                return Some(());
            }
        };
        self.emit(func, prim, &[x]).map(|_| ())
    }

    fn compare_select_eqn(&mut self, func: &mut Func) -> Option<()> {
        let x = self.any_value(func, |_| true)?;
        let ty = func.ty(x).clone();
        let y = self.any_value(func, |t| *t == ty)?;
        let op = self.rng.pick(&CompareOp::ALL);
        let pred = self.emit(func, Prim::Compare(op), &[x, y])?[0];
        if self.rng.chance(30) && ty.dtype != DType::Bool {
            let lo = self.any_value(func, |t| *t == ty)?;
            return self.emit(func, Prim::Ternary(TernaryOp::Clamp), &[lo, x, y]).map(|_| ());
        }
        self.emit(func, Prim::Ternary(TernaryOp::Select), &[pred, x, y]).map(|_| ())
    }

    fn shape_eqn(&mut self, func: &mut Func) -> Option<()> {
        let x = self.any_value(func, |_| true)?;
        let ty = func.ty(x).clone();
        let rank = ty.rank();
        let prim = match self.rng.below(9) {
            0 => {
                let mut shape = ty.shape.clone();
                shape.insert(0, self.dim());
                Prim::Shape(ShapeOp::BroadcastInDim { shape, dims: (1..=rank).collect() })
            }
            8 => {
                // Size-1 axes expand, and a new axis goes at a random place.
                let mut shape: Shape = ty.shape.iter().map(|&d| if d == 1 { self.dim() } else { d }).collect();
                let at = self.rng.below(rank + 1);
                shape.insert(at, self.dim());
                let dims = (0..=rank).filter(|&i| i != at).collect();
                Prim::Shape(ShapeOp::BroadcastInDim { shape, dims })
            }
            1 => {
                let mut shape: Shape = ty.shape.iter().rev().copied().collect();
                if self.rng.chance(50) {
                    shape = Shape::from_slice(&[ty.element_count()?]);
                }
                Prim::Shape(ShapeOp::Reshape { shape })
            }
            2 => {
                let mut perm: Vec<usize> = (0..rank).collect();
                for i in (1..rank).rev() {
                    let j = self.rng.below(i + 1);
                    perm.swap(i, j);
                }
                Prim::Shape(ShapeOp::Transpose { perm })
            }
            3 => Prim::Shape(ShapeOp::Rev { axes: (0..rank).filter(|_| self.rng.chance(50)).collect() }),
            4 => {
                let mut start = vec![];
                let mut limit = vec![];
                let mut strides = vec![];
                for &d in &ty.shape {
                    let s = self.rng.below(d + 1);
                    start.push(s);
                    limit.push(s + self.rng.below(d - s + 1));
                    strides.push(1 + self.rng.below(2));
                }
                Prim::Shape(ShapeOp::Slice { start, limit, strides })
            }
            5 => {
                let pad_value = self.constant(func, &Type::scalar(ty.dtype))?;
                let low = (0..rank).map(|_| self.rng.range(-1, 2)).collect();
                let high = (0..rank).map(|_| self.rng.range(-1, 2)).collect();
                let interior = (0..rank).map(|_| self.rng.below(2)).collect();
                return self.emit(func, Prim::Shape(ShapeOp::Pad { low, high, interior }), &[x, pad_value]).map(|_| ());
            }
            6 if rank > 0 => {
                let axis = self.rng.below(rank);
                let y = self.any_value(func, |t| t.dtype == ty.dtype && t.rank() == rank)?;
                return self.emit(func, Prim::Shape(ShapeOp::Concatenate { axis }), &[x, y, x]).map(|_| ());
            }
            _ => return None,
        };
        self.emit(func, prim, &[x]).map(|_| ())
    }

    fn index_eqn(&mut self, func: &mut Func) -> Option<()> {
        let x = self.any_value(func, |t| t.rank() > 0)?;
        let ty = func.ty(x).clone();
        let rank = ty.rank();
        match self.rng.below(4) {
            0 | 1 => {
                let starts: Vec<Value> =
                    ty.shape.iter().map(|&d| self.index_constant(func, &[], d as i64)).collect::<Option<_>>()?;
                let sizes: Vec<usize> = ty.shape.iter().map(|&d| self.rng.below(d + 1)).collect();
                if self.rng.chance(50) {
                    let mut inputs = vec![x];
                    inputs.extend(&starts);
                    self.emit(func, Prim::Index(IndexOp::DynamicSlice { sizes }), &inputs).map(|_| ())
                } else {
                    let update = self.any_value(func, |t| {
                        t.dtype == ty.dtype && t.rank() == rank && t.shape.iter().zip(&ty.shape).all(|(u, d)| u <= d)
                    })?;
                    let mut inputs = vec![x, update];
                    inputs.extend(&starts);
                    self.emit(func, Prim::Index(IndexOp::DynamicUpdateSlice), &inputs).map(|_| ())
                }
            }
            _ => {
                let axis = self.rng.below(rank);
                let batch_dims = if axis > 0 && self.rng.chance(40) { 1 } else { 0 };
                let mut idx_shape: Shape = ty.shape[..batch_dims].into();
                for _ in 0..self.rng.below(2) + 1 {
                    idx_shape.push(self.rng.below(3));
                }
                let idx = self.index_constant(func, &idx_shape, ty.shape[axis] as i64)?;
                let gathered = self.emit(func, Prim::Index(IndexOp::Gather { axis, batch_dims }), &[x, idx])?[0];
                if ty.dtype != DType::Bool && self.rng.chance(50) {
                    self.emit(func, Prim::Index(IndexOp::ScatterAdd { axis, batch_dims }), &[x, idx, gathered])?;
                }
                Some(())
            }
        }
    }

    fn reduce_eqn(&mut self, func: &mut Func) -> Option<()> {
        let x = self.any_value(func, |t| t.dtype != DType::Bool)?;
        let rank = func.ty(x).rank();
        let prim = match self.rng.below(5) {
            4 => return self.window_eqn(func, x),
            3 if rank > 0 => {
                let (axis, reverse) = (self.rng.below(rank), self.rng.chance(50));
                Prim::Reduction(if self.rng.chance(50) {
                    ReductionOp::Cummax { axis, reverse }
                } else {
                    ReductionOp::Cummin { axis, reverse }
                })
            }
            0 => Prim::Reduction(ReductionOp::Reduce {
                op: self.rng.pick(&ReduceOp::ALL),
                axes: (0..rank).filter(|_| self.rng.chance(50)).collect(),
            }),
            1 if rank > 0 => Prim::Reduction(ReductionOp::ArgReduce {
                op: self.rng.pick(&[ArgOp::Argmax, ArgOp::Argmin]),
                axis: self.rng.below(rank),
                index_dtype: DType::I32,
            }),
            _ if rank > 0 => {
                Prim::Reduction(ReductionOp::Cumsum { axis: self.rng.below(rank), reverse: self.rng.chance(50) })
            }
            _ => return None,
        };
        self.emit(func, prim, &[x]).map(|_| ())
    }

    fn dot_eqn(&mut self, func: &mut Func) -> Option<()> {
        let x = self.any_value(func, |t| t.dtype != DType::Bool && t.rank() > 0)?;
        let ty = func.ty(x).clone();
        let last = ty.rank() - 1;
        let y = self.any_value(func, |t| *t == ty)?;
        let batch = if ty.rank() >= 2 && self.rng.chance(50) { vec![0] } else { vec![] };
        let (lhs_contract, rhs_contract) = (vec![last], vec![last]);
        let dims = DotDims { lhs_contract, rhs_contract, lhs_batch: batch.clone(), rhs_batch: batch, preferred: None };
        self.emit(func, Prim::Linalg(LinalgOp::DotGeneral(dims)), &[x, y]).map(|_| ())
    }

    fn structured_eqn(&mut self, func: &mut Func, depth: usize) -> Option<()> {
        let x = self.any_value(func, |_| true)?;
        let ty = func.ty(x).clone();
        match self.rng.below(5) {
            0 => {
                let callee = self.sub_func("call", std::slice::from_ref(&ty), depth);
                let prim = match self.rng.below(3) {
                    0 => Prim::call(callee),
                    1 => {
                        let policy = match self.rng.below(3) {
                            0 => RematPolicy::Nothing,
                            1 => RematPolicy::Dots,
                            _ => RematPolicy::Names(vec![format!("tag{}", 1 + self.rng.below(self.next_name))]),
                        };
                        Prim::Control(ControlOp::Remat { func: callee, policy })
                    }
                    // Random custom rules are not true derivatives: smooth programs get
                    // theirs from `smooth_elementwise_eqn`.
                    _ if self.config.smooth => Prim::call(callee),
                    _ => return self.custom_eqn(func, x, callee),
                };
                self.emit(func, prim, &[x]).map(|_| ())
            }
            1 => {
                let first = self.sub_func("branch", std::slice::from_ref(&ty), depth);
                let result_types = self.subs.func(&first)?.result_types.clone();
                let mut branches = vec![first];
                for _ in 0..1 + self.rng.below(2) {
                    branches.push(self.sub_func_returning("branch", std::slice::from_ref(&ty), &result_types, depth));
                }
                let selector = if self.config.smooth {
                    let (selector, n) = self.smooth_cond_selector(func, branches.len())?;
                    branches.truncate(n);
                    selector
                } else if self.rng.chance(50) {
                    self.index_constant(func, &[], branches.len() as i64)?
                } else {
                    branches.truncate(2);
                    self.any_value(func, |t| t.dtype == DType::Bool && t.rank() == 0)
                        .or_else(|| self.constant(func, &Type::scalar(DType::Bool)))?
                };
                self.emit(func, Prim::Control(ControlOp::Cond { branches }), &[selector, x]).map(|_| ())
            }
            2 => self.while_eqn(func, x, depth),
            _ => self.scan_eqn(func, x, depth),
        }
    }

    fn custom_eqn(&mut self, func: &mut Func, x: Value, callee: String) -> Option<()> {
        let ty = func.ty(x).clone();
        let results = self.subs.func(&callee)?.result_types.clone();
        let prim = if self.rng.chance(50) {
            let jvp =
                self.sub_func_returning("jvp", &[ty.clone(), ty.clone()], &[results.clone(), results].concat(), 0);
            Prim::Control(ControlOp::CustomJvp { func: callee, jvp })
        } else {
            let fwd = self.sub_func_returning("fwd", std::slice::from_ref(&ty), &results, self.config.max_depth);
            let fwd_results = self.subs.func(&fwd)?.result_types.clone();
            let bwd_results: Vec<Type> = if ty.dtype.is_float() { vec![ty.clone()] } else { vec![] };
            let bwd = self.sub_func_returning(
                "bwd",
                &fwd_results[results.len()..].iter().chain(&results).cloned().collect::<Vec<_>>(),
                &bwd_results,
                self.config.max_depth,
            );
            Prim::Control(ControlOp::CustomVjp { func: callee, fwd, bwd })
        };
        self.emit(func, prim, &[x]).map(|_| ())
    }

    fn while_eqn(&mut self, func: &mut Func, x: Value, depth: usize) -> Option<()> {
        let ty = func.ty(x).clone();
        let counter_ty = Type::scalar(DType::I32);
        let carry = [counter_ty.clone(), ty.clone()];
        // cond: counter < limit.
        let limit = self.rng.range(0, 4) as i32;
        let mut cond = Func::new(self.fresh_name("cond"));
        let c = cond.new_value(counter_ty.clone());
        let v = cond.new_value(ty.clone());
        cond.params = vec![c, v];
        let lim = self.emit(
            &mut cond,
            Prim::Shape(ShapeOp::Constant { value: Array::scalar_i32(limit), shape: Shape::new() }),
            &[],
        )?[0];
        let lt = self.emit(&mut cond, Prim::Compare(CompareOp::Lt), &[c, lim])?[0];
        cond.result_types = vec![Type::scalar(DType::Bool)];
        cond.results = vec![lt];
        // body: counter + 1, and a random update of the value.
        let name = self.fresh_name("body");
        let mut body = self.func(name, &carry, depth + 1);
        let counter = body.params[0];
        let one = self.emit(
            &mut body,
            Prim::Shape(ShapeOp::Constant { value: Array::scalar_i32(1), shape: Shape::new() }),
            &[],
        )?[0];
        let next = self.emit(&mut body, Prim::Binary(BinaryOp::Add), &[counter, one])?[0];
        let candidates = self.values(&body, |t| *t == ty);
        let picked = self.rng.pick(&candidates);
        let value = self.bounded_carry(&mut body, picked)?;
        body.results = vec![next, value];
        body.result_types = carry.to_vec();
        let (cond_name, body_name) = (cond.name.clone(), body.name.clone());
        self.subs.push(cond);
        self.subs.push(body);
        let start =
            self.emit(func, Prim::Shape(ShapeOp::Constant { value: Array::scalar_i32(0), shape: Shape::new() }), &[])?
                [0];
        // Reverse mode needs a bound: smooth programs always have one.
        let max_iters = if self.rng.chance(50) || self.config.smooth { Some(self.rng.below(4)) } else { None };
        self.emit(func, Prim::Control(ControlOp::While { cond: cond_name, body: body_name, max_iters }), &[start, x])
            .map(|_| ())
    }

    fn scan_eqn(&mut self, func: &mut Func, x: Value, depth: usize) -> Option<()> {
        let carry_ty = func.ty(x).clone();
        let xs = self.any_value(func, |t| t.rank() > 0)?;
        let xs_ty = func.ty(xs).clone();
        let length = xs_ty.shape[0];
        let slice_ty = Type::new(xs_ty.dtype, &xs_ty.shape[1..]);
        // Now and then a loop-invariant operand (a const) comes first.
        let konst = if self.rng.chance(30) { self.any_value(func, |_| true) } else { None };
        let mut body_params: Vec<Type> = konst.iter().map(|&c| func.ty(c).clone()).collect();
        body_params.extend([carry_ty.clone(), slice_ty]);
        let name = self.fresh_name("scan");
        let mut body = self.func(name, &body_params, depth + 1);
        let carry_out = self.rng.pick(&self.values(&body, |t| *t == carry_ty));
        let carry_out = self.bounded_carry(&mut body, carry_out)?;
        let limit = self.config.max_elements;
        let small = self.values(&body, |t| t.element_count().is_some_and(|n| n * length.max(1) <= limit));
        if small.is_empty() {
            return None;
        }
        let y = self.rng.pick(&small);
        body.results = vec![carry_out, y];
        body.result_types = vec![carry_ty, body.ty(y).clone()];
        let name = body.name.clone();
        self.subs.push(body);
        let params = ScanParams {
            body: name,
            length,
            num_consts: konst.is_some() as usize,
            num_carry: 1,
            reverse: self.rng.chance(50),
            checkpoint: if self.rng.chance(30) { Some(1 + self.rng.below(3)) } else { None },
        };
        let mut operands: Vec<Value> = konst.into_iter().collect();
        operands.extend([x, xs]);
        self.emit(func, Prim::Control(ControlOp::Scan(params)), &operands).map(|_| ())
    }

    /// In smooth mode, `tanh` of a loop's carry, so iterating cannot overflow (an
    /// overflowed carry makes a derivative `0 · inf = NaN`, as in JAX, which finite
    /// differences cannot check); `v` itself otherwise.
    fn bounded_carry(&mut self, body: &mut Func, v: Value) -> Option<Value> {
        if !self.config.smooth || !body.ty(v).dtype.is_float() {
            return Some(v);
        }
        self.emit(body, Prim::Unary(UnaryOp::Tanh), &[v]).map(|o| o[0])
    }

    fn sub_func(&mut self, prefix: &str, params: &[Type], depth: usize) -> String {
        let name = self.fresh_name(prefix);
        let func = self.func(name.clone(), params, depth + 1);
        self.subs.push(func);
        name
    }

    /// A sub-Func that returns exactly `results` (built from constants when no value fits).
    fn sub_func_returning(&mut self, prefix: &str, params: &[Type], results: &[Type], depth: usize) -> String {
        let name = self.fresh_name(prefix);
        let mut func = self.func(name.clone(), params, depth + 1);
        let mut values = Vec::new();
        for ty in results {
            let candidates = self.values(&func, |t| t == ty);
            let v = if candidates.is_empty() || self.rng.chance(10) {
                let value = random_array(ty, &mut self.rng, false);
                let v = func.new_value(ty.clone());
                func.eqns.push(Eqn {
                    prim: Prim::Shape(ShapeOp::Constant { value, shape: ty.shape.clone() }),
                    inputs: SmallVec::new(),
                    outputs: [v].into_iter().collect(),
                    loc: None,
                });
                v
            } else {
                self.rng.pick(&candidates)
            };
            values.push(v);
        }
        func.results = values;
        func.result_types = results.to_vec();
        self.subs.push(func);
        name
    }
}

#[cfg(test)]
#[path = "gen_tests.rs"]
mod tests;
