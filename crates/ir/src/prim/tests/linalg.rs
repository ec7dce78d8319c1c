//! Unit tests of the linalg family's rules.

use super::*;
use ferrax_array::DType;

fn dims(lhs_contract: &[usize], rhs_contract: &[usize], lhs_batch: &[usize], rhs_batch: &[usize]) -> DotDims {
    DotDims {
        lhs_contract: lhs_contract.to_vec(),
        rhs_contract: rhs_contract.to_vec(),
        lhs_batch: lhs_batch.to_vec(),
        rhs_batch: rhs_batch.to_vec(),
        preferred: None,
    }
}

fn f32s(shape: &[usize], values: &[f32]) -> Array {
    Array::from_f32(shape, values.to_vec()).unwrap()
}

fn i32s(shape: &[usize], values: &[i32]) -> Array {
    Array::from_i32(shape, values.to_vec()).unwrap()
}

/// Distinct small values, exact in every dtype, for an array of `shape`.
fn ramp(dtype: DType, shape: &[usize], seed: i32) -> Array {
    let len: usize = shape.iter().product();
    let values: Vec<i32> = (0..len as i32).map(|i| (i * 7 + seed) % 11 - 5).collect();
    match dtype {
        DType::F32 => Array::from_f32(shape, values.iter().map(|&v| v as f32 / 4.0).collect()).unwrap(),
        DType::F64 => Array::from_f64(shape, values.iter().map(|&v| f64::from(v) / 8.0).collect()).unwrap(),
        DType::BF16 | DType::F16 => {
            let values: Vec<f64> = values.iter().map(|&v| f64::from(v) / 4.0).collect();
            Array::new(shape, ferrax_array::Data::from_f64s(dtype, &values)).unwrap()
        }
        DType::I32 | DType::Bool => Array::from_i32(shape, values).unwrap(),
    }
}

/// Decomposes a C-order flat index over `shape` into a multi-index.
fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for axis in (0..shape.len()).rev() {
        index[axis] = flat % shape[axis];
        flat /= shape[axis];
    }
    index
}

/// The flat C-order offset of a multi-index.
fn ravel(index: &[usize], shape: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// A direct, index-by-index definition of `dot_general` in f64 (exact for `ramp` data).
fn naive(d: &DotDims, lhs: &Array, rhs: &Array) -> Vec<f64> {
    let (ls, rs) = (lhs.shape(), rhs.shape());
    let (lf, rf) = (d.lhs_free(ls.len()), d.rhs_free(rs.len()));
    let out_shape: Vec<usize> =
        d.lhs_batch.iter().map(|&a| ls[a]).chain(lf.iter().map(|&a| ls[a])).chain(rf.iter().map(|&a| rs[a])).collect();
    let contract_shape: Vec<usize> = d.lhs_contract.iter().map(|&a| ls[a]).collect();
    let (lv, rv) = (lhs.to_f64_vec(), rhs.to_f64_vec());
    let count = |s: &[usize]| s.iter().product::<usize>();
    (0..count(&out_shape))
        .map(|o| {
            let oi = unravel(o, &out_shape);
            let (bi, rest) = oi.split_at(d.lhs_batch.len());
            let (li, ri) = rest.split_at(lf.len());
            let mut acc = 0.0;
            for c in 0..count(&contract_shape) {
                let ci = unravel(c, &contract_shape);
                let (mut l, mut r) = (vec![0; ls.len()], vec![0; rs.len()]);
                d.lhs_batch.iter().zip(bi).for_each(|(&a, &i)| l[a] = i);
                d.rhs_batch.iter().zip(bi).for_each(|(&a, &i)| r[a] = i);
                lf.iter().zip(li).for_each(|(&a, &i)| l[a] = i);
                rf.iter().zip(ri).for_each(|(&a, &i)| r[a] = i);
                d.lhs_contract.iter().zip(&ci).for_each(|(&a, &i)| l[a] = i);
                d.rhs_contract.iter().zip(&ci).for_each(|(&a, &i)| r[a] = i);
                acc += lv[ravel(&l, ls)] * rv[ravel(&r, rs)];
            }
            acc
        })
        .collect()
}

#[test]
fn matrix_product() {
    let a = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = f32s(&[3, 2], &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
    let got = eval_dot_general(&dims(&[1], &[0], &[], &[]), &a, &b).unwrap();
    assert_eq!(got, f32s(&[2, 2], &[58.0, 64.0, 139.0, 154.0]));
}

#[test]
fn transposed_contractions() {
    let a = f32s(&[3, 2], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let b = f32s(&[2, 3], &[7.0, 9.0, 11.0, 8.0, 10.0, 12.0]);
    // aᵀ (2x3) times bᵀ (3x2).
    let got = eval_dot_general(&dims(&[0], &[1], &[], &[]), &a, &b).unwrap();
    assert_eq!(got, f32s(&[2, 2], &[58.0, 64.0, 139.0, 154.0]));
    // b times a gives the lhs free axis first.
    let got = eval_dot_general(&dims(&[1], &[0], &[], &[]), &b, &a).unwrap();
    assert_eq!(got, f32s(&[2, 2], &[58.0, 139.0, 64.0, 154.0]));
}

#[test]
fn batch_axes_come_first() {
    let a = f32s(&[2, 1, 2], &[1.0, 2.0, 3.0, 4.0]);
    let b = f32s(&[2, 2, 1], &[5.0, 6.0, 7.0, 8.0]);
    let got = eval_dot_general(&dims(&[2], &[1], &[0], &[0]), &a, &b).unwrap();
    assert_eq!(got, f32s(&[2, 1, 1], &[17.0, 53.0]));
    // A batch axis that is not leading in either operand.
    let a = f32s(&[3, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = f32s(&[2, 3], &[1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
    let got = eval_dot_general(&dims(&[0], &[1], &[1], &[0]), &a, &b).unwrap();
    assert_eq!(got, f32s(&[2], &[9.0, 24.0]));
}

#[test]
fn agrees_with_the_index_definition() {
    // (lhs shape, rhs shape, lhs_contract, rhs_contract, lhs_batch, rhs_batch)
    type Case =
        (&'static [usize], &'static [usize], &'static [usize], &'static [usize], &'static [usize], &'static [usize]);
    let cases: &[Case] = &[
        (&[4, 5], &[5, 3], &[1], &[0], &[], &[]),
        (&[5, 4], &[3, 5], &[0], &[1], &[], &[]),
        (&[2, 3, 4], &[4, 3], &[1, 2], &[1, 0], &[], &[]),
        (&[3, 2, 4, 5], &[5, 3, 6, 4], &[3, 2], &[0, 3], &[0], &[1]),
        (&[2, 3, 4, 2], &[4, 2, 3, 2], &[2], &[0], &[3, 1], &[1, 2]),
        (&[3], &[4], &[], &[], &[], &[]),
        (&[2, 3], &[3, 2], &[], &[], &[0], &[1]),
        (&[], &[], &[], &[], &[], &[]),
        (&[3, 1, 2], &[2, 3], &[2, 0], &[0, 1], &[], &[]),
    ];
    for dtype in [DType::F32, DType::F64, DType::I32] {
        for &(ls, rs, lc, rc, lb, rb) in cases {
            let d = dims(lc, rc, lb, rb);
            let (a, b) = (ramp(dtype, ls, 1), ramp(dtype, rs, 4));
            let got = eval_dot_general(&d, &a, &b).unwrap();
            assert_eq!(got.dtype(), dtype);
            assert_eq!(got.to_f64_vec(), naive(&d, &a, &b), "{dtype} {ls:?} x {rs:?} with {d:?}");
        }
    }
}

#[test]
fn accumulates_in_contracting_order() {
    let a = f32s(&[1, 4], &[1e8, 1.0, -1e8, 1.0]);
    let b = f32s(&[4, 1], &[1.0; 4]);
    assert_eq!(eval_dot_general(&dims(&[1], &[0], &[], &[]), &a, &b).unwrap(), f32s(&[1, 1], &[1.0]));
    // With two contracting pairs, the last listed pair runs fastest.
    let a = f32s(&[2, 2], &[1e8, -1e8, 1.0, 1.0]);
    let b = f32s(&[2, 2], &[1.0; 4]);
    let got = eval_dot_general(&dims(&[1, 0], &[1, 0], &[], &[]), &a, &b).unwrap();
    assert_eq!(got, Array::scalar_f32(1.0));
    let got = eval_dot_general(&dims(&[0, 1], &[0, 1], &[], &[]), &a, &b).unwrap();
    assert_eq!(got, Array::scalar_f32(2.0));
}

#[test]
fn integer_products_wrap() {
    let a = i32s(&[2], &[65536, i32::MAX]);
    let b = i32s(&[2], &[65536, 2]);
    let got = eval_dot_general(&dims(&[0], &[0], &[], &[]), &a, &b).unwrap();
    assert_eq!(got, Array::scalar_i32(i32::MAX.wrapping_mul(2)));
    let a = i32s(&[2], &[i32::MAX, 1]);
    let got = eval_dot_general(&dims(&[0], &[0], &[], &[]), &a, &i32s(&[2], &[1, 1])).unwrap();
    assert_eq!(got, Array::scalar_i32(i32::MIN));
}

#[test]
fn zero_sized_axes() {
    // Nothing contracted: zeros.
    let got = eval_dot_general(&dims(&[1], &[0], &[], &[]), &f32s(&[2, 0], &[]), &f32s(&[0, 3], &[])).unwrap();
    assert_eq!(got, f32s(&[2, 3], &[0.0; 6]));
    let got = eval_dot_general(&dims(&[1], &[0], &[], &[]), &i32s(&[2, 0], &[]), &i32s(&[0, 3], &[])).unwrap();
    assert_eq!(got, i32s(&[2, 3], &[0; 6]));
    // No rows, no columns, no batch.
    let got = eval_dot_general(&dims(&[1], &[0], &[], &[]), &f32s(&[0, 2], &[]), &f32s(&[2, 3], &[0.0; 6])).unwrap();
    assert_eq!(got, f32s(&[0, 3], &[]));
    let got = eval_dot_general(&dims(&[1], &[0], &[], &[]), &f32s(&[2, 2], &[0.0; 4]), &f32s(&[2, 0], &[])).unwrap();
    assert_eq!(got, f32s(&[2, 0], &[]));
    let d = dims(&[2], &[1], &[0], &[0]);
    let got = eval_dot_general(&d, &f32s(&[0, 2, 3], &[]), &f32s(&[0, 3, 4], &[])).unwrap();
    assert_eq!(got, f32s(&[0, 2, 4], &[]));
}

#[test]
fn nan_and_signed_zero() {
    let d = dims(&[0], &[0], &[], &[]);
    let got = eval_dot_general(&d, &f32s(&[2], &[1.0, f32::NAN]), &f32s(&[2], &[1.0, 0.0])).unwrap();
    assert!(got.as_f32().unwrap()[0].is_nan());
    let got = eval_dot_general(&d, &f32s(&[1], &[-0.0]), &f32s(&[1], &[1.0])).unwrap();
    assert_eq!(got.as_f32().unwrap()[0].to_bits(), 0.0f32.to_bits());
}

#[test]
fn rejects_ill_typed_operands() {
    let d = dims(&[0], &[0], &[], &[]);
    let b = Array::from_bool(&[2], vec![true, false]).unwrap();
    assert!(eval_dot_general(&d, &b, &b).is_err());
    assert!(eval_dot_general(&d, &f32s(&[2], &[1.0; 2]), &i32s(&[2], &[1; 2])).is_err());
    assert!(eval_dot_general(&d, &f32s(&[2], &[1.0; 2]), &f32s(&[3], &[1.0; 3])).is_err());
    assert!(eval_dot_general(&dims(&[1], &[0], &[], &[]), &f32s(&[2], &[1.0; 2]), &f32s(&[2], &[1.0; 2])).is_err());
}
