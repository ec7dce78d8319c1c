//! Elementwise kernels: every unary, binary, comparison, select, clamp, convert and
//! integer_pow on every dtype it accepts, against the interpreter bit for bit.

use super::support::{check, values};
use ferrax_ir::DType;
use ferrax_ir::prim::{BinaryOp, CompareOp, UnaryOp};

const DTYPES: [DType; 4] = [DType::Bool, DType::I32, DType::F32, DType::F64];

#[test]
fn unary_table() {
    let ops = [
        "neg",
        "exp",
        "log",
        "log1p",
        "expm1",
        "sin",
        "cos",
        "tan",
        "tanh",
        "logistic",
        "sqrt",
        "rsqrt",
        "abs",
        "sign",
        "floor",
        "ceil",
        "round",
        "erf",
        "not",
        "is_finite",
    ];
    let mut count = 0;
    for op in ops {
        let u = UnaryOp::from_name(op).unwrap();
        for dt in DTYPES {
            if !u.domain().accepts(dt) {
                continue;
            }
            let out = if op == "is_finite" { DType::Bool } else { dt };
            for n in [1usize, 7, 13] {
                let text = format!(
                    "func @k[kind=\"fusion\"](%x: {dt}[{n}]) -> ({out}[{n}]) {{\n  %y: {out}[{n}] = {op}(%x)\n  return %y\n}}\n"
                );
                check(&text, &[values(dt, &[n], n as u64 + 3, true)]);
                count += 1;
            }
        }
    }
    assert!(count > 40);
}

#[test]
fn binary_and_compare_table() {
    for op in BinaryOp::ALL {
        for dt in DTYPES {
            let ok = match op {
                BinaryOp::And | BinaryOp::Or => matches!(dt, DType::Bool | DType::I32),
                BinaryOp::Pow | BinaryOp::Atan2 => dt.is_float(),
                _ => dt != DType::Bool,
            };
            if !ok {
                continue;
            }
            let name = op.name();
            let text = format!(
                "func @k[kind=\"fusion\"](%x: {dt}[3,5], %y: {dt}[3,5]) -> ({dt}[3,5]) {{\n  %z: {dt}[3,5] = {name}(%x, %y)\n  return %z\n}}\n"
            );
            check(&text, &[values(dt, &[3, 5], 1, true), values(dt, &[3, 5], 2, true)]);
        }
    }
    for op in [CompareOp::Eq, CompareOp::Ne, CompareOp::Lt, CompareOp::Le, CompareOp::Gt, CompareOp::Ge] {
        for dt in DTYPES {
            let name = op.name();
            let text = format!(
                "func @k[kind=\"fusion\"](%x: {dt}[9], %y: {dt}[9]) -> (bool[9]) {{\n  %z: bool[9] = {name}(%x, %y)\n  return %z\n}}\n"
            );
            check(&text, &[values(dt, &[9], 5, true), values(dt, &[9], 5 + dt.size_bytes() as u64, true)]);
        }
    }
}

#[test]
fn integer_division_never_traps() {
    let text = "func @k[kind=\"fusion\"](%x: i32[6], %y: i32[6]) -> (i32[6], i32[6]) {\n  %q: i32[6] = div(%x, %y)\n  %r: i32[6] = rem(%x, %y)\n  return %q, %r\n}\n";
    let x = ferrax_ir::Array::from_i32(&[6], vec![7, -7, i32::MIN, i32::MIN, 5, 0]).unwrap();
    let y = ferrax_ir::Array::from_i32(&[6], vec![-2, 2, -1, 0, 0, 0]).unwrap();
    let out = check(text, &[x, y]);
    assert_eq!(out[0].as_i32().unwrap(), &[-3, -3, i32::MIN, -1, -1, -1]);
    assert_eq!(out[1].as_i32().unwrap(), &[1, -1, 0, i32::MIN, 5, 0]);
}

#[test]
fn max_min_nan_and_signed_zero() {
    let text = "func @k[kind=\"fusion\"](%x: f32[4], %y: f32[4]) -> (f32[4], f32[4]) {\n  %a: f32[4] = max(%x, %y)\n  %b: f32[4] = min(%x, %y)\n  return %a, %b\n}\n";
    let x = ferrax_ir::Array::from_f32(&[4], vec![-0.0, 0.0, f32::NAN, 1.0]).unwrap();
    let y = ferrax_ir::Array::from_f32(&[4], vec![0.0, -0.0, 1.0, f32::NAN]).unwrap();
    let out = check(text, &[x, y]);
    let a = out[0].as_f32().unwrap();
    assert_eq!((a[0].to_bits(), a[1].to_bits()), (0, 0));
    assert!(a[2].is_nan() && a[3].is_nan());
    let b = out[1].as_f32().unwrap();
    assert!(b[0].is_sign_negative() && b[1].is_sign_negative());
}

#[test]
fn max_min_of_every_pair_of_specials_in_vector_lanes_and_reductions() {
    // Every ordered pair of ±0, ±1, ±inf and NaN (positive and negative), in whole vectors
    // of f32 and f64, elementwise and as two-element rows of reductions; then rows of
    // zeros of mixed signs and rows with a NaN at each position, reduced in vectors.
    let special = [0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN];
    let pairs: Vec<(f64, f64)> = special.iter().flat_map(|&a| special.iter().map(move |&b| (a, b))).collect();
    let n = pairs.len();
    for dt in [DType::F32, DType::F64] {
        let array = |xs: Vec<f64>, shape: &[usize]| match dt {
            DType::F32 => ferrax_ir::Array::from_f32(shape, xs.iter().map(|&v| v as f32).collect()).unwrap(),
            _ => ferrax_ir::Array::from_f64(shape, xs).unwrap(),
        };
        let text = format!(
            "func @k[kind=\"fusion\"](%x: {dt}[{n}], %y: {dt}[{n}]) -> ({dt}[{n}], {dt}[{n}]) {{\n  %a: {dt}[{n}] = max(%x, %y)\n  %b: {dt}[{n}] = min(%x, %y)\n  return %a, %b\n}}\n"
        );
        let (xs, ys): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
        check(&text, &[array(xs, &[n]), array(ys, &[n])]);
        let rows: Vec<f64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        let mut zeros: Vec<f64> = (0..64 * 24).map(|i| if (i * 7 + i / 24) % 5 == 0 { 0.0 } else { -0.0 }).collect();
        zeros[24..48].fill(-0.0);
        let mut nans: Vec<f64> = (0..24 * 24).map(|i| (i % 13) as f64 - 6.0).collect();
        (0..24).for_each(|r| nans[r * 24 + r] = if r % 2 == 0 { f64::NAN } else { -f64::NAN });
        for (data, rows, cols) in [(rows, n, 2), (zeros, 64, 24), (nans, 24, 24)] {
            for op in ["reduce_max", "reduce_min"] {
                for (axis, kept) in [(1, rows), (0, cols)] {
                    let text = format!(
                        "func @k[kind=\"fusion\"](%x: {dt}[{rows},{cols}]) -> ({dt}[{kept}]) {{\n  %a: {dt}[{kept}] = {op}[axes=[{axis}]](%x)\n  return %a\n}}\n"
                    );
                    check(&text, &[array(data.clone(), &[rows, cols])]);
                }
            }
        }
    }
}

#[test]
fn convert_every_pair() {
    for from in DTYPES {
        for to in DTYPES {
            let text = format!(
                "func @k[kind=\"fusion\"](%x: {from}[11]) -> ({to}[11]) {{\n  %y: {to}[11] = convert[dtype={to}](%x)\n  return %y\n}}\n"
            );
            check(&text, &[values(from, &[11], 9, true)]);
        }
    }
    // Saturation and NaN → 0.
    let text =
        "func @k[kind=\"fusion\"](%x: f64[5]) -> (i32[5]) {\n  %y: i32[5] = convert[dtype=i32](%x)\n  return %y\n}\n";
    let x = ferrax_ir::Array::from_f64(&[5], vec![1e300, -1e300, f64::NAN, -2.9, 2.9]).unwrap();
    let out = check(text, &[x]);
    assert_eq!(out[0].as_i32().unwrap(), &[i32::MAX, i32::MIN, 0, -2, 2]);
}

#[test]
fn select_clamp_integer_pow() {
    for dt in [DType::I32, DType::F32, DType::F64] {
        let text = format!(
            "func @k[kind=\"fusion\"](%p: bool[8], %x: {dt}[8], %y: {dt}[8], %z: {dt}[8]) -> ({dt}[8], {dt}[8]) {{\n  %s: {dt}[8] = select(%p, %x, %y)\n  %c: {dt}[8] = clamp(%y, %x, %z)\n  return %s, %c\n}}\n"
        );
        let args = [
            values(DType::Bool, &[8], 1, true),
            values(dt, &[8], 2, true),
            values(dt, &[8], 3, true),
            values(dt, &[8], 4, true),
        ];
        check(&text, &args);
        for y in [-3, -1, 0, 1, 2, 5, 13] {
            let text = format!(
                "func @k[kind=\"fusion\"](%x: {dt}[8]) -> ({dt}[8]) {{\n  %y: {dt}[8] = integer_pow[y={y}](%x)\n  return %y\n}}\n"
            );
            check(&text, &[values(dt, &[8], 7, true)]);
        }
    }
    let text = "func @k[kind=\"fusion\"](%p: bool[5], %x: bool[5], %y: bool[5]) -> (bool[5]) {\n  %s: bool[5] = select(%p, %x, %y)\n  return %s\n}\n";
    check(
        text,
        &[
            values(DType::Bool, &[5], 1, false),
            values(DType::Bool, &[5], 2, false),
            values(DType::Bool, &[5], 3, false),
        ],
    );
}

/// The default (fast) math: `math`'s polynomial kernels, scalar and vector, with fma, stay
/// within a few ulp of the interpreter on ordinary and special values.
#[test]
fn transcendentals_fast_math() {
    use super::support::{close, compile, interp, run};
    let unary = ["exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "logistic", "erf"];
    let binary = ["pow", "atan2", "rem"];
    for dt in [DType::F32, DType::F64] {
        let rel = if dt == DType::F32 { 1e-6 } else { 1e-14 };
        for simd in [false, true] {
            let opts = crate::kernel::KernelOptions { simd, ..Default::default() };
            for (op, arity) in unary.iter().map(|o| (o, 1)).chain(binary.iter().map(|o| (o, 2))) {
                let n = 11;
                let params =
                    if arity == 1 { format!("%x: {dt}[{n}]") } else { format!("%x: {dt}[{n}], %y: {dt}[{n}]") };
                let args = if arity == 1 { "%x" } else { "%x, %y" };
                let text = format!(
                    "func @k[kind=\"fusion\"]({params}) -> ({dt}[{n}]) {{\n  %z: {dt}[{n}] = {op}({args})\n  return %z\n}}\n"
                );
                let module = ferrax_ir::text::parse(&text).unwrap();
                let c = compile(&module, &opts).unwrap();
                for seed in 0..4 {
                    let inputs: Vec<_> = (0..arity).map(|i| values(dt, &[n], seed * 7 + i, seed % 2 == 0)).collect();
                    let got = run(&c, &module, &inputs, &[]);
                    let want = interp(&module, &inputs);
                    assert!(close(&got[0], &want[0], rel), "{op} {dt} simd={simd}: {:?} vs {:?}", got[0], want[0]);
                }
            }
        }
    }
}
