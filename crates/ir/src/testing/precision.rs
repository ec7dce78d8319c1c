//! Whole-module precision changes, for oracles that judge a float result by how far
//! rounding could have moved it rather than by a fixed tolerance.
//!
//! - [`retype_floats`] rewrites every occurrence of one float dtype into another (value
//!   types, signatures, constants, `convert`/`iota` targets, dtype attributes):
//!   [`widen`] turns an f32 program into the same program in f64, whose result is a
//!   reference far more accurate than either backend's f32 result.
//! - [`perturb`] inserts, after every equation that rounds (and before every sum that
//!   reassociates), a multiplication of its float result by `1 ± a few ulps`, a fresh
//!   sign per element. Evaluated in the original precision, the perturbed program is
//!   another plausible evaluation of the same program: its distance to the reference
//!   measures how much the program amplifies rounding at each element (cancellation,
//!   poles, near-ties of comparisons and roundings), which a single evaluation can
//!   underestimate by luck.

use super::Rng;
use crate::attr::AttrValue;
use crate::prim::{BinaryOp, UnaryOp};
use crate::prim::{ControlOp, ConvOp, IndexOp, LinalgOp, MemoryOp, RandomOp, ReductionOp, ShapeOp, SortOp, TernaryOp};
use crate::prim::{WindowOp, WindowReduce};
use crate::{Eqn, Func, Module, Prim, Type, Value};
use ferrax_array::{Array, DType, Data};
use smallvec::SmallVec;

/// `module` with every `from` float replaced by `to` (both float dtypes): value types,
/// parameter and result types, constants (converted element by element, rounding when
/// narrowing), the targets of `convert` and `iota`, and dtype attributes of Funcs. The
/// result is verified; an error says why it does not type-check.
pub fn retype_floats(module: &Module, from: DType, to: DType) -> Result<Module, String> {
    if !from.is_float() || !to.is_float() {
        return Err(format!("retype_floats maps a float dtype to a float dtype, not {from} to {to}"));
    }
    let map = |d: DType| if d == from { to } else { d };
    let map_type = |t: &Type| Type { dtype: map(t.dtype), shape: t.shape.clone() };
    let mut out = Module::new();
    for func in module.funcs.values() {
        let mut f = func.clone();
        f.value_types = func.value_types.iter().map(map_type).collect();
        f.result_types = func.result_types.iter().map(map_type).collect();
        f.attrs = func.attrs.iter().map(|(k, v)| (k.clone(), retype_attr(v, &map))).collect();
        for eqn in &mut f.eqns {
            eqn.prim = retype_prim(&eqn.prim, from, to, &map);
        }
        out.push(f);
    }
    crate::verify(&out).map_err(|e| format!("the {from}→{to} program does not verify: {e}"))?;
    Ok(out)
}

/// `module` in f64 where it computed in f32 ([`retype_floats`] from f32 to f64).
pub fn widen(module: &Module) -> Result<Module, String> {
    retype_floats(module, DType::F32, DType::F64)
}

/// `a` converted to `to` when its dtype is `from` (exact from f32 to f64, rounded to
/// nearest the other way); other arrays unchanged.
pub fn retype_array(a: &Array, from: DType, to: DType) -> Array {
    if a.dtype() != from || from == to {
        return a.clone();
    }
    let data = match (a.data(), to) {
        (Data::F32(v), DType::F64) => Data::F64(v.iter().map(|&x| f64::from(x)).collect()),
        (Data::F64(v), DType::F32) => Data::F32(v.iter().map(|&x| x as f32).collect()),
        _ => return a.clone(),
    };
    Array::new(a.shape(), data).unwrap_or_else(|_| a.clone())
}

fn retype_attr(v: &AttrValue, map: &impl Fn(DType) -> DType) -> AttrValue {
    match v {
        AttrValue::DType(d) => AttrValue::DType(map(*d)),
        AttrValue::List(items) => AttrValue::List(items.iter().map(|i| retype_attr(i, map)).collect()),
        other => other.clone(),
    }
}

/// The primitive with its dtype-bearing parameters mapped. Every variant is listed, so
/// a new primitive with a dtype parameter cannot be forgotten here.
fn retype_prim(prim: &Prim, from: DType, to: DType, map: &impl Fn(DType) -> DType) -> Prim {
    match prim {
        Prim::Unary(UnaryOp::Convert { dtype }) => Prim::Unary(UnaryOp::Convert { dtype: map(*dtype) }),
        Prim::Shape(ShapeOp::Iota { dtype, shape, dim }) => {
            Prim::Shape(ShapeOp::Iota { dtype: map(*dtype), shape: shape.clone(), dim: *dim })
        }
        Prim::Shape(ShapeOp::Constant { value, shape }) => {
            Prim::Shape(ShapeOp::Constant { value: retype_array(value, from, to), shape: shape.clone() })
        }
        Prim::Reduction(ReductionOp::ArgReduce { op, axis, index_dtype }) => {
            Prim::Reduction(ReductionOp::ArgReduce { op: *op, axis: *axis, index_dtype: map(*index_dtype) })
        }
        Prim::Unary(_)
        | Prim::Name { .. }
        | Prim::Binary(_)
        | Prim::Compare(_)
        | Prim::Ternary(TernaryOp::Select)
        | Prim::Ternary(TernaryOp::Clamp)
        | Prim::Shape(ShapeOp::BroadcastInDim { .. })
        | Prim::Shape(ShapeOp::Reshape { .. })
        | Prim::Shape(ShapeOp::Transpose { .. })
        | Prim::Shape(ShapeOp::Rev { .. })
        | Prim::Shape(ShapeOp::Slice { .. })
        | Prim::Shape(ShapeOp::Pad { .. })
        | Prim::Shape(ShapeOp::Concatenate { .. })
        | Prim::Index(IndexOp::DynamicSlice { .. })
        | Prim::Index(IndexOp::DynamicUpdateSlice)
        | Prim::Index(IndexOp::Gather { .. })
        | Prim::Index(IndexOp::ScatterAdd { .. })
        | Prim::Reduction(ReductionOp::Reduce { .. })
        | Prim::Reduction(ReductionOp::Cumsum { .. })
        | Prim::Reduction(ReductionOp::Cummax { .. })
        | Prim::Reduction(ReductionOp::Cummin { .. })
        | Prim::Linalg(LinalgOp::DotGeneral(_))
        | Prim::Linalg(LinalgOp::Cholesky)
        | Prim::Linalg(LinalgOp::TriangularSolve(_))
        | Prim::Linalg(LinalgOp::Eigh(_))
        | Prim::Linalg(LinalgOp::Lu)
        | Prim::Linalg(LinalgOp::Qr(_))
        | Prim::Linalg(LinalgOp::Svd(_))
        | Prim::Random(RandomOp::RandomBits { .. })
        | Prim::Memory(MemoryOp::Offload)
        | Prim::Memory(MemoryOp::Reload)
        | Prim::Sort(SortOp::Sort { .. })
        | Prim::Sort(SortOp::TopK { .. })
        | Prim::Control(ControlOp::Call { .. })
        | Prim::Control(ControlOp::Cond { .. })
        | Prim::Control(ControlOp::While { .. })
        | Prim::Control(ControlOp::Scan(_))
        | Prim::Control(ControlOp::CustomJvp { .. })
        | Prim::Control(ControlOp::CustomVjp { .. })
        | Prim::Control(ControlOp::Remat { .. })
        | Prim::Control(ControlOp::CustomLinearSolve(_))
        | Prim::Control(ControlOp::CustomRoot(_))
        | Prim::Conv(ConvOp::ConvGeneralDilated(_))
        | Prim::Window(WindowOp::ReduceWindow { .. })
        | Prim::Window(WindowOp::SelectAndGatherAdd { .. })
        | Prim::Window(WindowOp::SelectAndScatterAdd { .. })
        | Prim::Collective(_) => prim.clone(),
    }
}

/// Whether `prim` rounds its float result (exact data movement, selection, sign and
/// integer rounding do not), and which of its operands a sum reassociates over (their
/// rounding inside the sum is modelled by perturbing them).
fn rounding(prim: &Prim) -> (bool, &'static [usize]) {
    match prim {
        Prim::Unary(UnaryOp::IntegerPow { .. }) | Prim::Unary(UnaryOp::Convert { .. }) => (true, &[]),
        Prim::Unary(op) => (
            !matches!(
                op,
                UnaryOp::StopGradient
                    | UnaryOp::Neg
                    | UnaryOp::Abs
                    | UnaryOp::Sign
                    | UnaryOp::Floor
                    | UnaryOp::Ceil
                    | UnaryOp::Round
                    | UnaryOp::Not
                    | UnaryOp::IsFinite
            ),
            &[],
        ),
        Prim::Binary(op) => (
            matches!(
                op,
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Pow | BinaryOp::Atan2
            ),
            &[],
        ),
        // Sums of window terms in one fixed order: their rounding is relative to the
        // terms, as a reassociated sum's is.
        Prim::Window(WindowOp::ReduceWindow { op: WindowReduce::Sum, .. } | WindowOp::SelectAndScatterAdd { .. }) => {
            (true, &[0])
        }
        _ if !prim.props().reassociates_over.is_empty() => (true, prim.props().reassociates_over),
        _ => (false, &[]),
    }
}

/// `module` with every rounding float result (and every float operand of a sum that
/// reassociates: reductions, cumsum, dot_general, scatter_add) multiplied by
/// `1 + s·ε`, one factor per element: `s` a random sign (from `seed`) and `ε` uniform in
/// `[ulps, 2·ulps]` units of the dtype's machine epsilon (2^-23 for f32, 2^-52 for f64).
/// Evaluated in the module's own dtypes, each rounding thus moves by `ulps` to `4·ulps`
/// ulps (depending on where the value sits in its binade) in a random direction. Integer and bool values are untouched.
pub fn perturb(module: &Module, seed: u64, ulps: f64) -> Module {
    let mut rng = Rng::new(seed ^ 0x9E27_0B1C);
    let mut out = Module::new();
    for func in module.funcs.values() {
        out.push(perturb_func(func, &mut rng, ulps));
    }
    out
}

fn perturb_func(func: &Func, rng: &mut Rng, ulps: f64) -> Func {
    let mut f = Func { eqns: Vec::with_capacity(func.eqns.len() * 2), ..func.clone() };
    // What each original value reads as after the perturbations so far.
    let mut now: Vec<Value> = (0..func.value_types.len() as u32).map(Value).collect();
    for eqn in &func.eqns {
        let (rounds, operands) = rounding(&eqn.prim);
        let mut inputs: SmallVec<[Value; 4]> = eqn.inputs.iter().map(|v| now[v.index()]).collect();
        for &k in operands {
            if let Some(v) = inputs.get(k).copied()
                && f.ty(v).dtype.is_float()
            {
                inputs[k] = scaled(&mut f, v, rng, ulps);
            }
        }
        f.eqns.push(Eqn { prim: eqn.prim.clone(), inputs: inputs.into_iter().collect(), ..eqn.clone() });
        if rounds {
            for &o in &eqn.outputs {
                if f.ty(o).dtype.is_float() {
                    now[o.index()] = scaled(&mut f, o, rng, ulps);
                }
            }
        }
    }
    f.results = func.results.iter().map(|v| now[v.index()]).collect();
    f
}

/// Appends `v · c` with a constant `c` of per-element factors `1 ± ε` to `f`.
fn scaled(f: &mut Func, v: Value, rng: &mut Rng, ulps: f64) -> Value {
    let ty = f.ty(v).clone();
    let n = ty.element_count().unwrap_or(0);
    let unit = match ty.dtype {
        DType::F32 => f64::from(f32::EPSILON),
        DType::BF16 => f64::from(ferrax_array::bf16::EPSILON),
        DType::F16 => f64::from(ferrax_array::f16::EPSILON),
        _ => f64::EPSILON,
    };
    let mut factor = || {
        let eps = ulps * unit * (1.0 + (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64);
        if rng.chance(50) { 1.0 + eps } else { 1.0 - eps }
    };
    let factors: Vec<f64> = (0..n).map(|_| factor()).collect();
    let data = Data::from_f64s(ty.dtype, &factors);
    let Ok(value) = Array::new(ty.shape.clone(), data) else { return v };
    let c = f.new_value(ty.clone());
    f.eqns.push(Eqn {
        prim: Prim::Shape(ShapeOp::Constant { value, shape: ty.shape.clone() }),
        inputs: SmallVec::new(),
        outputs: [c].into_iter().collect(),
        loc: None,
    });
    let out = f.new_value(ty);
    f.eqns.push(Eqn {
        prim: Prim::Binary(BinaryOp::Mul),
        inputs: [v, c].into_iter().collect(),
        outputs: [out].into_iter().collect(),
        loc: None,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{GenConfig, random_inputs, random_module};
    use crate::{EvalOptions, eval_entry, parse, print};

    fn opts() -> EvalOptions {
        EvalOptions { fuel: Some(5000), budget: ferrax_array::Budget::new(64 << 20), ..Default::default() }
    }

    #[test]
    fn widening_changes_every_f32_and_nothing_else() {
        let text = "func @main(%x: f32[3], %n: i32[3]) -> (f32[3], f64[3], i32[3]) {
  %c: f32[3] = constant[value=0.1]()
  %i: f32[3] = iota[dtype=f32, shape=[3], dim=0]()
  %y: f32[3] = mul(%x, %i)
  %z: f32[3] = add(%y, %c)
  %w: f64[3] = convert[dtype=f64](%z)
  %m: i32[3] = convert[dtype=i32](%z)
  %k: i32[3] = add(%m, %n)
  return %z, %w, %k
}
";
        let module = parse(text).unwrap();
        let wide = widen(&module).unwrap();
        let printed = print(&wide);
        assert!(!printed.contains("f32"), "{printed}");
        assert!(printed.contains("iota[dtype=f64"), "{printed}");
        assert!(printed.contains("i32[3]"), "{printed}");
        // 0.1f32 widens exactly: the f64 constant is 0.1f32's value, not 0.1.
        let Prim::Shape(ShapeOp::Constant { value, .. }) = &wide.entry().unwrap().eqns[0].prim else {
            panic!("{printed}")
        };
        assert_eq!(value.as_f64().unwrap()[0], f64::from(0.1f32));
        let args =
            [Array::from_f32(&[3], vec![1.5, -2.0, 3.25]).unwrap(), Array::from_i32(&[3], vec![1, 2, 3]).unwrap()];
        let wide_args: Vec<Array> = args.iter().map(|a| retype_array(a, DType::F32, DType::F64)).collect();
        let got = eval_entry(&wide, &wide_args, &opts()).unwrap();
        assert_eq!(got[0].dtype(), DType::F64);
        assert_eq!(got[0].as_f64().unwrap()[2], 3.25 * 2.0 + f64::from(0.1f32));
        assert_eq!(got[2].as_i32().unwrap(), &[1, 1, 9]);
        // Narrowing the widened program gives the narrowed original: nothing was lost.
        let back = retype_floats(&wide, DType::F64, DType::F32).unwrap();
        let narrow = retype_floats(&module, DType::F64, DType::F32).unwrap();
        assert_eq!(print(&back), print(&narrow));
        assert!(print(&narrow).contains("f32[3] = convert[dtype=f32]"), "{}", print(&narrow));
        assert!(retype_floats(&module, DType::F32, DType::I32).is_err());
    }

    #[test]
    fn widened_and_perturbed_generated_programs_verify_and_run() {
        let config = GenConfig::default();
        let mut ran = 0;
        for seed in 0..200 {
            let module = random_module(seed, &config);
            let wide = widen(&module).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", print(&module)));
            let mut rng = Rng::new(seed);
            let args = random_inputs(module.entry().unwrap(), &mut rng, false);
            let wide_args: Vec<Array> = args.iter().map(|a| retype_array(a, DType::F32, DType::F64)).collect();
            let shaken = perturb(&module, seed, 1.0);
            crate::verify(&shaken).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", print(&shaken)));
            let (Ok(want), Ok(wide_out), Ok(shaken_out)) = (
                eval_entry(&module, &args, &opts()),
                eval_entry(&wide, &wide_args, &opts()),
                eval_entry(&shaken, &args, &opts()),
            ) else {
                continue;
            };
            ran += 1;
            for ((w, x), s) in want.iter().zip(&wide_out).zip(&shaken_out) {
                assert_eq!(w.shape(), x.shape(), "seed {seed}");
                assert_eq!(w.dtype(), s.dtype(), "seed {seed}");
                let expect = if w.dtype() == DType::F32 { DType::F64 } else { w.dtype() };
                assert_eq!(x.dtype(), expect, "seed {seed}");
            }
        }
        assert!(ran > 100, "only {ran} programs ran");
    }

    #[test]
    fn perturbation_moves_rounded_results_by_a_few_ulps_and_leaves_exact_ones() {
        let text = "func @main(%x: f32[1000]) -> (f32[1000], f32[1000], f32[]) {
  %y: f32[1000] = exp(%x)
  %z: f32[1000] = neg(%x)
  %s: f32[] = reduce_sum[axes=[0]](%x)
  return %y, %z, %s
}
";
        let module = parse(text).unwrap();
        let x = Array::from_f32(&[1000], (0..1000).map(|i| (i as f32) / 400.0 - 1.0).collect()).unwrap();
        let want = eval_entry(&module, std::slice::from_ref(&x), &opts()).unwrap();
        let got = eval_entry(&perturb(&module, 7, 1.0), std::slice::from_ref(&x), &opts()).unwrap();
        let (w, g) = (want[0].as_f32().unwrap(), got[0].as_f32().unwrap());
        let moved = w.iter().zip(g).filter(|(a, b)| a != b).count();
        assert!(moved > 900, "only {moved} of 1000 exp results moved");
        for (a, b) in w.iter().zip(g) {
            let ulps = (a.to_bits() as i64 - b.to_bits() as i64).abs();
            assert!(ulps <= 5, "{a} moved to {b}");
        }
        assert_eq!(want[1].as_f32(), got[1].as_f32(), "neg is exact and stays");
        assert_ne!(want[2].as_f32(), got[2].as_f32(), "the summands of a reduction move");
    }
}
