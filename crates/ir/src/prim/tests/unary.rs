//! Unit tests of the unary family's rules.

use super::*;
use ferrax_array::Array;

fn f32s(values: &[f32]) -> Array {
    Array::from_f32(&[values.len()], values.to_vec()).unwrap()
}

fn f64s(values: &[f64]) -> Array {
    Array::from_f64(&[values.len()], values.to_vec()).unwrap()
}

fn i32s(values: &[i32]) -> Array {
    Array::from_i32(&[values.len()], values.to_vec()).unwrap()
}

fn bools(values: &[bool]) -> Array {
    Array::from_bool(&[values.len()], values.to_vec()).unwrap()
}

fn bits32(a: &Array) -> Vec<u32> {
    a.as_f32().unwrap().iter().map(|v| v.to_bits()).collect()
}

fn bits64(a: &Array) -> Vec<u64> {
    a.as_f64().unwrap().iter().map(|v| v.to_bits()).collect()
}

fn expect32(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

fn expect64(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// `(op, input, expected, exact)` checked at f32 and f64.
const FLOAT_CASES: &[(UnaryOp, f64, f64, bool)] = &[
    (UnaryOp::Neg, 2.5, -2.5, true),
    (UnaryOp::Exp, 0.0, 1.0, true),
    (UnaryOp::Exp, 1.0, std::f64::consts::E, false),
    (UnaryOp::Log, 1.0, 0.0, true),
    (UnaryOp::Log, std::f64::consts::E, 1.0, false),
    (UnaryOp::Log1p, 1e-10, 9.9999999995e-11, false),
    (UnaryOp::Expm1, 1e-10, 1.00000000005e-10, false),
    (UnaryOp::Sin, std::f64::consts::FRAC_PI_2, 1.0, false),
    (UnaryOp::Cos, 0.0, 1.0, true),
    (UnaryOp::Tan, std::f64::consts::FRAC_PI_4, 1.0, false),
    (UnaryOp::Tanh, 0.5, 0.46211715726000974, false),
    (UnaryOp::Logistic, 0.0, 0.5, true),
    (UnaryOp::Logistic, 2.0, 0.8807970779778823, false),
    (UnaryOp::Sqrt, 6.25, 2.5, true),
    (UnaryOp::Rsqrt, 4.0, 0.5, true),
    (UnaryOp::Abs, -3.5, 3.5, true),
    (UnaryOp::Sign, -3.5, -1.0, true),
    (UnaryOp::Floor, -1.5, -2.0, true),
    (UnaryOp::Ceil, -1.5, -1.0, true),
    (UnaryOp::Round, 2.5, 2.0, true),
    (UnaryOp::Erf, 0.5, 0.5204998778130465, false),
    (UnaryOp::Erf, f64::INFINITY, 1.0, true),
];

#[test]
fn float_ops_on_both_float_dtypes() {
    for &(op, x, want, exact) in FLOAT_CASES {
        let got32 = eval_unary(op, &f32s(&[x as f32])).unwrap().as_f32().unwrap()[0];
        let got64 = eval_unary(op, &f64s(&[x])).unwrap().as_f64().unwrap()[0];
        if exact {
            assert_eq!(got32.to_bits(), (want as f32).to_bits(), "{op:?}({x}) f32");
            assert_eq!(got64.to_bits(), want.to_bits(), "{op:?}({x}) f64");
        } else {
            assert!((f64::from(got32) - want).abs() <= 1e-6 * want.abs().max(1e-30), "{op:?}({x}) f32: {got32}");
            assert!((got64 - want).abs() <= 1e-14 * want.abs().max(1e-300), "{op:?}({x}) f64: {got64}");
        }
    }
}

#[test]
fn float_ops_reject_integers_and_bools() {
    for op in UnaryOp::MATH {
        let int_ok = matches!(op, UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign | UnaryOp::Not);
        assert_eq!(eval_unary(op, &i32s(&[1])).is_ok(), int_ok, "{op:?} on i32");
        assert_eq!(eval_unary(op, &bools(&[true])).is_ok(), op == UnaryOp::Not, "{op:?} on bool");
        assert_eq!(eval_unary(op, &f32s(&[1.0])).is_ok(), op != UnaryOp::Not, "{op:?} on f32");
    }
}

#[test]
fn result_keeps_shape() {
    let x = Array::from_f32(&[2, 3, 0], vec![]).unwrap();
    assert_eq!(eval_unary(UnaryOp::Exp, &x).unwrap().shape(), &[2, 3, 0]);
    let x = Array::from_f64(&[2, 2], vec![1.0, f64::INFINITY, f64::NAN, -0.0]).unwrap();
    let finite = eval_unary(UnaryOp::IsFinite, &x).unwrap();
    assert_eq!(finite.shape(), &[2, 2]);
    assert_eq!(finite.as_bool().unwrap(), &[true, false, false, true]);
    let scalar = eval_unary(UnaryOp::Neg, &Array::scalar_i32(4)).unwrap();
    assert_eq!(scalar, Array::scalar_i32(-4));
}

#[test]
fn is_finite_on_f32() {
    let got = eval_unary(UnaryOp::IsFinite, &f32s(&[1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN])).unwrap();
    assert_eq!(got.as_bool().unwrap(), &[true, false, false, false]);
}

#[test]
fn integer_neg_and_abs_wrap() {
    let x = i32s(&[3, -4, 0, i32::MIN, i32::MAX]);
    assert_eq!(eval_unary(UnaryOp::Neg, &x).unwrap().as_i32().unwrap(), &[-3, 4, 0, i32::MIN, -i32::MAX]);
    assert_eq!(eval_unary(UnaryOp::Abs, &x).unwrap().as_i32().unwrap(), &[3, 4, 0, i32::MIN, i32::MAX]);
    assert_eq!(eval_unary(UnaryOp::Sign, &x).unwrap().as_i32().unwrap(), &[1, -1, 0, -1, 1]);
}

#[test]
fn float_neg_and_abs_handle_zero_and_nan() {
    let x = [0.0, -0.0, f32::INFINITY];
    assert_eq!(bits32(&eval_unary(UnaryOp::Neg, &f32s(&x)).unwrap()), expect32(&[-0.0, 0.0, f32::NEG_INFINITY]));
    assert_eq!(bits64(&eval_unary(UnaryOp::Abs, &f64s(&[-0.0, -2.0])).unwrap()), expect64(&[0.0, 2.0]));
    assert!(eval_unary(UnaryOp::Abs, &f32s(&[f32::NAN])).unwrap().as_f32().unwrap()[0].is_nan());
}

#[test]
fn sign_keeps_signed_zero_and_nan() {
    let x = [-3.0, -0.0, 0.0, 2.0, f32::NEG_INFINITY, 1e-40];
    let got = eval_unary(UnaryOp::Sign, &f32s(&x)).unwrap();
    assert_eq!(bits32(&got), expect32(&[-1.0, -0.0, 0.0, 1.0, -1.0, 1.0]));
    let got = eval_unary(UnaryOp::Sign, &f64s(&[f64::NAN, -0.0, 7.0])).unwrap();
    let got = got.as_f64().unwrap();
    assert!(got[0].is_nan());
    assert_eq!(expect64(&got[1..]), expect64(&[-0.0, 1.0]));
}

#[test]
fn round_is_half_to_even() {
    let x = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, -2.6, 3.5];
    let want = [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 2.0, -3.0, 4.0];
    assert_eq!(
        bits32(&eval_unary(UnaryOp::Round, &f32s(&x.map(|v| v as f32))).unwrap()),
        expect32(&want.map(|v| v as f32))
    );
    assert_eq!(bits64(&eval_unary(UnaryOp::Round, &f64s(&x)).unwrap()), expect64(&want));
}

#[test]
fn floor_and_ceil_keep_signed_zero() {
    assert_eq!(bits64(&eval_unary(UnaryOp::Ceil, &f64s(&[-0.5, 0.5])).unwrap()), expect64(&[-0.0, 1.0]));
    assert_eq!(bits32(&eval_unary(UnaryOp::Floor, &f32s(&[-0.0, 0.5])).unwrap()), expect32(&[-0.0, 0.0]));
}

#[test]
fn logistic_saturates_without_nan() {
    let x = [-1000.0, 1000.0, f64::NEG_INFINITY, f64::INFINITY, -100.0];
    let got = eval_unary(UnaryOp::Logistic, &f64s(&x)).unwrap();
    let got = got.as_f64().unwrap();
    assert_eq!(expect64(&got[..4]), expect64(&[0.0, 1.0, 0.0, 1.0]));
    assert!((got[4] / 3.720075976020836e-44 - 1.0).abs() < 1e-14, "{}", got[4]);
    let got = eval_unary(UnaryOp::Logistic, &f32s(&[-1000.0, -200.0, 1000.0, f32::NEG_INFINITY, f32::NAN])).unwrap();
    let got = got.as_f32().unwrap();
    assert_eq!(expect32(&got[..4]), expect32(&[0.0, 0.0, 1.0, 0.0]));
    assert!(got[4].is_nan());
}

#[test]
fn special_values_follow_ieee() {
    let got = eval_unary(UnaryOp::Log, &f32s(&[0.0, -1.0, f32::INFINITY])).unwrap();
    let got = got.as_f32().unwrap();
    assert_eq!(got[0], f32::NEG_INFINITY);
    assert!(got[1].is_nan());
    assert_eq!(got[2], f32::INFINITY);
    let got = eval_unary(UnaryOp::Rsqrt, &f64s(&[0.0, -0.0, f64::INFINITY])).unwrap();
    assert_eq!(bits64(&got), expect64(&[f64::INFINITY, f64::NEG_INFINITY, 0.0]));
    assert!(eval_unary(UnaryOp::Sqrt, &f64s(&[-1.0])).unwrap().as_f64().unwrap()[0].is_nan());
    let got = eval_unary(UnaryOp::Erf, &f32s(&[f32::NEG_INFINITY, -0.0])).unwrap();
    assert_eq!(bits32(&got), expect32(&[-1.0, -0.0]));
}

#[test]
fn not_is_logical_or_bitwise() {
    assert_eq!(eval_unary(UnaryOp::Not, &bools(&[true, false])).unwrap().as_bool().unwrap(), &[false, true]);
    assert_eq!(eval_unary(UnaryOp::Not, &i32s(&[0, 5, -1])).unwrap().as_i32().unwrap(), &[-1, -6, 0]);
}

#[test]
fn integer_pow_on_floats() {
    let x = f32s(&[2.0, -3.0, 0.0, f32::NAN]);
    let pow = |y| eval_integer_pow(y, &x).unwrap();
    assert_eq!(bits32(&pow(0)), expect32(&[1.0, 1.0, 1.0, 1.0]));
    assert_eq!(bits32(&pow(1))[..3], expect32(&[2.0, -3.0, 0.0]));
    assert_eq!(bits32(&pow(3))[..3], expect32(&[8.0, -27.0, 0.0]));
    assert_eq!(bits32(&pow(-2))[..3], expect32(&[0.25, 1.0 / 9.0, f32::INFINITY]));
    assert!(pow(2).as_f32().unwrap()[3].is_nan());
    let got = eval_integer_pow(10, &f64s(&[2.0, -0.5])).unwrap();
    assert_eq!(bits64(&got), expect64(&[1024.0, 0.0009765625]));
    assert_eq!(bits64(&eval_integer_pow(-1, &f64s(&[-0.0])).unwrap()), expect64(&[f64::NEG_INFINITY]));
}

#[test]
fn integer_pow_multiplies_in_squaring_order() {
    let x = 1.1f32;
    let (x2, x4) = (x * x, x * x * (x * x));
    let got = eval_integer_pow(5, &f32s(&[x])).unwrap().as_f32().unwrap()[0];
    assert_eq!(got.to_bits(), (x * x4).to_bits());
    let got = eval_integer_pow(6, &f32s(&[x])).unwrap().as_f32().unwrap()[0];
    assert_eq!(got.to_bits(), (x2 * x4).to_bits());
    let got = eval_integer_pow(-3, &f32s(&[x])).unwrap().as_f32().unwrap()[0];
    assert_eq!(got.to_bits(), (1.0 / (x * x2)).to_bits());
}

#[test]
fn integer_pow_on_i32_wraps() {
    let x = i32s(&[2, -3, 0, 1, -1, 7]);
    assert_eq!(eval_integer_pow(3, &x).unwrap().as_i32().unwrap(), &[8, -27, 0, 1, -1, 343]);
    assert_eq!(eval_integer_pow(0, &x).unwrap().as_i32().unwrap(), &[1; 6]);
    let want: Vec<i32> = [2i32, -3, 0, 1, -1, 7].iter().map(|&a| a.wrapping_pow(31)).collect();
    assert_eq!(eval_integer_pow(31, &x).unwrap().as_i32().unwrap(), &want[..]);
    assert_eq!(eval_integer_pow(32, &i32s(&[2])).unwrap().as_i32().unwrap(), &[0]);
    assert_eq!(
        eval_integer_pow(i32::MAX, &i32s(&[3])).unwrap().as_i32().unwrap(),
        &[3i32.wrapping_pow(i32::MAX as u32)]
    );
}

#[test]
fn integer_pow_on_i32_negative_exponent_divides() {
    let x = i32s(&[2, -3, 0, 1, -1]);
    assert_eq!(eval_integer_pow(-1, &x).unwrap().as_i32().unwrap(), &[0, 0, -1, 1, -1]);
    assert_eq!(eval_integer_pow(-2, &x).unwrap().as_i32().unwrap(), &[0, 0, -1, 1, 1]);
    assert_eq!(eval_integer_pow(i32::MIN, &x).unwrap().as_i32().unwrap(), &[-1, 1, -1, 1, 1]);
    assert!(eval_integer_pow(2, &bools(&[true])).is_err());
}

#[test]
fn convert_float_to_int_saturates() {
    let x = [1.9, -1.9, 3e9, -3e9, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0];
    let want = [1, -1, i32::MAX, i32::MIN, 0, i32::MAX, i32::MIN, 0];
    assert_eq!(eval_convert(DType::I32, &f32s(&x)).unwrap().as_i32().unwrap(), &want);
    let x = [2147483647.9, -2147483648.9, 1e300, f64::NAN, 2.5];
    let want = [i32::MAX, i32::MIN, i32::MAX, 0, 2];
    assert_eq!(eval_convert(DType::I32, &f64s(&x)).unwrap().as_i32().unwrap(), &want);
}

#[test]
fn convert_to_and_from_bool() {
    let x = f32s(&[0.0, -0.0, 0.5, f32::NAN, f32::NEG_INFINITY]);
    assert_eq!(eval_convert(DType::Bool, &x).unwrap().as_bool().unwrap(), &[false, false, true, true, true]);
    let x = f64s(&[0.0, 1e-300]);
    assert_eq!(eval_convert(DType::Bool, &x).unwrap().as_bool().unwrap(), &[false, true]);
    assert_eq!(eval_convert(DType::Bool, &i32s(&[0, -7])).unwrap().as_bool().unwrap(), &[false, true]);
    let b = bools(&[false, true]);
    assert_eq!(eval_convert(DType::I32, &b).unwrap().as_i32().unwrap(), &[0, 1]);
    assert_eq!(bits32(&eval_convert(DType::F32, &b).unwrap()), expect32(&[0.0, 1.0]));
    assert_eq!(bits64(&eval_convert(DType::F64, &b).unwrap()), expect64(&[0.0, 1.0]));
    assert_eq!(eval_convert(DType::Bool, &b).unwrap(), b);
}

#[test]
fn convert_between_numbers_rounds() {
    let x = i32s(&[16777217, -5, i32::MIN]);
    assert_eq!(bits32(&eval_convert(DType::F32, &x).unwrap()), expect32(&[16777216.0, -5.0, -2147483648.0]));
    assert_eq!(bits64(&eval_convert(DType::F64, &x).unwrap()), expect64(&[16777217.0, -5.0, -2147483648.0]));
    let x = f64s(&[0.1, 1e300, -1e-300, f64::NEG_INFINITY]);
    assert_eq!(
        bits32(&eval_convert(DType::F32, &x).unwrap()),
        expect32(&[0.1, f32::INFINITY, -0.0, f32::NEG_INFINITY])
    );
    let x = f32s(&[0.1, -0.0]);
    assert_eq!(bits64(&eval_convert(DType::F64, &x).unwrap()), expect64(&[f64::from(0.1f32), -0.0]));
    assert!(eval_convert(DType::F64, &f32s(&[f32::NAN])).unwrap().as_f64().unwrap()[0].is_nan());
}

#[test]
fn convert_to_same_dtype_copies_and_keeps_shape() {
    let x = Array::from_i32(&[2, 2], vec![1, 2, 3, 4]).unwrap();
    assert_eq!(eval_convert(DType::I32, &x).unwrap(), x);
    let y = eval_convert(DType::F32, &x).unwrap();
    assert_eq!(y.shape(), &[2, 2]);
    let x = f64s(&[f64::NAN, -0.0]);
    assert_eq!(bits64(&eval_convert(DType::F64, &x).unwrap()), bits64(&x));
    assert_eq!(bits32(&eval_convert(DType::F32, &f32s(&[-0.0])).unwrap()), expect32(&[-0.0]));
}
