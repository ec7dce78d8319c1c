//! Unit tests of the reduce family's rules.

use super::*;

fn f32s(shape: &[usize], values: &[f32]) -> Array {
    Array::from_f32(shape, values.to_vec()).unwrap()
}

fn f64s(shape: &[usize], values: &[f64]) -> Array {
    Array::from_f64(shape, values.to_vec()).unwrap()
}

fn i32s(shape: &[usize], values: &[i32]) -> Array {
    Array::from_i32(shape, values.to_vec()).unwrap()
}

fn bits32(a: &Array) -> Vec<u32> {
    a.as_f32().unwrap().iter().map(|v| v.to_bits()).collect()
}

fn expect32(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

fn reduce(op: ReduceOp, axes: &[usize], x: &Array) -> Array {
    eval_reduce(op, axes, x).unwrap()
}

#[test]
fn reduce_over_one_axis() {
    let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(reduce(ReduceOp::Sum, &[1], &x), f32s(&[2], &[6.0, 15.0]));
    assert_eq!(reduce(ReduceOp::Sum, &[0], &x), f32s(&[3], &[5.0, 7.0, 9.0]));
    assert_eq!(reduce(ReduceOp::Prod, &[1], &x), f32s(&[2], &[6.0, 120.0]));
    assert_eq!(reduce(ReduceOp::Max, &[0], &x), f32s(&[3], &[4.0, 5.0, 6.0]));
    assert_eq!(reduce(ReduceOp::Min, &[1], &x), f32s(&[2], &[1.0, 4.0]));
    let x = f64s(&[3, 2], &[1.5, -2.0, 0.25, 8.0, -3.0, 0.5]);
    assert_eq!(reduce(ReduceOp::Sum, &[0], &x), f64s(&[2], &[-1.25, 6.5]));
    assert_eq!(reduce(ReduceOp::Prod, &[0], &x), f64s(&[2], &[-1.125, -8.0]));
    assert_eq!(reduce(ReduceOp::Max, &[1], &x), f64s(&[3], &[1.5, 8.0, 0.5]));
    assert_eq!(reduce(ReduceOp::Min, &[1], &x), f64s(&[3], &[-2.0, 0.25, -3.0]));
    let x = i32s(&[2, 2], &[3, -4, 5, 6]);
    assert_eq!(reduce(ReduceOp::Sum, &[0], &x), i32s(&[2], &[8, 2]));
    assert_eq!(reduce(ReduceOp::Prod, &[1], &x), i32s(&[2], &[-12, 30]));
    assert_eq!(reduce(ReduceOp::Max, &[1], &x), i32s(&[2], &[3, 6]));
    assert_eq!(reduce(ReduceOp::Min, &[0], &x), i32s(&[2], &[3, -4]));
}

#[test]
fn reduce_over_several_zero_and_all_axes() {
    let values: Vec<i32> = (0..24).collect();
    let x = i32s(&[2, 3, 4], &values);
    let want = i32s(&[3], &[60, 92, 124]);
    assert_eq!(reduce(ReduceOp::Sum, &[0, 2], &x), want);
    assert_eq!(reduce(ReduceOp::Sum, &[2, 0], &x), want);
    assert_eq!(reduce(ReduceOp::Max, &[1, 2], &x), i32s(&[2], &[11, 23]));
    assert_eq!(reduce(ReduceOp::Sum, &[0, 1, 2], &x), Array::scalar_i32(276));
    assert_eq!(reduce(ReduceOp::Min, &[2, 1, 0], &x), Array::scalar_i32(0));
    for op in ReduceOp::ALL {
        assert_eq!(reduce(op, &[], &x), x, "{op:?} over no axes");
    }
    assert_eq!(reduce(ReduceOp::Sum, &[], &Array::scalar_f32(2.5)), Array::scalar_f32(2.5));
}

#[test]
fn reduce_over_zero_elements_gives_identity() {
    for (shape, axes, out) in [(&[0, 3][..], &[0][..], &[3][..]), (&[2, 0], &[1], &[2]), (&[0, 3], &[0, 1], &[])] {
        let x = f32s(shape, &[]);
        let n = out.iter().product();
        assert_eq!(reduce(ReduceOp::Sum, axes, &x), f32s(out, &vec![0.0; n]));
        assert_eq!(reduce(ReduceOp::Prod, axes, &x), f32s(out, &vec![1.0; n]));
        assert_eq!(reduce(ReduceOp::Max, axes, &x), f32s(out, &vec![f32::NEG_INFINITY; n]));
        assert_eq!(reduce(ReduceOp::Min, axes, &x), f32s(out, &vec![f32::INFINITY; n]));
    }
    let x = f64s(&[0], &[]);
    assert_eq!(reduce(ReduceOp::Max, &[0], &x), Array::scalar_f64(f64::NEG_INFINITY));
    assert_eq!(reduce(ReduceOp::Min, &[0], &x), Array::scalar_f64(f64::INFINITY));
    let x = i32s(&[2, 0], &[]);
    assert_eq!(reduce(ReduceOp::Sum, &[1], &x), i32s(&[2], &[0, 0]));
    assert_eq!(reduce(ReduceOp::Prod, &[1], &x), i32s(&[2], &[1, 1]));
    assert_eq!(reduce(ReduceOp::Max, &[1], &x), i32s(&[2], &[i32::MIN, i32::MIN]));
    assert_eq!(reduce(ReduceOp::Min, &[1], &x), i32s(&[2], &[i32::MAX, i32::MAX]));
    // No kept elements: nothing to reduce into.
    assert_eq!(reduce(ReduceOp::Sum, &[1], &i32s(&[0, 3], &[])), i32s(&[0], &[]));
}

#[test]
fn reduce_max_min_propagate_nan() {
    let nan = f32::NAN;
    let x = f32s(&[3, 3], &[1.0, nan, 3.0, nan, 5.0, 6.0, 7.0, 8.0, 9.0]);
    let max = reduce(ReduceOp::Max, &[1], &x);
    let max = max.as_f32().unwrap();
    assert!(max[0].is_nan() && max[1].is_nan());
    assert_eq!(max[2], 9.0);
    let min = reduce(ReduceOp::Min, &[0], &x);
    let min = min.as_f32().unwrap();
    assert!(min[0].is_nan() && min[1].is_nan());
    assert_eq!(min[2], 3.0);
    assert!(reduce(ReduceOp::Sum, &[0, 1], &x).as_f32().unwrap()[0].is_nan());
    let x = f64s(&[3], &[f64::NAN, f64::INFINITY, 1.0]);
    assert!(reduce(ReduceOp::Max, &[0], &x).as_f64().unwrap()[0].is_nan());
    assert!(reduce(ReduceOp::Min, &[0], &x).as_f64().unwrap()[0].is_nan());
}

#[test]
fn reduce_signed_zeros() {
    let x = f32s(&[2], &[-0.0, -0.0]);
    assert_eq!(bits32(&reduce(ReduceOp::Sum, &[0], &x)), expect32(&[0.0]));
    assert_eq!(bits32(&reduce(ReduceOp::Prod, &[0], &x)), expect32(&[0.0]));
    assert_eq!(bits32(&reduce(ReduceOp::Max, &[0], &x)), expect32(&[-0.0]));
    assert_eq!(bits32(&reduce(ReduceOp::Max, &[0], &f32s(&[2], &[-0.0, 0.0]))), expect32(&[0.0]));
    assert_eq!(bits32(&reduce(ReduceOp::Min, &[0], &f32s(&[2], &[0.0, -0.0]))), expect32(&[-0.0]));
}

#[test]
fn reduce_sums_in_the_blocked_pairwise_order() {
    // Four f32 elements are one vector in slot row 0: lanes left to right, as a left fold.
    let x = f32s(&[4], &[1e8, 1.0, -1e8, 1.0]);
    assert_eq!(reduce(ReduceOp::Sum, &[0], &x), Array::scalar_f32(1.0));
    // Over axes [0, 1] of [[1e8, 1], [-1e8, 1]] each row of 2 is a tail (1e8 and -1e8
    // after rounding), then the rows pairwise: 0, where the flat left fold gives 1.
    let x = f32s(&[2, 2], &[1e8, 1.0, -1e8, 1.0]);
    assert_eq!(reduce(ReduceOp::Sum, &[1, 0], &x), Array::scalar_f32(0.0));
    // A column of the transpose is the reduced row: the same value as the vector above.
    let x = f32s(&[4, 1], &[1e8, 1.0, -1e8, 1.0]);
    assert_eq!(reduce(ReduceOp::Sum, &[0], &x), f32s(&[1], &[1.0]));
    // 16 f32 elements are one group: slot j of lane l gets element 4j + l, the slots
    // combine as ((a0+a1)+(a2+a3)): 2^24 and three ones in lane 0's slots give 2^24 + 2,
    // where a left fold loses every one (2^24 + 1 rounds to 2^24).
    let mut v = vec![0.0f32; 16];
    v[0] = 16_777_216.0;
    for j in 1..4 {
        v[4 * j] = 1.0;
    }
    assert_eq!(reduce(ReduceOp::Sum, &[0], &f32s(&[16], &v)), Array::scalar_f32(16_777_218.0));
    assert_eq!(v.iter().fold(0.0f32, |a, &b| a + b), 16_777_216.0);
    // f64: 2 lanes, so 1e17 and -1e17 share lane 0 and the ones lane 1: exactly 2 (a
    // left fold gives 1).
    let x = f64s(&[4], &[1e17, 1.0, -1e17, 1.0]);
    assert_eq!(reduce(ReduceOp::Sum, &[0], &x), Array::scalar_f64(2.0));
}

/// The sum of 2×10^7 f32 ones is exact: a left fold stalls at 2^24 = 16777216.
#[test]
fn twenty_million_f32_ones() {
    let x = Array::from_f32(&[20_000_000], vec![1.0; 20_000_000]).unwrap();
    assert_eq!(reduce(ReduceOp::Sum, &[0], &x), Array::scalar_f32(2e7));
    let x = x.reshaped(&[2, 10_000_000]).unwrap();
    assert_eq!(reduce(ReduceOp::Sum, &[0, 1], &x), Array::scalar_f32(2e7));
    assert_eq!(reduce(ReduceOp::Sum, &[1], &x), f32s(&[2], &[1e7, 1e7]));
}

/// On random data the blocked pairwise sum stays within its stated bound
/// `γ_d·Σ|x|` of the exact (f64) sum, with `d = 72 + ⌈log2⌈n/1024⌉⌉` for one f32 row.
#[test]
fn random_sums_within_the_stated_bound() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 0.5
    };
    for n in [1usize, 15, 1024, 1025, 40_000, 1_000_003] {
        let v: Vec<f32> = (0..n).map(|_| next()).collect();
        let got = f64::from(reduce(ReduceOp::Sum, &[0], &f32s(&[n], &v)).as_f32().unwrap()[0]);
        let exact: f64 = v.iter().map(|&a| f64::from(a)).sum();
        let abs: f64 = v.iter().map(|&a| f64::from(a).abs()).sum();
        let d = 72.0 + (n.div_ceil(1024) as f64).log2().ceil();
        let u = 2f64.powi(-24);
        let bound = d * u / (1.0 - d * u) * abs;
        assert!((got - exact).abs() <= bound, "n = {n}: {got} vs {exact}, bound {bound}");
        if n == 1_000_003 {
            // Far below the left fold's error on the same data.
            let seq = f64::from(v.iter().fold(0.0f32, |a, &b| a + b));
            assert!((got - exact).abs() * 8.0 < (seq - exact).abs(), "{got} {seq} {exact}");
        }
    }
}

#[test]
fn integer_reductions_wrap() {
    let x = i32s(&[3], &[i32::MAX, 1, 1]);
    assert_eq!(reduce(ReduceOp::Sum, &[0], &x), Array::scalar_i32(i32::MIN + 1));
    let x = i32s(&[2], &[65536, 65536]);
    assert_eq!(reduce(ReduceOp::Prod, &[0], &x), Array::scalar_i32(0));
    assert_eq!(reduce(ReduceOp::Prod, &[0], &i32s(&[2], &[i32::MIN, -1])), Array::scalar_i32(i32::MIN));
}

#[test]
fn reductions_reject_bool_and_bad_axes() {
    let b = Array::from_bool(&[2], vec![true, false]).unwrap();
    for op in ReduceOp::ALL {
        assert!(eval_reduce(op, &[0], &b).is_err());
    }
    assert!(eval_reduce(ReduceOp::Sum, &[1], &f32s(&[2], &[1.0, 2.0])).is_err());
    assert!(eval_reduce(ReduceOp::Sum, &[0, 0], &f32s(&[2], &[1.0, 2.0])).is_err());
    assert!(eval_arg_reduce(ArgOp::Argmax, 0, &b).is_err());
    assert!(eval_cumsum(0, false, &b).is_err());
}

fn arg(op: ArgOp, axis: usize, x: &Array) -> Vec<i32> {
    eval_arg_reduce(op, axis, x).unwrap().as_i32().unwrap().to_vec()
}

#[test]
fn arg_reduce_returns_first_extreme() {
    let x = f32s(&[2, 4], &[1.0, 3.0, 3.0, 2.0, 0.0, -1.0, -1.0, 0.0]);
    assert_eq!(arg(ArgOp::Argmax, 1, &x), vec![1, 0]);
    assert_eq!(arg(ArgOp::Argmin, 1, &x), vec![0, 1]);
    assert_eq!(arg(ArgOp::Argmax, 0, &x), vec![0, 0, 0, 0]);
    assert_eq!(arg(ArgOp::Argmin, 0, &x), vec![1, 1, 1, 1]);
    let x = f64s(&[5], &[-0.0, 0.0, f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY]);
    assert_eq!(arg(ArgOp::Argmax, 0, &x), vec![3]);
    assert_eq!(arg(ArgOp::Argmin, 0, &x), vec![2]);
    assert_eq!(arg(ArgOp::Argmax, 0, &f64s(&[2], &[-0.0, 0.0])), vec![0]);
    assert_eq!(arg(ArgOp::Argmin, 0, &f64s(&[2], &[0.0, -0.0])), vec![0]);
    let x = i32s(&[2, 3], &[i32::MIN, 7, 7, i32::MAX, i32::MIN, i32::MAX]);
    assert_eq!(arg(ArgOp::Argmax, 1, &x), vec![1, 0]);
    assert_eq!(arg(ArgOp::Argmin, 1, &x), vec![0, 1]);
    let result = eval_arg_reduce(ArgOp::Argmax, 0, &Array::from_f32(&[1], vec![2.0]).unwrap()).unwrap();
    assert_eq!(result, Array::scalar_i32(0));
}

#[test]
fn arg_reduce_first_nan_wins() {
    let nan = f32::NAN;
    let x = f32s(&[3, 4], &[1.0, nan, 5.0, nan, nan, 9.0, 0.0, 1.0, 2.0, 3.0, 4.0, nan]);
    assert_eq!(arg(ArgOp::Argmax, 1, &x), vec![1, 0, 3]);
    assert_eq!(arg(ArgOp::Argmin, 1, &x), vec![1, 0, 3]);
    let x = f64s(&[3], &[f64::NEG_INFINITY, f64::NAN, f64::NAN]);
    assert_eq!(arg(ArgOp::Argmin, 0, &x), vec![1]);
}

#[test]
fn arg_reduce_over_a_middle_axis() {
    let values: Vec<f32> = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8].iter().map(|&v| v as f32).collect();
    let x = f32s(&[2, 3, 2], &values);
    let got = eval_arg_reduce(ArgOp::Argmax, 1, &x).unwrap();
    assert_eq!(got, i32s(&[2, 2], &[2, 2, 1, 2]));
    let got = eval_arg_reduce(ArgOp::Argmin, 1, &x).unwrap();
    assert_eq!(got, i32s(&[2, 2], &[0, 0, 0, 1]));
    let empty = eval_arg_reduce(ArgOp::Argmax, 1, &f32s(&[0, 3], &[])).unwrap();
    assert_eq!(empty, i32s(&[0], &[]));
    assert!(eval_arg_reduce(ArgOp::Argmax, 0, &f32s(&[0, 3], &[])).is_err());
    assert!(eval_arg_reduce(ArgOp::Argmin, 3, &x).is_err());
}

#[test]
fn cumsum_forward_and_reverse() {
    let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(eval_cumsum(1, false, &x).unwrap(), f32s(&[2, 3], &[1.0, 3.0, 6.0, 4.0, 9.0, 15.0]));
    assert_eq!(eval_cumsum(1, true, &x).unwrap(), f32s(&[2, 3], &[6.0, 5.0, 3.0, 15.0, 11.0, 6.0]));
    assert_eq!(eval_cumsum(0, false, &x).unwrap(), f32s(&[2, 3], &[1.0, 2.0, 3.0, 5.0, 7.0, 9.0]));
    assert_eq!(eval_cumsum(0, true, &x).unwrap(), f32s(&[2, 3], &[5.0, 7.0, 9.0, 4.0, 5.0, 6.0]));
    let x = f64s(&[4], &[0.5, -1.0, 2.0, 0.25]);
    assert_eq!(eval_cumsum(0, false, &x).unwrap(), f64s(&[4], &[0.5, -0.5, 1.5, 1.75]));
    assert_eq!(eval_cumsum(0, true, &x).unwrap(), f64s(&[4], &[1.75, 1.25, 2.25, 0.25]));
}

#[test]
fn cumsum_over_a_middle_axis_of_i32_wraps() {
    let values: Vec<i32> = (1..=12).collect();
    let x = i32s(&[2, 3, 2], &values);
    let want = i32s(&[2, 3, 2], &[1, 2, 4, 6, 9, 12, 7, 8, 16, 18, 27, 30]);
    assert_eq!(eval_cumsum(1, false, &x).unwrap(), want);
    let want = i32s(&[2, 3, 2], &[9, 12, 8, 10, 5, 6, 27, 30, 20, 22, 11, 12]);
    assert_eq!(eval_cumsum(1, true, &x).unwrap(), want);
    let x = i32s(&[3], &[i32::MAX, 1, -1]);
    assert_eq!(eval_cumsum(0, false, &x).unwrap(), i32s(&[3], &[i32::MAX, i32::MIN, i32::MAX]));
    assert_eq!(eval_cumsum(0, true, &x).unwrap(), i32s(&[3], &[i32::MAX, 0, -1]));
}

#[test]
fn cumsum_edge_cases() {
    assert_eq!(eval_cumsum(1, true, &f32s(&[2, 0], &[])).unwrap(), f32s(&[2, 0], &[]));
    assert_eq!(eval_cumsum(0, false, &f32s(&[0, 2], &[])).unwrap(), f32s(&[0, 2], &[]));
    let one = f32s(&[1], &[-0.0]);
    assert_eq!(bits32(&eval_cumsum(0, true, &one).unwrap()), expect32(&[0.0]));
    let x = f32s(&[3], &[1e8, 1.0, -1e8]);
    assert_eq!(eval_cumsum(0, false, &x).unwrap(), f32s(&[3], &[1e8, 1e8, 0.0]));
    let nan = eval_cumsum(0, false, &f32s(&[3], &[1.0, f32::NAN, 2.0])).unwrap();
    assert_eq!(nan.as_f32().unwrap()[0], 1.0);
    assert!(nan.as_f32().unwrap()[1..].iter().all(|v| v.is_nan()));
    assert!(eval_cumsum(1, false, &f32s(&[3], &[1.0, 2.0, 3.0])).is_err());
}
