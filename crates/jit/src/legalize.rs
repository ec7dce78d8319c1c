//! bf16 and f16 programs made into f32 programs that round where the 16-bit types
//! round, before `opt`, fusion and planning: Cranelift has no 16-bit float arithmetic
//! on x86-64, so the JIT computes every 16-bit value in f32, as the interpreter does.
//!
//! Every bf16/f16 value inside the program becomes an f32 holding the same number.
//! Where the interpreter rounds (a 16-bit result of an equation with arithmetic: a
//! property-table row with flops, a `convert` to a 16-bit type, an `iota` of one), the
//! equation computes in f32 and a `convert` to the 16-bit type and back rounds it; the
//! two fuse into the kernel of their producer, so the 16-bit value lives in registers.
//! Data movement and structured equations move the f32 values unchanged (exact: every
//! 16-bit number is an f32). A 16-bit literal is widened. A 16-bit `pmean`, which the
//! vmap form computes as the psum rounded to 16 bits and then divided, becomes that: a
//! psum in f32, its rounding, and a division by the members (a psum of 1, since the
//! workers' count is known only when the program runs). The entry keeps its 16-bit
//! parameters and results, converted on the way in and out, so callers pass and get
//! the 16-bit arrays and the kernels read and write 16-bit memory there.

use ferrax_ir::prim::{BinaryOp, CollectiveOp, Flops, ShapeOp};
use ferrax_ir::{Array, DType, Eqn, Func, Module, Prim, Type, Value};
use std::collections::HashMap;

/// `module` with every 16-bit float computed in f32 and rounded as above; the module
/// itself when it has none.
pub(crate) fn half_to_f32(module: &Module) -> Module {
    let has_half = module.funcs.values().any(|f| f.value_types.iter().any(|t| t.dtype.is_half()));
    if !has_half {
        return module.clone();
    }
    let entry = module.entry().map(|f| f.name.clone()).unwrap_or_default();
    let mut out = Module::new();
    for func in module.funcs.values() {
        out.push(legalize_func(func, func.name == entry));
    }
    out
}

/// The f32 form of a type (16-bit floats widened).
fn wide(t: &Type) -> Type {
    if t.dtype.is_half() { Type::new(DType::F32, &t.shape) } else { t.clone() }
}

/// One Func; the entry (`keep_signature`) converts its 16-bit parameters and results.
fn legalize_func(f: &Func, keep_signature: bool) -> Func {
    let mut g = f.clone();
    g.value_types = f.value_types.iter().map(wide).collect();
    g.eqns = Vec::with_capacity(f.eqns.len());
    let mut subst: HashMap<Value, Value> = HashMap::new();
    if keep_signature {
        for &p in &f.params {
            let t = f.ty(p);
            if t.dtype.is_half() {
                g.value_types[p.index()] = t.clone();
                let w = g.new_value(wide(t));
                g.eqns.push(convert(p, w, DType::F32, None));
                subst.insert(p, w);
            }
        }
    } else {
        g.result_types = f.result_types.iter().map(wide).collect();
    }
    for eqn in &f.eqns {
        let mut e = eqn.clone();
        e.inputs = e.inputs.iter().map(|v| *subst.get(v).unwrap_or(v)).collect();
        if let Some(mean) = half_pmean(f, &mut g, &e) {
            e = mean;
        }
        let converts_to_half = e.prim.convert_dtype().is_some_and(DType::is_half);
        // The operands are f32 now: a 16-bit `preferred` is the f32 product, rounded
        // like any other 16-bit result below.
        let contraction = if let Some(preferred) = e.prim.preferred_mut() {
            *preferred = preferred.filter(|d| !d.is_half());
            true
        } else {
            false
        };
        let rounds = match &mut e.prim {
            prim if prim.convert_dtype().is_some() => converts_to_half,
            _ if contraction => true,
            Prim::Shape(ShapeOp::Iota { dtype, .. }) if dtype.is_half() => {
                *dtype = DType::F32;
                true
            }
            Prim::Shape(ShapeOp::Constant { value, .. }) => {
                if let Some(widened) = value.data().widen_half() {
                    *value = Array::new(value.shape(), ferrax_ir::array::Data::F32(widened)).unwrap_or(value.clone());
                }
                false
            }
            prim => prim.props().flops != Flops::None && !matches!(prim, Prim::Control(_)),
        };
        let outputs = e.outputs.clone();
        let at = e.loc.clone();
        // A `convert` to a 16-bit type keeps its 16-bit result; the rest compute in f32.
        g.eqns.push(e);
        for &o in &outputs {
            let original = f.ty(o);
            if !(rounds && original.dtype.is_half()) {
                continue;
            }
            let widened = if converts_to_half {
                g.value_types[o.index()] = original.clone();
                o
            } else {
                let h = g.new_value(original.clone());
                g.eqns.push(convert(o, h, original.dtype, at.clone()));
                h
            };
            let r = g.new_value(wide(original));
            g.eqns.push(convert(widened, r, DType::F32, at.clone()));
            subst.insert(o, r);
        }
    }
    g.results = f.results.iter().map(|v| *subst.get(v).unwrap_or(v)).collect();
    if keep_signature {
        for (i, t) in f.result_types.iter().enumerate() {
            if t.dtype.is_half() {
                let h = g.new_value(t.clone());
                g.eqns.push(convert(g.results[i], h, t.dtype, None));
                g.results[i] = h;
            }
        }
    }
    g
}

/// A `pmean` of a 16-bit operand, whose vmap form divides the psum as rounded to the
/// 16-bit type: the psum in f32 and its rounding pushed onto `g`, and the division by
/// the number of members (a psum of 1) returned in place of the pmean, to be rounded
/// like any 16-bit result.
fn half_pmean(f: &Func, g: &mut Func, e: &Eqn) -> Option<Eqn> {
    let Prim::Collective(CollectiveOp::Pmean { axes }) = &e.prim else { return None };
    let (&[x], &[out]) = (&e.inputs[..], &e.outputs[..]) else { return None };
    let half = f.ty(out).dtype;
    if !half.is_half() {
        return None;
    }
    let shape = g.ty(x).shape.clone();
    let psum = Prim::Collective(CollectiveOp::Psum { axes: axes.clone() });
    let push = |g: &mut Func, prim: Prim, inputs: &[Value], ty: Type| {
        let v = g.new_value(ty);
        g.eqns.push(Eqn {
            prim,
            inputs: inputs.iter().copied().collect(),
            outputs: [v].into_iter().collect(),
            loc: e.loc.clone(),
        });
        v
    };
    let sum = push(g, psum.clone(), &[x], Type::new(DType::F32, &shape));
    let rounded = push(g, Prim::convert(half), &[sum], Type::new(half, &shape));
    let sum = push(g, Prim::convert(DType::F32), &[rounded], Type::new(DType::F32, &shape));
    let one = Prim::constant(Array::scalar_f32(1.0), ferrax_ir::Shape::new());
    let one = push(g, one, &[], Type::new(DType::F32, &[]));
    let members = push(g, psum, &[one], Type::new(DType::F32, &[]));
    let spread = Prim::broadcast_in_dim(shape.clone(), Vec::new());
    let members = push(g, spread, &[members], Type::new(DType::F32, &shape));
    let prim = Prim::Binary(BinaryOp::Div);
    Some(Eqn { prim, inputs: [sum, members].into_iter().collect(), outputs: e.outputs.clone(), loc: e.loc.clone() })
}

/// The equation `to = convert[dtype](from)`.
fn convert(from: Value, to: Value, dtype: DType, loc: Option<std::sync::Arc<str>>) -> Eqn {
    Eqn { prim: Prim::convert(dtype), inputs: [from].into_iter().collect(), outputs: [to].into_iter().collect(), loc }
}
