//! The jvp rules of the primitive families, checked one primitive at a time.
//!
//! A tiny forward-mode driver (below) applies `Prim::jvp` to every equation of a
//! straight-line Func. Each case builds a one-equation Func and checks, for every
//! non-empty set of differentiated float operands:
//!
//! - at f64, the tangents against central finite differences `(f(x+hv) - f(x-hv)) / 2h`;
//! - at f32, the same rule built for f32 against the f64 tangents;
//! - the jvp of the jvp (second order, differentiating the primal inputs with the
//!   tangents held) against finite differences of the first jvp, which checks that the
//!   rules emit only primitives whose own rules are right.
//!
//! Further tests pin down the special points (ties, zeros) and the symbolic zeros: a
//! zero tangent costs no equation.

use ferrax_ir::prim::ad::{JvpContext, JvpFunc};
use ferrax_ir::prim::{ArgOp, BinaryOp, CompareOp, DotDims, ReduceOp, UnaryOp};
use ferrax_ir::prim::{IndexOp, LinalgOp, ReductionOp, ShapeOp, TernaryOp};
use ferrax_ir::{Array, Builder, DType, Emitter, EvalOptions, Func, Module, Prim, Shape, Type, Value};
use std::collections::HashMap;

/// A context for straight-line Funcs: no structured primitive, so no bodies.
struct NoBodies {
    module: Module,
}

impl JvpContext for NoBodies {
    fn module(&self) -> &Module {
        &self.module
    }

    fn jvp_func(&mut self, name: &str, _nonzero: &[bool], _instantiate: &[bool]) -> Result<JvpFunc, String> {
        Err(format!("these tests have no bodies to transform (asked for @{name})"))
    }

    fn scan_body_jvp(&mut self, name: &str, _: [usize; 3], _: &[bool], _: usize, _: &[bool]) -> Result<String, String> {
        Err(format!("these tests have no scan bodies (asked for @{name})"))
    }
}

/// Forward mode over a straight-line Func: params `(params..., tangents of the params
/// marked in nonzero...)`, results `(results..., tangents of the float results...)`,
/// zero tangents instantiated at the results only.
fn jvp(func: &Func, nonzero: &[bool]) -> Func {
    let mut em = Emitter::new(format!("{}_jvp", func.name));
    let mut cx = NoBodies { module: Module::new() };
    let mut primal: HashMap<Value, Value> = HashMap::new();
    let mut tangent: HashMap<Value, Value> = HashMap::new();
    for &p in &func.params {
        primal.insert(p, em.param(func.ty(p).clone()));
    }
    for (&p, &nz) in func.params.iter().zip(nonzero) {
        if nz {
            assert!(func.ty(p).dtype.is_float(), "only float params have tangents");
            tangent.insert(p, em.param(func.ty(p).clone()));
        }
    }
    for eqn in &func.eqns {
        let inputs: Vec<Value> = eqn.inputs.iter().map(|v| primal[v]).collect();
        let outputs = em.eqn(&cx.module, eqn.prim.clone(), &inputs).unwrap();
        let tangents: Vec<Option<Value>> = eqn.inputs.iter().map(|v| tangent.get(v).copied()).collect();
        if tangents.iter().any(Option::is_some) {
            let touts = eqn.prim.jvp(&mut em, &mut cx, &inputs, &outputs, &tangents).unwrap_or_else(|e| {
                panic!("jvp of {}: {e}", eqn.prim.name());
            });
            assert_eq!(touts.len(), outputs.len());
            for ((&out, &new_out), t) in eqn.outputs.iter().zip(&outputs).zip(touts) {
                if let Some(t) = t {
                    assert_eq!(em.ty(t), em.ty(new_out), "jvp of {}: tangent type", eqn.prim.name());
                    tangent.insert(out, t);
                }
            }
        }
        for (&out, new_out) in eqn.outputs.iter().zip(outputs) {
            primal.insert(out, new_out);
        }
    }
    let mut results: Vec<Value> = func.results.iter().map(|r| primal[r]).collect();
    for r in &func.results {
        let ty = func.ty(*r).clone();
        if ty.dtype.is_float() {
            results.push(match tangent.get(r) {
                Some(&t) => t,
                None => em.zeros(&ty).unwrap(),
            });
        }
    }
    em.finish(&results)
}

/// Checks that every equation of a jvp Func that depends on the tangents (its params
/// after the first `n_primals`) is one the transpose pass can handle: a linear
/// primitive, `mul`/`dot_general` with one tangent operand, `div` with a tangent
/// numerator only, or `select` with a primal predicate.
fn assert_linear_in_tangents(func: &Func, n_primals: usize) {
    let mut linear: Vec<bool> = vec![false; func.value_types.len()];
    for &p in &func.params[n_primals..] {
        linear[p.index()] = true;
    }
    for eqn in &func.eqns {
        let is_linear: Vec<bool> = eqn.inputs.iter().map(|v| linear[v.index()]).collect();
        if !is_linear.contains(&true) {
            continue;
        }
        let name = eqn.prim.name();
        let ok = match name {
            "add"
            | "sub"
            | "neg"
            | "convert"
            | "broadcast_in_dim"
            | "reshape"
            | "transpose"
            | "rev"
            | "slice"
            | "pad"
            | "concatenate"
            | "dynamic_slice"
            | "dynamic_update_slice"
            | "gather"
            | "scatter_add"
            | "reduce_sum"
            | "cumsum" => true,
            "mul" | "dot_general" => is_linear == [true, false] || is_linear == [false, true],
            "div" => is_linear == [true, false],
            "select" => !is_linear[0],
            _ => false,
        };
        assert!(ok, "{}: {name} with tangent operands {is_linear:?} is not transposable", func.name);
        for out in &eqn.outputs {
            linear[out.index()] = true;
        }
    }
}

/// Runs a Func, after checking that it verifies.
fn run(func: &Func, args: &[Array]) -> Vec<Array> {
    let mut module = Module::new();
    module.push(func.clone());
    ferrax_ir::verify(&module).unwrap_or_else(|e| panic!("{e}\n{}", ferrax_ir::print(&module)));
    ferrax_ir::eval(&module, &func.name, args, &EvalOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n{}", ferrax_ir::print(&module)))
}

/// An operand of a case: floats are given as f64 and rounded to f32 values, so that
/// the f32 and f64 versions of a case see the same numbers.
#[derive(Clone)]
enum Arg {
    Float(Vec<usize>, Vec<f64>),
    Int(Array),
}

fn floats(shape: &[usize], values: &[f64]) -> Arg {
    Arg::Float(shape.to_vec(), values.iter().map(|&v| f64::from(v as f32)).collect())
}

fn ints(shape: &[usize], values: &[i32]) -> Arg {
    Arg::Int(Array::from_i32(shape, values.to_vec()).unwrap())
}

fn bools(shape: &[usize], values: &[bool]) -> Arg {
    Arg::Int(Array::from_bool(shape, values.to_vec()).unwrap())
}

fn scalar_index(i: i32) -> Arg {
    Arg::Int(Array::scalar_i32(i))
}

impl Arg {
    fn is_float(&self) -> bool {
        matches!(self, Arg::Float(..))
    }

    fn ty(&self, dtype: DType) -> Type {
        match self {
            Arg::Float(shape, _) => Type::new(dtype, shape),
            Arg::Int(a) => Type::new(a.dtype(), a.shape()),
        }
    }

    /// The value at `dtype` (floats), moved by `step * direction`.
    fn array(&self, dtype: DType, direction: Option<&[f64]>, step: f64) -> Array {
        match self {
            Arg::Float(shape, values) => {
                let moved: Vec<f64> = match direction {
                    Some(d) => values.iter().zip(d).map(|(x, v)| x + step * v).collect(),
                    None => values.clone(),
                };
                float_array(dtype, shape, &moved)
            }
            Arg::Int(a) => a.clone(),
        }
    }

    /// A fixed direction of the float operand `which`: odd multiples of 1/16 in [-15/16, 17/16], never 0.
    fn direction(&self, which: usize) -> Vec<f64> {
        match self {
            Arg::Float(_, values) => {
                (0..values.len()).map(|k| (2 * ((which * 7 + k * 5 + 3) % 17) + 1) as f64 / 16.0 - 1.0).collect()
            }
            Arg::Int(_) => Vec::new(),
        }
    }
}

fn float_array(dtype: DType, shape: &[usize], values: &[f64]) -> Array {
    match dtype {
        DType::F32 => Array::from_f32(shape, values.iter().map(|&v| v as f32).collect()).unwrap(),
        DType::F64 => Array::from_f64(shape, values.to_vec()).unwrap(),
        DType::BF16 | DType::F16 => {
            let wide: Vec<f32> = values.iter().map(|&v| v as f32).collect();
            Array::new(shape, ferrax_ir::array::Data::narrow_half(&wide, dtype).unwrap()).unwrap()
        }
        DType::I32 | DType::Bool => panic!("not a float dtype: {dtype}"),
    }
}

/// The one-equation Func `prim(args...)` with floats at `dtype`.
fn primal(prim: &Prim, args: &[Arg], dtype: DType) -> Func {
    let mut b = Builder::new(prim.name());
    let params: Vec<Value> = args.iter().map(|a| b.param(a.ty(dtype))).collect();
    let outs = b.eqn(prim.clone(), &params).unwrap();
    b.finish(&outs)
}

/// Asserts `got` is within `rtol` of `want` (relative to `max(|want|, floor)`).
fn assert_close(what: &str, got: &[f64], want: &[f64], rtol: f64, floor: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let tolerance = rtol * w.abs().max(g.abs()).max(floor);
        assert!((g - w).abs() <= tolerance, "{what}: element {i}: got {g}, want {w} (tolerance {tolerance})");
    }
}

const H: f64 = 1e-6;

/// The checks of the module docs for `prim` at `args`; `second_order` also checks the
/// jvp of the jvp.
fn check_case(prim: &Prim, args: &[Arg], second_order: bool) {
    let name = prim.name();
    let float_args: Vec<usize> = (0..args.len()).filter(|&i| args[i].is_float()).collect();
    let f64_func = primal(prim, args, DType::F64);
    let f32_func = primal(prim, args, DType::F32);
    let float_outs: Vec<usize> =
        (0..f64_func.results.len()).filter(|&k| f64_func.result_types[k].dtype.is_float()).collect();
    let n_out = f64_func.results.len();
    for subset in 1..(1u32 << float_args.len()) {
        let nonzero: Vec<bool> = (0..args.len())
            .map(|i| float_args.iter().position(|&f| f == i).is_some_and(|p| subset >> p & 1 == 1))
            .collect();
        let what = format!("{name} with tangents of operands {nonzero:?}");
        let directions: Vec<Option<Vec<f64>>> =
            args.iter().enumerate().map(|(i, a)| nonzero[i].then(|| a.direction(i))).collect();
        let jvp_args = |dtype: DType| {
            let mut all: Vec<Array> = args.iter().map(|a| a.array(dtype, None, 0.0)).collect();
            for (i, a) in args.iter().enumerate() {
                if let Some(d) = &directions[i] {
                    let Arg::Float(shape, _) = a else { unreachable!() };
                    all.push(float_array(dtype, shape, d));
                }
            }
            all
        };
        let jvp64 = jvp(&f64_func, &nonzero);
        assert_linear_in_tangents(&jvp64, args.len());
        let tangents64 = run(&jvp64, &jvp_args(DType::F64));
        let moved = |step: f64| -> Vec<Array> {
            args.iter().enumerate().map(|(i, a)| a.array(DType::F64, directions[i].as_deref(), step)).collect()
        };
        let (plus, minus) = (run(&f64_func, &moved(H)), run(&f64_func, &moved(-H)));
        for (j, &k) in float_outs.iter().enumerate() {
            let fd: Vec<f64> =
                plus[k].to_f64_vec().iter().zip(minus[k].to_f64_vec()).map(|(p, m)| (p - m) / (2.0 * H)).collect();
            let got = tangents64[n_out + j].to_f64_vec();
            assert_close(&format!("{what}, output {k}, f64 vs finite differences"), &got, &fd, 1e-6, 1e-2);
            let got32 = run(&jvp(&f32_func, &nonzero), &jvp_args(DType::F32))[n_out + j].to_f64_vec();
            assert_close(&format!("{what}, output {k}, f32 vs f64"), &got32, &got, 1e-4, 1.0);
        }
    }
    if second_order {
        check_second_order(&f64_func, args, &float_args);
    }
}

/// The jvp of the jvp of `func` (differentiating its float params, tangents held)
/// against finite differences of the jvp.
fn check_second_order(func: &Func, args: &[Arg], float_args: &[usize]) {
    let name = &func.name;
    let nonzero: Vec<bool> = args.iter().map(Arg::is_float).collect();
    let first = jvp(func, &nonzero);
    let mut nonzero2 = nonzero.clone();
    nonzero2.resize(first.params.len(), false);
    let second = jvp(&first, &nonzero2);
    let tangents: Vec<Array> = float_args
        .iter()
        .map(|&i| {
            let Arg::Float(shape, _) = &args[i] else { unreachable!() };
            float_array(DType::F64, shape, &args[i].direction(i))
        })
        .collect();
    let second_dirs: Vec<Option<Vec<f64>>> =
        args.iter().enumerate().map(|(i, a)| a.is_float().then(|| a.direction(i + 5))).collect();
    let at = |step: f64| -> Vec<Array> {
        let mut all: Vec<Array> =
            args.iter().enumerate().map(|(i, a)| a.array(DType::F64, second_dirs[i].as_deref(), step)).collect();
        all.extend(tangents.iter().cloned());
        all
    };
    let mut second_args = at(0.0);
    for (i, a) in args.iter().enumerate() {
        if let (Some(d), Arg::Float(shape, _)) = (&second_dirs[i], a) {
            second_args.push(float_array(DType::F64, shape, d));
        }
    }
    let got = run(&second, &second_args);
    let (plus, minus) = (run(&first, &at(H)), run(&first, &at(-H)));
    let n_first = first.results.len();
    let float_results = (0..n_first).filter(|&k| first.result_types[k].dtype.is_float());
    for (j, k) in float_results.enumerate() {
        let fd: Vec<f64> =
            plus[k].to_f64_vec().iter().zip(minus[k].to_f64_vec()).map(|(p, m)| (p - m) / (2.0 * H)).collect();
        let got = got[n_first + j].to_f64_vec();
        assert_close(&format!("{name}: second order, output {k} of the jvp"), &got, &fd, 1e-5, 1e-2);
    }
}

// ---- the cases ----

const GENERAL: [f64; 4] = [-1.3, -0.4, 0.2, 0.9];
const POSITIVE: [f64; 4] = [0.3, 0.8, 1.7, 2.5];

#[test]
fn unary_rules_match_finite_differences() {
    let cases: &[(UnaryOp, &[f64])] = &[
        (UnaryOp::Neg, &GENERAL),
        (UnaryOp::Exp, &GENERAL),
        (UnaryOp::Log, &POSITIVE),
        (UnaryOp::Log1p, &[-0.5, 0.2, 0.9, 3.0]),
        (UnaryOp::Expm1, &GENERAL),
        (UnaryOp::Sin, &GENERAL),
        (UnaryOp::Cos, &GENERAL),
        (UnaryOp::Tan, &[-1.0, -0.3, 0.4, 1.1]),
        (UnaryOp::Tanh, &GENERAL),
        (UnaryOp::Logistic, &[-2.5, -0.4, 0.2, 1.9]),
        (UnaryOp::Sqrt, &POSITIVE),
        (UnaryOp::Rsqrt, &POSITIVE),
        (UnaryOp::Abs, &GENERAL),
        (UnaryOp::Sign, &GENERAL),
        (UnaryOp::Floor, &GENERAL),
        (UnaryOp::Ceil, &GENERAL),
        (UnaryOp::Round, &GENERAL),
        (UnaryOp::Erf, &GENERAL),
        (UnaryOp::IsFinite, &GENERAL),
    ];
    for &(op, x) in cases {
        check_case(&Prim::Unary(op), &[floats(&[4], x)], true);
    }
}

#[test]
fn integer_pow_matches_finite_differences() {
    for y in [-3, -1, 0, 1, 2, 3, 5] {
        check_case(&Prim::Unary(UnaryOp::IntegerPow { y }), &[floats(&[4], &GENERAL)], true);
    }
}

#[test]
fn binary_rules_match_finite_differences() {
    let x = floats(&[4], &[1.3, -0.7, 2.2, 0.4]);
    let y = floats(&[4], &[0.6, 1.9, -1.1, 2.5]);
    for op in
        [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Max, BinaryOp::Min, BinaryOp::Atan2]
    {
        check_case(&Prim::Binary(op), &[x.clone(), y.clone()], true);
    }
    let rem = [floats(&[4], &[5.3, -3.7, 2.2, 7.9]), floats(&[4], &[1.5, 1.1, -0.9, 2.5])];
    check_case(&Prim::Binary(BinaryOp::Rem), &rem, true);
    let pow = [floats(&[4], &[0.6, 1.3, 2.2, 0.9]), floats(&[4], &[1.5, -0.7, 2.3, 0.4])];
    check_case(&Prim::Binary(BinaryOp::Pow), &pow, true);
}

#[test]
fn select_and_clamp_match_finite_differences() {
    let pred = bools(&[4], &[true, false, true, false]);
    check_case(&Prim::Ternary(TernaryOp::Select), &[pred, floats(&[4], &GENERAL), floats(&[4], &POSITIVE)], true);
    // Below, inside, above, and lo > hi (the result is hi).
    let lo = floats(&[4], &[-1.0, -1.0, -1.0, 0.5]);
    let x = floats(&[4], &[-1.5, 0.3, 2.0, 0.1]);
    let hi = floats(&[4], &[1.0, 1.0, 1.0, 0.2]);
    check_case(&Prim::Ternary(TernaryOp::Clamp), &[lo, x, hi], true);
}

fn iota(shape: &[usize]) -> Vec<f64> {
    let n: usize = shape.iter().product();
    (0..n).map(|i| (i as f64 * 0.37).sin() + 0.1 * i as f64).collect()
}

#[test]
fn structural_rules_match_finite_differences() {
    let m = floats(&[2, 3], &iota(&[2, 3]));
    let cases: Vec<(Prim, Vec<Arg>)> = vec![
        (
            Prim::Shape(ShapeOp::BroadcastInDim { shape: Shape::from(&[2, 3][..]), dims: vec![1] }),
            vec![floats(&[3], &iota(&[3]))],
        ),
        (
            Prim::Shape(ShapeOp::BroadcastInDim { shape: Shape::from(&[4, 2, 3][..]), dims: vec![1, 2] }),
            vec![floats(&[1, 3], &iota(&[1, 3]))],
        ),
        (Prim::Shape(ShapeOp::Reshape { shape: Shape::from(&[3, 2][..]) }), vec![m.clone()]),
        (Prim::Shape(ShapeOp::Transpose { perm: vec![1, 0] }), vec![m.clone()]),
        (Prim::Shape(ShapeOp::Rev { axes: vec![1] }), vec![m.clone()]),
        (
            Prim::Shape(ShapeOp::Slice { start: vec![1, 0], limit: vec![4, 3], strides: vec![2, 2] }),
            vec![floats(&[4, 3], &iota(&[4, 3]))],
        ),
        (
            Prim::Shape(ShapeOp::Pad { low: vec![1, -1], high: vec![0, 2], interior: vec![1, 0] }),
            vec![m.clone(), floats(&[], &[0.75])],
        ),
        (
            Prim::Shape(ShapeOp::Concatenate { axis: 1 }),
            vec![floats(&[2, 1], &[0.5, -0.25]), m.clone(), floats(&[2, 2], &[1.0, 2.0, 3.0, 4.0])],
        ),
    ];
    for (prim, args) in cases {
        check_case(&prim, &args, true);
    }
}

#[test]
fn index_rules_match_finite_differences() {
    let x = floats(&[4, 3], &iota(&[4, 3]));
    let cases: Vec<(Prim, Vec<Arg>)> = vec![
        // The second index is clamped to fit.
        (Prim::Index(IndexOp::DynamicSlice { sizes: vec![2, 2] }), vec![x.clone(), scalar_index(1), scalar_index(5)]),
        (
            Prim::Index(IndexOp::DynamicUpdateSlice),
            vec![x.clone(), floats(&[2, 2], &[9.0, -8.0, 7.0, -6.0]), scalar_index(3), scalar_index(0)],
        ),
        (Prim::Index(IndexOp::Gather { axis: 1, batch_dims: 0 }), vec![x.clone(), ints(&[3], &[2, 0, 2])]),
        (
            Prim::Index(IndexOp::Gather { axis: 1, batch_dims: 1 }),
            vec![x.clone(), ints(&[4, 2], &[0, 1, 2, 2, 1, 0, 0, 0])],
        ),
        (
            Prim::Index(IndexOp::ScatterAdd { axis: 0, batch_dims: 0 }),
            vec![x.clone(), ints(&[3], &[1, 1, 3]), floats(&[3, 3], &iota(&[3, 3]))],
        ),
    ];
    for (prim, args) in cases {
        check_case(&prim, &args, true);
    }
}

#[test]
fn reduction_rules_match_finite_differences() {
    let x = floats(&[2, 3], &[0.4, -1.2, 2.1, 1.7, 0.3, -0.8]);
    for op in [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod] {
        for axes in [vec![1], vec![0], vec![0, 1], vec![]] {
            check_case(&Prim::Reduction(ReductionOp::Reduce { op, axes }), std::slice::from_ref(&x), true);
        }
    }
    // One zero in a row, two, three, none: first and second order are exact at zeros.
    let with_zeros = floats(&[4, 3], &[2.0, 0.0, 3.0, 0.0, 1.5, 0.0, 0.0, 0.0, 0.0, 1.2, -0.7, 2.0]);
    check_case(&Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Prod, axes: vec![1] }), &[with_zeros], true);
    for reverse in [false, true] {
        check_case(&Prim::Reduction(ReductionOp::Cumsum { axis: 1, reverse }), std::slice::from_ref(&x), true);
        check_case(&Prim::Reduction(ReductionOp::Cumsum { axis: 0, reverse }), std::slice::from_ref(&x), true);
    }
    let arg = Prim::Reduction(ReductionOp::ArgReduce { op: ArgOp::Argmax, axis: 1, index_dtype: DType::I32 });
    check_case(&arg, &[x], true);
}

fn dims(lhs_contract: &[usize], rhs_contract: &[usize], lhs_batch: &[usize], rhs_batch: &[usize]) -> DotDims {
    DotDims {
        lhs_contract: lhs_contract.to_vec(),
        rhs_contract: rhs_contract.to_vec(),
        lhs_batch: lhs_batch.to_vec(),
        rhs_batch: rhs_batch.to_vec(),
        preferred: None,
    }
}

#[test]
fn dot_general_matches_finite_differences() {
    let matmul = dims(&[1], &[0], &[], &[]);
    check_case(
        &Prim::Linalg(LinalgOp::DotGeneral(matmul)),
        &[floats(&[2, 3], &iota(&[2, 3])), floats(&[3, 4], &iota(&[3, 4]))],
        true,
    );
    let batched = dims(&[2], &[1], &[0], &[0]);
    let args = [floats(&[2, 3, 4], &iota(&[2, 3, 4])), floats(&[2, 4, 2], &iota(&[2, 4, 2]))];
    check_case(&Prim::Linalg(LinalgOp::DotGeneral(batched)), &args, true);
}

// ---- special points ----

/// The f64 tangents of `prim` at `args` for these tangents (`None`: a zero tangent).
fn tangents_at(prim: &Prim, args: &[Arg], tangents: &[Option<Vec<f64>>]) -> Vec<Vec<f64>> {
    let func = primal(prim, args, DType::F64);
    let nonzero: Vec<bool> = tangents.iter().map(Option::is_some).collect();
    let mut all: Vec<Array> = args.iter().map(|a| a.array(DType::F64, None, 0.0)).collect();
    for (a, t) in args.iter().zip(tangents) {
        if let (Arg::Float(shape, _), Some(t)) = (a, t) {
            all.push(float_array(DType::F64, shape, t));
        }
    }
    let out = run(&jvp(&func, &nonzero), &all);
    out[func.results.len()..].iter().map(Array::to_f64_vec).collect()
}

#[test]
fn integer_pow_at_the_most_negative_exponent() {
    // y = i32::MIN has no y - 1 in i32, so the rule takes x^(y-1) as x^y * x^-1. Checked
    // against y * x^(y-1) from f64's powf (the exponent -2^31 - 1 is exact in f64) where
    // x^y is finite and not 0 (|x| within about 3e-7 of 1), and at ±0, where the
    // derivative is infinite. The 2e-8 tolerance allows for the 31 roundings of the
    // primal's repeated squaring (about 2e-9 here); x^+1 in place of x^-1 is 2.4e-7 off.
    let y = i32::MIN;
    let e = 2f64.powi(-23);
    let x = [1.0 + e, 1.0 - e, -(1.0 + e), 0.0, -0.0];
    let got = tangents_at(&Prim::Unary(UnaryOp::IntegerPow { y }), &[floats(&[5], &x)], &[Some(vec![1.0; 5])]);
    let want: Vec<f64> = x.iter().map(|&x| f64::from(y) * x.powf(f64::from(y) - 1.0)).collect();
    assert_eq!(want[3..], [f64::NEG_INFINITY, f64::INFINITY]);
    assert_close("integer_pow[y=i32::MIN] at ±(1 ± 2^-23)", &got[0][..3], &want[..3], 2e-8, 0.0);
    assert_eq!(got[0][3..], want[3..], "integer_pow[y=i32::MIN] at ±0");
}

#[test]
fn max_and_min_split_ties_evenly() {
    let x = floats(&[3], &[1.5, 2.0, -0.5]);
    let y = floats(&[3], &[1.5, 1.0, 0.5]);
    let (tx, ty) = (vec![1.0, 2.0, 3.0], vec![10.0, 20.0, 30.0]);
    let got = tangents_at(&Prim::Binary(BinaryOp::Max), &[x.clone(), y.clone()], &[Some(tx.clone()), Some(ty.clone())]);
    assert_eq!(got, vec![vec![5.5, 2.0, 30.0]]);
    let got = tangents_at(&Prim::Binary(BinaryOp::Min), &[x.clone(), y.clone()], &[Some(tx.clone()), Some(ty)]);
    assert_eq!(got, vec![vec![5.5, 20.0, 3.0]]);
    // Signed zeros tie; a NaN result has a zero tangent.
    let x = floats(&[2], &[-0.0, f64::NAN]);
    let y = floats(&[2], &[0.0, 1.0]);
    let got = tangents_at(&Prim::Binary(BinaryOp::Max), &[x, y], &[Some(vec![1.0, 1.0]), None]);
    assert_eq!(got, vec![vec![0.5, 0.0]]);
}

#[test]
fn reductions_at_ties_and_zeros() {
    let x = floats(&[2, 3], &[3.0, 1.0, 3.0, -2.0, -2.0, -2.0]);
    let t = vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
    let got = tangents_at(
        &Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Max, axes: vec![1] }),
        std::slice::from_ref(&x),
        &[Some(t.clone())],
    );
    assert_eq!(got, vec![vec![2.5, 56.0 / 3.0]]);
    let got = tangents_at(&Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Min, axes: vec![1] }), &[x], &[Some(t)]);
    assert_eq!(got, vec![vec![2.0, 56.0 / 3.0]]);
    // reduce_prod: with one zero only its own tangent counts; with two, nothing does.
    let x = floats(&[3, 3], &[2.0, 0.0, 3.0, 0.0, 1.5, 0.0, 0.5, 4.0, 2.0]);
    let t = vec![1.0, 10.0, 100.0, 1.0, 10.0, 100.0, 1.0, 10.0, 100.0];
    let got =
        tangents_at(&Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Prod, axes: vec![1] }), &[x], &[Some(t)]);
    assert_eq!(got, vec![vec![60.0, 0.0, 8.0 + 10.0 + 200.0]]);
    // Zero elements: the result is the identity, a constant.
    let empty = Arg::Float(vec![2, 0], vec![]);
    for op in ReduceOp::ALL {
        let got = tangents_at(
            &Prim::Reduction(ReductionOp::Reduce { op, axes: vec![1] }),
            std::slice::from_ref(&empty),
            &[Some(vec![])],
        );
        assert_eq!(got, vec![vec![0.0, 0.0]], "{}", op.name());
    }
}

#[test]
fn kinks_and_singular_points() {
    // abs: 1 at ±0, as JAX (`grad(jnp.abs)(0.0) == 1.0`; its norms' subgradients at
    // zero rest on it).
    let x = floats(&[4], &[0.0, -0.0, -2.0, 3.0]);
    let got = tangents_at(&Prim::Unary(UnaryOp::Abs), &[x], &[Some(vec![1.0; 4])]);
    assert_eq!(got, vec![vec![1.0, 1.0, -1.0, 1.0]]);
    // pow at a zero base stays finite for y > 0; y = 0 has a zero x-derivative.
    let x = floats(&[3], &[0.0, 0.0, 2.0]);
    let y = floats(&[3], &[2.0, 0.0, 0.0]);
    let got = tangents_at(&Prim::Binary(BinaryOp::Pow), &[x, y], &[Some(vec![1.0; 3]), Some(vec![1.0; 3])]);
    assert_eq!(got, vec![vec![0.0, 0.0, 2f64.ln()]]);
    // clamp: ties go to x; lo > hi gives hi.
    let (lo, x, hi) = (floats(&[3], &[0.0, 0.0, 1.0]), floats(&[3], &[0.0, 1.0, 0.5]), floats(&[3], &[1.0, 1.0, 0.0]));
    let t = |v: f64| Some(vec![v; 3]);
    let got = tangents_at(&Prim::Ternary(TernaryOp::Clamp), &[lo, x, hi], &[t(1.0), t(10.0), t(100.0)]);
    assert_eq!(got, vec![vec![10.0, 10.0, 100.0]]);
    // rem: the quotient of the computed remainder.
    let x = floats(&[2], &[7.5, -7.5]);
    let y = floats(&[2], &[2.0, 2.0]);
    let got = tangents_at(&Prim::Binary(BinaryOp::Rem), &[x, y], &[Some(vec![1.0; 2]), Some(vec![1.0; 2])]);
    assert_eq!(got, vec![vec![-2.0, 4.0]]);
}

#[test]
fn convert_between_floats_and_to_integers() {
    let x = floats(&[3], &[0.1, -2.5, 3.0]);
    let t = vec![0.5, 0.25, -1.0];
    for (from, to) in [(DType::F64, DType::F32), (DType::F32, DType::F64), (DType::F64, DType::F64)] {
        let func = primal(&Prim::Unary(UnaryOp::Convert { dtype: to }), std::slice::from_ref(&x), from);
        let out = run(&jvp(&func, &[true]), &[x.array(from, None, 0.0), float_array(from, &[3], &t)]);
        assert_eq!(out[1].dtype(), to);
        assert_eq!(out[1].to_f64_vec(), t, "convert {from} -> {to}");
    }
    for to in [DType::I32, DType::Bool] {
        let (func, outputs, names) =
            rule(&Prim::Unary(UnaryOp::Convert { dtype: to }), &[Type::new(DType::F32, &[3])], &[true]);
        assert_eq!((outputs, names.len()), (vec![false], 0), "{}", func.name);
    }
}

// ---- symbolic zeros ----

/// Applies `prim`'s rule once, with tangents for the operands marked in `nonzero`;
/// returns the Func, which outputs got a tangent, and the names of the primitives the
/// rule emitted.
fn rule(prim: &Prim, types: &[Type], nonzero: &[bool]) -> (Func, Vec<bool>, Vec<&'static str>) {
    let mut em = Emitter::new("rule");
    let mut cx = NoBodies { module: Module::new() };
    let primals: Vec<Value> = types.iter().map(|ty| em.param(ty.clone())).collect();
    let tangents: Vec<Option<Value>> =
        types.iter().zip(nonzero).map(|(ty, &nz)| nz.then(|| em.param(ty.clone()))).collect();
    let outputs = em.eqn(&cx.module, prim.clone(), &primals).unwrap();
    let before = em.func().eqns.len();
    let touts = prim.jvp(&mut em, &mut cx, &primals, &outputs, &tangents).unwrap();
    let names = em.func().eqns[before..].iter().map(|e| e.prim.name()).collect();
    (em.finish(&[]), touts.iter().map(Option::is_some).collect(), names)
}

#[test]
fn zero_tangents_cost_nothing() {
    let f = Type::new(DType::F32, &[3]);
    let m = Type::new(DType::F64, &[2, 3]);
    let idx = Type::scalar(DType::I32);
    let binary = |op| Prim::Binary(op);
    /// The primitive, its operand types, which have tangents, what the rule emits.
    type Case = (Prim, Vec<Type>, Vec<bool>, Vec<&'static str>);
    let cases: Vec<Case> = vec![
        (binary(BinaryOp::Mul), vec![f.clone(), f.clone()], vec![true, false], vec!["mul"]),
        (binary(BinaryOp::Mul), vec![f.clone(), f.clone()], vec![false, true], vec!["mul"]),
        (binary(BinaryOp::Mul), vec![f.clone(), f.clone()], vec![true, true], vec!["mul", "mul", "add"]),
        (binary(BinaryOp::Add), vec![f.clone(), f.clone()], vec![true, false], vec![]),
        (binary(BinaryOp::Add), vec![f.clone(), f.clone()], vec![false, true], vec![]),
        (binary(BinaryOp::Sub), vec![f.clone(), f.clone()], vec![true, false], vec![]),
        (binary(BinaryOp::Sub), vec![f.clone(), f.clone()], vec![false, true], vec!["neg"]),
        (binary(BinaryOp::Div), vec![f.clone(), f.clone()], vec![true, false], vec!["div"]),
        (binary(BinaryOp::Rem), vec![f.clone(), f.clone()], vec![true, false], vec![]),
        (Prim::Unary(UnaryOp::Exp), vec![f.clone()], vec![true], vec!["mul"]),
        (Prim::Unary(UnaryOp::IntegerPow { y: 1 }), vec![f.clone()], vec![true], vec![]),
        (Prim::Unary(UnaryOp::Convert { dtype: DType::F32 }), vec![f.clone()], vec![true], vec![]),
        (
            Prim::Linalg(LinalgOp::DotGeneral(dims(&[1], &[0], &[], &[]))),
            vec![m.clone(), Type::new(DType::F64, &[3, 2])],
            vec![true, false],
            vec!["dot_general"],
        ),
        (
            Prim::Index(IndexOp::ScatterAdd { axis: 0, batch_dims: 0 }),
            vec![m.clone(), Type::new(DType::I32, &[4]), Type::new(DType::F64, &[4, 3])],
            vec![true, false, false],
            vec![],
        ),
        (
            Prim::Index(IndexOp::DynamicSlice { sizes: vec![1, 2] }),
            vec![m.clone(), idx.clone(), idx.clone()],
            vec![true, false, false],
            vec!["dynamic_slice"],
        ),
        (
            Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum, axes: vec![0] }),
            vec![m.clone()],
            vec![true],
            vec!["reduce_sum"],
        ),
        (Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Max, axes: vec![] }), vec![m.clone()], vec![true], vec![]),
        (Prim::Reduction(ReductionOp::Cumsum { axis: 1, reverse: true }), vec![m.clone()], vec![true], vec!["cumsum"]),
        (Prim::Shape(ShapeOp::Transpose { perm: vec![1, 0] }), vec![m.clone()], vec![true], vec!["transpose"]),
    ];
    for (prim, types, nonzero, want) in cases {
        let (_, outputs, names) = rule(&prim, &types, &nonzero);
        assert_eq!(outputs, vec![true], "{}", prim.name());
        assert_eq!(names, want, "{} with tangents {nonzero:?}", prim.name());
    }
    // The mixed-tangent rules never multiply a zero tangent: max with only tx has one mul.
    let (_, _, names) = rule(&binary(BinaryOp::Max), &[f.clone(), f.clone()], &[true, false]);
    assert_eq!(names.iter().filter(|&&n| n == "mul").count(), 1, "{names:?}");
    let (_, _, names) = rule(&binary(BinaryOp::Pow), &[f.clone(), f.clone()], &[false, true]);
    assert!(!names.contains(&"pow"), "the ty part of pow needs no pow: {names:?}");
}

#[test]
fn zero_and_integer_results_have_no_tangent() {
    let f = Type::new(DType::F32, &[3]);
    let i = Type::new(DType::I32, &[3]);
    let b = Type::new(DType::Bool, &[3]);
    let cases: Vec<(Prim, Vec<Type>, Vec<bool>)> = vec![
        (Prim::Unary(UnaryOp::Exp), vec![f.clone()], vec![false]),
        (Prim::Unary(UnaryOp::Floor), vec![f.clone()], vec![true]),
        (Prim::Unary(UnaryOp::Sign), vec![f.clone()], vec![true]),
        (Prim::Unary(UnaryOp::IsFinite), vec![f.clone()], vec![true]),
        (Prim::Unary(UnaryOp::Not), vec![b.clone()], vec![false]),
        (Prim::Unary(UnaryOp::Neg), vec![i.clone()], vec![false]),
        (Prim::Unary(UnaryOp::IntegerPow { y: 0 }), vec![f.clone()], vec![true]),
        (Prim::Binary(BinaryOp::And), vec![b.clone(), b.clone()], vec![false, false]),
        (Prim::Binary(BinaryOp::Mul), vec![i.clone(), i.clone()], vec![false, false]),
        (Prim::Compare(CompareOp::Lt), vec![f.clone(), f.clone()], vec![true, true]),
        (
            Prim::Reduction(ReductionOp::ArgReduce { op: ArgOp::Argmin, axis: 0, index_dtype: DType::I32 }),
            vec![f.clone()],
            vec![true],
        ),
        (Prim::Unary(UnaryOp::Convert { dtype: DType::F32 }), vec![i.clone()], vec![false]),
        (Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Max, axes: vec![0] }), vec![f.clone()], vec![false]),
        // No tangent in: nothing emitted, even by the rules that compare primals first.
        (Prim::Binary(BinaryOp::Max), vec![f.clone(), f.clone()], vec![false, false]),
        (Prim::Binary(BinaryOp::Min), vec![f.clone(), f.clone()], vec![false, false]),
        (Prim::Ternary(TernaryOp::Select), vec![b.clone(), f.clone(), f.clone()], vec![false, false, false]),
        (Prim::Ternary(TernaryOp::Clamp), vec![f.clone(), f.clone(), f.clone()], vec![false, false, false]),
        // Integer results have no tangent even when a caller hands the operands one.
        (Prim::Binary(BinaryOp::Add), vec![i.clone(), i.clone()], vec![true, true]),
        (Prim::Binary(BinaryOp::Mul), vec![i.clone(), i.clone()], vec![true, false]),
        (Prim::Ternary(TernaryOp::Select), vec![b.clone(), i.clone(), i.clone()], vec![false, true, true]),
        (Prim::Ternary(TernaryOp::Clamp), vec![i.clone(), i.clone(), i.clone()], vec![true, true, true]),
    ];
    for (prim, types, nonzero) in cases {
        let (_, outputs, names) = rule(&prim, &types, &nonzero);
        assert_eq!((outputs, names), (vec![false], vec![]), "{}", prim.name());
    }
}

#[test]
fn rules_apply_to_parsed_ir() {
    let module = ferrax_ir::parse(
        "func @f(%x: f64[3], %y: f64[3]) -> (f64[]) {
           %a: f64[3] = mul(%x, %y)
           %b: f64[3] = sin(%a)
           %c: f64[3] = div(%b, %y)
           %d: f64[] = reduce_sum[axes=[0]](%c)
           return %d
         }",
    )
    .unwrap();
    let func = module.entry().unwrap();
    let (x, y, v) = ([0.3, -1.1, 2.0], [1.5, 0.7, -0.4], [1.0, 0.5, -0.25]);
    let args = |s: f64| {
        let xs: Vec<f64> = x.iter().zip(&v).map(|(a, d)| a + s * d).collect();
        vec![Array::from_f64(&[3], xs).unwrap(), Array::from_f64(&[3], y.to_vec()).unwrap()]
    };
    let mut jvp_args = args(0.0);
    jvp_args.push(Array::from_f64(&[3], v.to_vec()).unwrap());
    let got = run(&jvp(func, &[true, false]), &jvp_args)[1].to_f64_vec()[0];
    let fd = (run(func, &args(H))[0].to_f64_vec()[0] - run(func, &args(-H))[0].to_f64_vec()[0]) / (2.0 * H);
    let want: f64 = (0..3).map(|k| (x[k] * y[k]).cos() * v[k]).sum();
    assert!((got - want).abs() < 1e-12 && (fd - want).abs() < 1e-8, "{got} {fd} {want}");
}
