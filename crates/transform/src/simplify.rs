//! Algebraic simplification: rewrites that never change a result, bit for bit (NaN,
//! infinities and signed zeros included; NaN payloads aside). Each rule, with why it
//! is exact:
//!
//! - `x * 1 → x`, `1 * x → x`: multiplying by one is exact for every float (and -0.0,
//!   NaN, inf) and every integer.
//! - `x + (-0.0) → x`, `(-0.0) + x → x`: adding negative zero is exact, also for
//!   `x = -0.0`. Adding `+0.0` is **not** (it maps -0.0 to +0.0), so it is kept.
//!   For i32, `x + 0 → x`.
//! - `x - (+0.0) → x` (and i32 `x - 0 → x`): exact, `-0.0 - 0.0 = -0.0`.
//! - `x / 1 → x`: exact for floats and for i32's truncating division.
//! - `neg(neg(x)) → x`: negation flips the sign bit (it wraps back for `i32::MIN`).
//! - `x + neg(y) → x - y`, `neg(x) + y → y - x`, `x - neg(y) → x + y`: IEEE defines
//!   `a - b` as `a + (-b)` and addition is commutative bit for bit (the sign of an exact
//!   zero sum depends on the operands' signs, not their order); i32 wraps the same way.
//!   Reverse mode makes these (`-(2·x)` cotangents summed into gradients); the `neg`
//!   left without users goes to `dce`. Not rewritten: `neg(x) - y → neg(x + y)`, which
//!   differs for `x = +0, y = -0` (`-0 - -0 = +0`, `-(0 + -0) = -0`).
//! - `reshape(reshape(x)) → reshape(x)`, and a reshape to the operand's own shape →
//!   `x`: C-order contents are unchanged by reshape.
//! - `transpose(transpose(x, p), q) → transpose(x, p∘q)`, an identity permutation → `x`.
//! - `convert` to the operand's own dtype → `x`; `f32 → f64 → f32 → x` (widening is
//!   exact and narrowing it back returns the same bits). Other chains are left alone
//!   (`f64 → f32 → f64` rounds, `f32 → i32 → f32` truncates).
//! - `select(c, a, b)` with a uniform constant predicate → `a` or `b`.
//! - `broadcast_in_dim` of a uniform constant → a splat `constant` of the broadcast
//!   shape (kept symbolic: no literal of the full size); a broadcast to the operand's
//!   own shape with the identity axes → `x`.
//!
//! - `reduce(broadcast_in_dim(y))` whose reduced axes all come from `y` unexpanded →
//!   `broadcast_in_dim(reduce(y))`: each result element combines the same terms in the
//!   same order, over `y`'s smaller array (reverse mode makes these: the transpose of a
//!   broadcast summed back over axes the broadcast kept). A reduction over an expanded
//!   axis stays (n equal terms summed round differently from `n·y`).
//!
//! - `c1 * (c2 * x) → (c1·c2) * x` for float constants with `c2 = ±2^k` (k ≥ 0) and
//!   `|c1| ≥ 1`, when `c1·c2` is finite: scaling by `2^k ≥ 1` is exact (subnormals
//!   included) unless it overflows, and when `c2·x` overflows to ±inf, `c1·c2·x` is at
//!   least as large and overflows to the same infinity; otherwise both round the same
//!   exact product once. Reverse mode makes these chains (the 2 of a square's
//!   derivative times a coefficient, `100·(2·d)` in Rosenbrock's gradient).
//!
//! Not rewritten, on purpose: `0 * x` (it is NaN for inf or NaN `x`, and -0.0 for
//! negative `x`), `x + 0.0`, `neg(c * x) → (-c) * x` (a NaN's sign bit would differ),
//! and any other reassociation of arithmetic.

use crate::fold::uniform;
use ferrax_ir::array::{Array, DType, Data};
use ferrax_ir::prim::{BinaryOp, Prim, ReduceOp, ReductionOp, UnaryOp};
use ferrax_ir::prim::{ShapeOp, TernaryOp};
use ferrax_ir::{Eqn, Func, Module, Type, Value};

/// The module with the algebraic rewrites applied in every Func.
pub fn simplify(module: &Module) -> Module {
    let mut out = Module::new();
    for func in module.funcs.values() {
        out.push(simplify_func(func));
    }
    out
}

/// What to do with one equation.
enum Rewrite {
    /// Keep it as it is.
    Keep,
    /// Drop it: its (single) output is this value.
    Forward(Value),
    /// Replace its primitive and inputs.
    Replace(Prim, Vec<Value>),
    /// Compute a new value of the type first (`prim` over `inputs`), then replace the
    /// equation by `then` over that value followed by `with`.
    Split { prim: Prim, inputs: Vec<Value>, ty: Type, then: Prim, with: Vec<Value> },
}

/// `func` with the rewrites applied (the equations they bypass are left for `dce`).
pub(crate) fn simplify_func(func: &Func) -> Func {
    let mut out = func.clone();
    out.eqns.clear();
    let mut map: Vec<Value> = (0..func.value_types.len() as u32).map(Value).collect();
    let mut def: Vec<Option<usize>> = vec![None; func.value_types.len()];
    for eqn in &func.eqns {
        let mut copy = eqn.clone();
        copy.inputs = eqn.inputs.iter().map(|v| map[v.index()]).collect();
        match rewrite(&Ctx { func: &out, def: &def }, &copy.prim, &copy.inputs, &copy.outputs) {
            Rewrite::Forward(v) if copy.outputs.len() == 1 && out.ty(v) == out.ty(copy.outputs[0]) => {
                map[copy.outputs[0].index()] = v;
                continue;
            }
            Rewrite::Replace(prim, inputs) => {
                copy.prim = prim;
                copy.inputs = inputs.into();
            }
            Rewrite::Split { prim, inputs, ty, then, with } => {
                let mid = out.new_value(ty);
                def.push(Some(out.eqns.len()));
                out.eqns.push(Eqn {
                    prim,
                    inputs: inputs.into(),
                    outputs: std::iter::once(mid).collect(),
                    loc: copy.loc.clone(),
                });
                copy.prim = then;
                copy.inputs = std::iter::once(mid).chain(with).collect();
            }
            Rewrite::Keep | Rewrite::Forward(_) => {}
        }
        for o in &copy.outputs {
            def[o.index()] = Some(out.eqns.len());
        }
        out.eqns.push(copy);
    }
    out.results = func.results.iter().map(|r| map[r.index()]).collect();
    out
}

/// The Func being built and where each of its values is defined.
struct Ctx<'a> {
    func: &'a Func,
    def: &'a [Option<usize>],
}

impl Ctx<'_> {
    /// The primitive and inputs defining `v`, if an equation does.
    fn def(&self, v: Value) -> Option<(&Prim, &[Value])> {
        let eqn = &self.func.eqns[self.def.get(v.index()).copied().flatten()?];
        Some((&eqn.prim, &eqn.inputs))
    }

    /// The element of `v` when it is a constant whose elements all have the same bits.
    fn splat(&self, v: Value) -> Option<Array> {
        let (value, _) = self.def(v)?.0.literal()?;
        if value.rank() == 0 { Some(value.clone()) } else { uniform(value) }
    }

    /// `y` when `v = neg(y)`.
    fn negated(&self, v: Value) -> Option<Value> {
        match self.def(v)? {
            (Prim::Unary(UnaryOp::Neg), &[y]) => Some(y),
            _ => None,
        }
    }

    fn is(&self, v: Value, test: fn(&Data) -> bool) -> bool {
        self.splat(v).is_some_and(|a| test(a.data()))
    }
}

fn one(d: &Data) -> bool {
    match d {
        Data::BF16(v) => v[0] == ferrax_ir::array::bf16::ONE,
        Data::F16(v) => v[0] == ferrax_ir::array::f16::ONE,
        Data::F32(v) => v[0].to_bits() == 1.0f32.to_bits(),
        Data::F64(v) => v[0].to_bits() == 1.0f64.to_bits(),
        Data::I32(v) => v[0] == 1,
        Data::Bool(_) => false,
    }
}

fn neg_zero(d: &Data) -> bool {
    match d {
        Data::BF16(v) => v[0].to_bits() == 0x8000,
        Data::F16(v) => v[0].to_bits() == 0x8000,
        Data::F32(v) => v[0].to_bits() == (-0.0f32).to_bits(),
        Data::F64(v) => v[0].to_bits() == (-0.0f64).to_bits(),
        Data::I32(v) => v[0] == 0,
        Data::Bool(_) => false,
    }
}

fn pos_zero(d: &Data) -> bool {
    match d {
        Data::BF16(v) => v[0].to_bits() == 0,
        Data::F16(v) => v[0].to_bits() == 0,
        Data::F32(v) => v[0].to_bits() == 0,
        Data::F64(v) => v[0].to_bits() == 0,
        Data::I32(v) => v[0] == 0,
        Data::Bool(_) => false,
    }
}

/// `x + neg(y) → x - y`, `neg(x) + y → y - x`, `x - neg(y) → x + y` (module docs).
fn fold_negation(cx: &Ctx, op: BinaryOp, x: Value, y: Value) -> Rewrite {
    let binary = |op, a, b| Rewrite::Replace(Prim::Binary(op), vec![a, b]);
    match (op, cx.negated(x), cx.negated(y)) {
        (BinaryOp::Add, _, Some(ny)) => binary(BinaryOp::Sub, x, ny),
        (BinaryOp::Add, Some(nx), None) => binary(BinaryOp::Sub, y, nx),
        (BinaryOp::Sub, _, Some(ny)) => binary(BinaryOp::Add, x, ny),
        _ => Rewrite::Keep,
    }
}

fn rewrite(cx: &Ctx, prim: &Prim, inputs: &[Value], outputs: &[Value]) -> Rewrite {
    let out_ty = |i: usize| cx.func.ty(outputs[i]);
    let in_ty = |i: usize| cx.func.ty(inputs[i]);
    match (prim, inputs) {
        (Prim::Binary(BinaryOp::Mul), &[x, y]) if cx.is(y, one) => Rewrite::Forward(x),
        (Prim::Binary(BinaryOp::Mul), &[x, y]) if cx.is(x, one) => Rewrite::Forward(y),
        (Prim::Binary(BinaryOp::Add), &[x, y]) if cx.is(y, neg_zero) => Rewrite::Forward(x),
        (Prim::Binary(BinaryOp::Add), &[x, y]) if cx.is(x, neg_zero) => Rewrite::Forward(y),
        (Prim::Binary(BinaryOp::Sub), &[x, y]) if cx.is(y, pos_zero) => Rewrite::Forward(x),
        (Prim::Binary(BinaryOp::Div), &[x, y]) if cx.is(y, one) => Rewrite::Forward(x),
        (Prim::Binary(BinaryOp::Mul), &[x, y]) => scale_of_scale(cx, x, y, out_ty(0)),
        (Prim::Binary(op @ (BinaryOp::Add | BinaryOp::Sub)), &[x, y]) => fold_negation(cx, *op, x, y),
        (Prim::Unary(UnaryOp::Neg), &[x]) => match cx.def(x) {
            Some((Prim::Unary(UnaryOp::Neg), &[inner])) => Rewrite::Forward(inner),
            _ => Rewrite::Keep,
        },
        (Prim::Shape(ShapeOp::Reshape { .. }), &[x]) => {
            if in_ty(0) == out_ty(0) {
                return Rewrite::Forward(x);
            }
            match cx.def(x) {
                Some((Prim::Shape(ShapeOp::Reshape { .. }), &[inner])) if cx.func.ty(inner) == out_ty(0) => {
                    Rewrite::Forward(inner)
                }
                Some((Prim::Shape(ShapeOp::Reshape { .. }), &[inner])) => Rewrite::Replace(prim.clone(), vec![inner]),
                _ => Rewrite::Keep,
            }
        }
        (Prim::Shape(ShapeOp::Transpose { perm }), &[x]) => {
            let identity = |p: &[usize]| p.iter().enumerate().all(|(i, &a)| i == a);
            if identity(perm) {
                return Rewrite::Forward(x);
            }
            match cx.def(x) {
                Some((Prim::Shape(ShapeOp::Transpose { perm: first }), &[inner])) if first.len() == perm.len() => {
                    let composed: Vec<usize> = perm.iter().map(|&a| first[a]).collect();
                    if identity(&composed) {
                        Rewrite::Forward(inner)
                    } else {
                        Rewrite::Replace(Prim::transpose_axes(composed), vec![inner])
                    }
                }
                _ => Rewrite::Keep,
            }
        }
        (Prim::Unary(UnaryOp::Convert { dtype }), &[x]) => {
            if in_ty(0).dtype == *dtype {
                return Rewrite::Forward(x);
            }
            match cx.def(x) {
                Some((Prim::Unary(UnaryOp::Convert { dtype: DType::F64 }), &[inner]))
                    if *dtype == DType::F32 && cx.func.ty(inner).dtype == DType::F32 =>
                {
                    Rewrite::Forward(inner)
                }
                _ => Rewrite::Keep,
            }
        }
        (Prim::Ternary(TernaryOp::Select), &[pred, on_true, on_false]) => {
            match cx.splat(pred).map(|a| a.data().clone()) {
                Some(Data::Bool(v)) => Rewrite::Forward(if v[0] { on_true } else { on_false }),
                _ => Rewrite::Keep,
            }
        }
        (Prim::Reduction(ReductionOp::Reduce { op, axes }), &[x]) => reduce_of_broadcast(cx, *op, axes, x),
        (Prim::Shape(ShapeOp::BroadcastInDim { shape, dims }), &[x]) => {
            if let Some(value) = cx.splat(x) {
                return Rewrite::Replace(Prim::constant(value, shape.clone()), vec![]);
            }
            let identity = dims.iter().enumerate().all(|(i, &a)| i == a);
            if identity && in_ty(0) == out_ty(0) { Rewrite::Forward(x) } else { Rewrite::Keep }
        }
        _ => Rewrite::Keep,
    }
}

/// `reduce(broadcast_in_dim(y))` whose reduced axes all come from `y` unexpanded:
/// `broadcast_in_dim(reduce(y))`, the reduction over `y`'s own (smaller) array. Each
/// result element sums (or multiplies, or takes the extreme of) the same terms in the
/// same order of the reduced axes, so the bits are the same; a reduction over an
/// expanded axis is left alone (its repeated terms would become a product, which
/// rounds differently).
fn reduce_of_broadcast(cx: &Ctx, op: ReduceOp, axes: &[usize], x: Value) -> Rewrite {
    let Some((Prim::Shape(ShapeOp::BroadcastInDim { shape, dims }), &[y])) = cx.def(x) else { return Rewrite::Keep };
    let ys = &cx.func.ty(y).shape;
    let mut inner_axes = Vec::with_capacity(axes.len());
    for &a in axes {
        match dims.iter().position(|&d| d == a) {
            Some(i) if ys[i] == shape[a] => inner_axes.push(i),
            _ => return Rewrite::Keep,
        }
    }
    let kept: Vec<usize> = (0..ys.len()).filter(|i| !inner_axes.contains(i)).collect();
    let mid_shape: Vec<usize> = kept.iter().map(|&i| ys[i]).collect();
    let out_shape: Vec<usize> = (0..shape.len()).filter(|a| !axes.contains(a)).map(|a| shape[a]).collect();
    let out_dims: Vec<usize> = kept.iter().map(|&i| dims[i] - axes.iter().filter(|&&a| a < dims[i]).count()).collect();
    let ty = Type::new(cx.func.ty(y).dtype, &mid_shape);
    Rewrite::Split {
        prim: Prim::reduce(op, &inner_axes),
        inputs: vec![y],
        ty,
        then: Prim::Shape(ShapeOp::BroadcastInDim { shape: out_shape.into(), dims: out_dims }),
        with: Vec::new(),
    }
}

/// `c1 * (c2 * x)` (either operand order at either level) as `(c1·c2) * x` when that
/// is exact (module docs): float constants, `c2 = ±2^k` with `k ≥ 0`, `|c1| ≥ 1`, and
/// `c1·c2` finite.
fn scale_of_scale(cx: &Ctx, a: Value, b: Value, ty: &Type) -> Rewrite {
    let split = |u: Value, v: Value| match (cx.splat(u), cx.splat(v)) {
        (Some(c), None) => Some((c, v)),
        (None, Some(c)) => Some((c, u)),
        _ => None,
    };
    let Some((c1, inner)) = split(a, b) else { return Rewrite::Keep };
    let Some((Prim::Binary(BinaryOp::Mul), &[p, q])) = cx.def(inner) else { return Rewrite::Keep };
    let Some((c2, x)) = split(p, q) else { return Rewrite::Keep };
    let scaled = |c1: f64, c2: f64| {
        let exact_power = c2.is_finite() && c2.abs() >= 1.0 && c2.abs().to_bits() & ((1u64 << 52) - 1) == 0;
        (exact_power && c1.is_finite() && c1.abs() >= 1.0).then_some(c1 * c2)
    };
    let value = match (c1.data(), c2.data()) {
        (Data::F64(u), Data::F64(v)) => scaled(u[0], v[0]).filter(|p| p.is_finite()).map(Array::scalar_f64),
        (Data::F32(u), Data::F32(v)) => {
            scaled(f64::from(u[0]), f64::from(v[0])).map(|p| p as f32).filter(|p| p.is_finite()).map(Array::scalar_f32)
        }
        _ => None,
    };
    match value {
        Some(c) => Rewrite::Split {
            prim: Prim::constant(c, ty.shape.clone()),
            inputs: Vec::new(),
            ty: ty.clone(),
            then: Prim::Binary(BinaryOp::Mul),
            with: vec![x],
        },
        None => Rewrite::Keep,
    }
}
