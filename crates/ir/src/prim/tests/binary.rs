//! Unit tests of the binary family's rules.

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

fn on_f32(op: BinaryOp, a: &[f32], b: &[f32]) -> Vec<u32> {
    bits32(&eval_binary(op, &f32s(a), &f32s(b)).unwrap())
}

fn on_f64(op: BinaryOp, a: &[f64], b: &[f64]) -> Vec<u64> {
    bits64(&eval_binary(op, &f64s(a), &f64s(b)).unwrap())
}

fn on_i32(op: BinaryOp, a: &[i32], b: &[i32]) -> Vec<i32> {
    eval_binary(op, &i32s(a), &i32s(b)).unwrap().as_i32().unwrap().to_vec()
}

fn on_bool(op: BinaryOp, a: &[bool], b: &[bool]) -> Vec<bool> {
    eval_binary(op, &bools(a), &bools(b)).unwrap().as_bool().unwrap().to_vec()
}

#[test]
fn arithmetic_on_floats() {
    let (a, b) = ([1.5, -2.0, 0.1], [0.5, 4.0, 0.2]);
    assert_eq!(on_f32(BinaryOp::Add, &a, &b), expect32(&[2.0, 2.0, 0.1 + 0.2]));
    assert_eq!(on_f32(BinaryOp::Sub, &a, &b), expect32(&[1.0, -6.0, 0.1 - 0.2]));
    assert_eq!(on_f32(BinaryOp::Mul, &a, &b), expect32(&[0.75, -8.0, 0.1 * 0.2]));
    assert_eq!(on_f32(BinaryOp::Div, &a, &b), expect32(&[3.0, -0.5, 0.1 / 0.2]));
    let (a, b) = ([1.5, -2.0, 0.1], [0.5, 4.0, 0.2]);
    assert_eq!(on_f64(BinaryOp::Add, &a, &b), expect64(&[2.0, 2.0, 0.1 + 0.2]));
    assert_eq!(on_f64(BinaryOp::Sub, &a, &b), expect64(&[1.0, -6.0, 0.1 - 0.2]));
    assert_eq!(on_f64(BinaryOp::Mul, &a, &b), expect64(&[0.75, -8.0, 0.1 * 0.2]));
    assert_eq!(on_f64(BinaryOp::Div, &a, &b), expect64(&[3.0, -0.5, 0.1 / 0.2]));
    assert_eq!(on_f32(BinaryOp::Add, &[-0.0], &[0.0]), expect32(&[0.0]));
    assert_eq!(on_f64(BinaryOp::Add, &[-0.0], &[-0.0]), expect64(&[-0.0]));
}

#[test]
fn float_division_by_zero_is_ieee() {
    let got = on_f32(BinaryOp::Div, &[1.0, -1.0, 1.0], &[0.0, 0.0, -0.0]);
    assert_eq!(got, expect32(&[f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY]));
    let got = eval_binary(BinaryOp::Div, &f64s(&[0.0]), &f64s(&[0.0])).unwrap();
    assert!(got.as_f64().unwrap()[0].is_nan());
}

#[test]
fn integer_arithmetic_wraps() {
    let (a, b) = ([i32::MAX, i32::MIN, 3, i32::MAX], [1, 1, -4, 2]);
    assert_eq!(on_i32(BinaryOp::Add, &a, &b), vec![i32::MIN, i32::MIN + 1, -1, i32::MAX.wrapping_add(2)]);
    assert_eq!(on_i32(BinaryOp::Sub, &a, &b), vec![i32::MAX - 1, i32::MAX, 7, i32::MAX - 2]);
    assert_eq!(on_i32(BinaryOp::Mul, &a, &b), vec![i32::MAX, i32::MIN, -12, -2]);
    assert_eq!(on_i32(BinaryOp::Mul, &[65536, i32::MIN], &[65536, -1]), vec![0, i32::MIN]);
}

#[test]
fn integer_division_truncates_and_never_traps() {
    let a = [7, -7, 7, -7, 5, 0, -5, i32::MIN, i32::MIN, i32::MAX];
    let b = [2, 2, -2, -2, 0, 0, 0, -1, 1, -1];
    assert_eq!(on_i32(BinaryOp::Div, &a, &b), vec![3, -3, -3, 3, -1, -1, -1, i32::MIN, i32::MIN, -i32::MAX]);
    assert_eq!(on_i32(BinaryOp::Rem, &a, &b), vec![1, -1, 1, -1, 5, 0, -5, 0, 0, 0]);
}

#[test]
fn float_rem_is_fmod() {
    let a = [5.5, -5.5, 5.0, -0.0, 1.0];
    let b = [2.0, 2.0, -3.0, 1.0, f32::INFINITY];
    assert_eq!(on_f32(BinaryOp::Rem, &a, &b), expect32(&[1.5, -1.5, 2.0, -0.0, 1.0]));
    let a = [5.5, -5.5, 5.0, 1.0];
    let b = [2.0, 2.0, -3.0, f64::INFINITY];
    assert_eq!(on_f64(BinaryOp::Rem, &a, &b), expect64(&[1.5, -1.5, 2.0, 1.0]));
    let got = eval_binary(BinaryOp::Rem, &f64s(&[1.0, f64::INFINITY]), &f64s(&[0.0, 1.0])).unwrap();
    assert!(got.as_f64().unwrap().iter().all(|v| v.is_nan()));
}

#[test]
fn pow_is_powf() {
    let (a, b) = ([2.0, 4.0, 0.0, 2.0, 1.0], [10.0, 0.5, 0.0, -1.0, f32::NAN]);
    assert_eq!(on_f32(BinaryOp::Pow, &a, &b), expect32(&[1024.0, 2.0, 1.0, 0.5, 1.0]));
    let (a, b) = ([2.0, 9.0, f64::NAN], [3.0, 0.5, 0.0]);
    assert_eq!(on_f64(BinaryOp::Pow, &a, &b), expect64(&[8.0, 3.0, 1.0]));
    let got = eval_binary(BinaryOp::Pow, &f64s(&[-8.0]), &f64s(&[1.0 / 3.0])).unwrap();
    assert!(got.as_f64().unwrap()[0].is_nan());
}

#[test]
fn atan2_takes_quadrant_from_both() {
    let pi = std::f64::consts::PI;
    let (a, b) = ([1.0, 1.0, 0.0, -0.0, -1.0], [1.0, -1.0, -0.0, 1.0, 0.0]);
    assert_eq!(on_f64(BinaryOp::Atan2, &a, &b), expect64(&[pi / 4.0, 3.0 * pi / 4.0, pi, -0.0, -pi / 2.0]));
    let pi = std::f32::consts::PI;
    assert_eq!(on_f32(BinaryOp::Atan2, &[1.0, 0.0], &[0.0, -1.0]), expect32(&[pi / 2.0, pi]));
}

#[test]
fn max_min_propagate_nan_and_order_signed_zeros() {
    let nan = f32::NAN;
    let (a, b) = ([nan, 1.0, -0.0, 0.0, 3.0, -1.0], [1.0, nan, 0.0, -0.0, -2.0, f32::NEG_INFINITY]);
    let max = eval_binary(BinaryOp::Max, &f32s(&a), &f32s(&b)).unwrap();
    let max = max.as_f32().unwrap();
    assert!(max[0].is_nan() && max[1].is_nan());
    assert_eq!(expect32(&max[2..]), expect32(&[0.0, 0.0, 3.0, -1.0]));
    let min = eval_binary(BinaryOp::Min, &f32s(&a), &f32s(&b)).unwrap();
    let min = min.as_f32().unwrap();
    assert!(min[0].is_nan() && min[1].is_nan());
    assert_eq!(expect32(&min[2..]), expect32(&[-0.0, -0.0, -2.0, f32::NEG_INFINITY]));
    let nan = f64::NAN;
    let max = eval_binary(BinaryOp::Max, &f64s(&[nan, 2.0, -0.0]), &f64s(&[5.0, nan, 0.0])).unwrap();
    let max = max.as_f64().unwrap();
    assert!(max[0].is_nan() && max[1].is_nan());
    assert_eq!(max[2].to_bits(), 0.0f64.to_bits());
    let min = eval_binary(BinaryOp::Min, &f64s(&[nan, 0.0]), &f64s(&[5.0, -0.0])).unwrap();
    let min = min.as_f64().unwrap();
    assert!(min[0].is_nan());
    assert_eq!(min[1].to_bits(), (-0.0f64).to_bits());
}

#[test]
fn max_min_on_i32() {
    let (a, b) = ([i32::MIN, 5, -3], [i32::MAX, 2, -3]);
    assert_eq!(on_i32(BinaryOp::Max, &a, &b), vec![i32::MAX, 5, -3]);
    assert_eq!(on_i32(BinaryOp::Min, &a, &b), vec![i32::MIN, 2, -3]);
}

#[test]
fn and_or_are_logical_or_bitwise() {
    let (a, b) = ([false, false, true, true], [false, true, false, true]);
    assert_eq!(on_bool(BinaryOp::And, &a, &b), vec![false, false, false, true]);
    assert_eq!(on_bool(BinaryOp::Or, &a, &b), vec![false, true, true, true]);
    assert_eq!(on_i32(BinaryOp::And, &[0b1100, -1], &[0b1010, 7]), vec![0b1000, 7]);
    assert_eq!(on_i32(BinaryOp::Or, &[0b1100, i32::MIN], &[0b1010, 1]), vec![0b1110, i32::MIN + 1]);
}

#[test]
fn rejects_dtypes_outside_the_domain() {
    for op in BinaryOp::ALL {
        let float_ok = !matches!(op, BinaryOp::And | BinaryOp::Or);
        let int_ok = !matches!(op, BinaryOp::Pow | BinaryOp::Atan2);
        let bool_ok = matches!(op, BinaryOp::And | BinaryOp::Or);
        assert_eq!(eval_binary(op, &f32s(&[1.0]), &f32s(&[2.0])).is_ok(), float_ok, "{op:?} f32");
        assert_eq!(eval_binary(op, &f64s(&[1.0]), &f64s(&[2.0])).is_ok(), float_ok, "{op:?} f64");
        assert_eq!(eval_binary(op, &i32s(&[1]), &i32s(&[2])).is_ok(), int_ok, "{op:?} i32");
        assert_eq!(eval_binary(op, &bools(&[true]), &bools(&[false])).is_ok(), bool_ok, "{op:?} bool");
    }
    let err = eval_binary(BinaryOp::Add, &f32s(&[1.0]), &f64s(&[1.0])).unwrap_err();
    assert!(err.contains("f32 vs f64"), "{err}");
    let err = eval_binary(BinaryOp::Add, &f32s(&[1.0]), &f32s(&[1.0, 2.0])).unwrap_err();
    assert!(err.contains("shapes differ"), "{err}");
}

#[test]
fn binary_keeps_shape() {
    let a = Array::from_i32(&[2, 2], vec![1, 2, 3, 4]).unwrap();
    let got = eval_binary(BinaryOp::Mul, &a, &a).unwrap();
    assert_eq!(got, Array::from_i32(&[2, 2], vec![1, 4, 9, 16]).unwrap());
    let e = Array::from_f32(&[0, 3], vec![]).unwrap();
    assert_eq!(eval_binary(BinaryOp::Add, &e, &e).unwrap().shape(), &[0, 3]);
    let s = eval_binary(BinaryOp::Sub, &Array::scalar_f64(1.0), &Array::scalar_f64(3.0)).unwrap();
    assert_eq!(s, Array::scalar_f64(-2.0));
}

fn compare_all(x: &Array, y: &Array) -> Vec<Vec<bool>> {
    CompareOp::ALL.iter().map(|&op| eval_compare(op, x, y).unwrap().as_bool().unwrap().to_vec()).collect()
}

#[test]
fn compare_floats_is_ieee() {
    let nan = f32::NAN;
    let x = f32s(&[1.0, 2.0, 2.0, nan, nan, -0.0]);
    let y = f32s(&[2.0, 1.0, 2.0, 1.0, nan, 0.0]);
    let [eq, ne, lt, le, gt, ge] = compare_all(&x, &y).try_into().unwrap();
    assert_eq!(eq, [false, false, true, false, false, true]);
    assert_eq!(ne, [true, true, false, true, true, false]);
    assert_eq!(lt, [true, false, false, false, false, false]);
    assert_eq!(le, [true, false, true, false, false, true]);
    assert_eq!(gt, [false, true, false, false, false, false]);
    assert_eq!(ge, [false, true, true, false, false, true]);
    let x = f64s(&[f64::NAN, f64::NEG_INFINITY, 0.5]);
    let y = f64s(&[f64::NAN, -1e308, 0.5]);
    let [eq, ne, lt, le, gt, ge] = compare_all(&x, &y).try_into().unwrap();
    assert_eq!(eq, [false, false, true]);
    assert_eq!(ne, [true, true, false]);
    assert_eq!(lt, [false, true, false]);
    assert_eq!(le, [false, true, true]);
    assert_eq!(gt, [false, false, false]);
    assert_eq!(ge, [false, false, true]);
}

#[test]
fn compare_integers_and_bools() {
    let x = Array::from_i32(&[2, 2], vec![i32::MIN, 0, 5, -1]).unwrap();
    let y = Array::from_i32(&[2, 2], vec![i32::MAX, 0, 4, -1]).unwrap();
    let got = eval_compare(CompareOp::Lt, &x, &y).unwrap();
    assert_eq!(got, Array::from_bool(&[2, 2], vec![true, false, false, false]).unwrap());
    let [eq, ne, lt, le, gt, ge] = compare_all(&x, &y).try_into().unwrap();
    assert_eq!(eq, [false, true, false, true]);
    assert_eq!(ne, [true, false, true, false]);
    assert_eq!(lt, [true, false, false, false]);
    assert_eq!(le, [true, true, false, true]);
    assert_eq!(gt, [false, false, true, false]);
    assert_eq!(ge, [false, true, true, true]);
    let x = bools(&[false, false, true, true]);
    let y = bools(&[false, true, false, true]);
    let [eq, ne, lt, le, gt, ge] = compare_all(&x, &y).try_into().unwrap();
    assert_eq!(eq, [true, false, false, true]);
    assert_eq!(ne, [false, true, true, false]);
    assert_eq!(lt, [false, true, false, false]);
    assert_eq!(le, [true, true, false, true]);
    assert_eq!(gt, [false, false, true, false]);
    assert_eq!(ge, [true, false, true, true]);
    assert!(eval_compare(CompareOp::Eq, &i32s(&[1]), &f32s(&[1.0])).is_err());
}

#[test]
fn select_picks_per_element() {
    let p = bools(&[true, false, true]);
    let got = eval_select(&p, &f32s(&[1.0, 2.0, -0.0]), &f32s(&[4.0, f32::NAN, 6.0])).unwrap();
    assert_eq!(bits32(&got), expect32(&[1.0, f32::NAN, -0.0]));
    let got = eval_select(&p, &f64s(&[1.0, 2.0, 3.0]), &f64s(&[4.0, 5.0, 6.0])).unwrap();
    assert_eq!(bits64(&got), expect64(&[1.0, 5.0, 3.0]));
    let got = eval_select(&p, &i32s(&[1, 2, 3]), &i32s(&[4, 5, 6])).unwrap();
    assert_eq!(got.as_i32().unwrap(), &[1, 5, 3]);
    let got = eval_select(&p, &bools(&[false, false, false]), &bools(&[true, true, true])).unwrap();
    assert_eq!(got.as_bool().unwrap(), &[false, true, false]);
    let p = Array::from_bool(&[2, 1], vec![false, true]).unwrap();
    let t = Array::from_i32(&[2, 1], vec![1, 2]).unwrap();
    let f = Array::from_i32(&[2, 1], vec![3, 4]).unwrap();
    assert_eq!(eval_select(&p, &t, &f).unwrap(), Array::from_i32(&[2, 1], vec![3, 2]).unwrap());
    assert!(eval_select(&i32s(&[1]), &i32s(&[1]), &i32s(&[2])).is_err());
    assert!(eval_select(&bools(&[true]), &i32s(&[1]), &f32s(&[2.0])).is_err());
    assert!(eval_select(&bools(&[true, false]), &i32s(&[1]), &i32s(&[2])).is_err());
}

#[test]
fn clamp_is_min_of_max() {
    let lo = f32s(&[0.0, 0.0, 0.0, 0.0, f32::NAN, 0.0, 0.0, 2.0]);
    let x = f32s(&[-1.0, 0.5, 3.0, f32::NAN, 0.5, 0.5, -0.0, 1.0]);
    let hi = f32s(&[1.0, 1.0, 1.0, 1.0, 1.0, f32::NAN, 1.0, 1.0]);
    let got = eval_clamp(&lo, &x, &hi).unwrap();
    let got = got.as_f32().unwrap();
    assert_eq!(expect32(&got[..3]), expect32(&[0.0, 0.5, 1.0]));
    assert!(got[3].is_nan() && got[4].is_nan() && got[5].is_nan());
    assert_eq!(expect32(&got[6..]), expect32(&[0.0, 1.0]));
    let got = eval_clamp(&f64s(&[-0.0, -1.0]), &f64s(&[-0.0, 0.0]), &f64s(&[0.0, -0.0])).unwrap();
    assert_eq!(bits64(&got), expect64(&[-0.0, -0.0]));
    let got = eval_clamp(&i32s(&[0, 0, 0, 5]), &i32s(&[-7, 3, 9, 0]), &i32s(&[4, 4, 4, 2])).unwrap();
    assert_eq!(got.as_i32().unwrap(), &[0, 3, 4, 2]);
    assert!(eval_clamp(&bools(&[false]), &bools(&[true]), &bools(&[true])).is_err());
    assert!(eval_clamp(&i32s(&[0]), &f32s(&[1.0]), &f32s(&[2.0])).is_err());
}
