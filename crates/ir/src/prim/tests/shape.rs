//! Unit tests of the shape family's rules.

use super::*;

fn f32s(shape: &[usize], values: &[f32]) -> Array {
    Array::from_f32(shape, values.to_vec()).unwrap()
}

fn iota_f32(shape: &[usize]) -> Array {
    let n = ferrax_array::element_count(shape).unwrap();
    f32s(shape, &(0..n).map(|i| i as f32).collect::<Vec<_>>())
}

fn values(a: &Array) -> Vec<f64> {
    a.to_f64_vec()
}

#[test]
fn broadcast_expands_size_one_axes() {
    let x = f32s(&[2, 1], &[1.0, 2.0]);
    let y = eval_broadcast_in_dim(&[3, 2, 2], &[1, 2], &x).unwrap();
    assert_eq!(y.shape(), &[3, 2, 2]);
    assert_eq!(values(&y), [1.0, 1.0, 2.0, 2.0].repeat(3));
    let s = eval_broadcast_in_dim(&[2, 2], &[], &Array::scalar_i32(7)).unwrap();
    assert_eq!(s.as_i32().unwrap(), &[7; 4]);
    let e = eval_broadcast_in_dim(&[0, 3], &[1], &f32s(&[3], &[1.0, 2.0, 3.0])).unwrap();
    assert_eq!(e.shape(), &[0, 3]);
    assert!(eval_broadcast_in_dim(&[4], &[0], &x).is_err());
}

#[test]
fn reshape_keeps_c_order() {
    let y = eval_reshape(&[3, 2], &iota_f32(&[2, 3])).unwrap();
    assert_eq!((y.shape(), values(&y)), (&[3, 2][..], vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]));
    assert!(eval_reshape(&[4], &iota_f32(&[2, 3])).is_err());
}

#[test]
fn transpose_3d() {
    let x = iota_f32(&[2, 3, 4]);
    let y = eval_transpose(&[2, 0, 1], &x).unwrap();
    assert_eq!(y.shape(), &[4, 2, 3]);
    let v = values(&y);
    for (i, j, k) in (0..4).flat_map(|i| (0..2).flat_map(move |j| (0..3).map(move |k| (i, j, k)))) {
        assert_eq!(v[i * 6 + j * 3 + k], (j * 12 + k * 4 + i) as f64);
    }
    assert!(eval_transpose(&[0, 0, 1], &x).is_err());
}

#[test]
fn rev_of_several_axes() {
    let x = iota_f32(&[2, 3]);
    assert_eq!(values(&eval_rev(&[1], &x).unwrap()), [2.0, 1.0, 0.0, 5.0, 4.0, 3.0]);
    assert_eq!(values(&eval_rev(&[0, 1], &x).unwrap()), [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]);
    assert_eq!(values(&eval_rev(&[], &x).unwrap()), values(&x));
    assert_eq!(eval_rev(&[0, 1], &iota_f32(&[0, 3])).unwrap().shape(), &[0, 3]);
}

#[test]
fn strided_slice() {
    let x = iota_f32(&[4, 5]);
    let y = eval_slice(&[1, 0], &[4, 5], &[2, 2], &x).unwrap();
    assert_eq!((y.shape(), values(&y)), (&[2, 3][..], vec![5.0, 7.0, 9.0, 15.0, 17.0, 19.0]));
    let e = eval_slice(&[2, 1], &[2, 4], &[1, 1], &x).unwrap();
    assert_eq!(e.shape(), &[0, 3]);
    assert!(eval_slice(&[0, 0], &[5, 5], &[1, 1], &x).is_err());
}

#[test]
fn pad_edges_interior_and_crops() {
    let x = f32s(&[3], &[1.0, 2.0, 3.0]);
    let zero = Array::scalar_f32(0.0);
    let y = eval_pad(&[1], &[2], &[1], &x, &zero).unwrap();
    assert_eq!(values(&y), [0.0, 1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 0.0]);
    // Negative low/high crop, interior included: [1, 9, 2, 9, 3] cropped by 2 and 1.
    let nine = Array::scalar_f32(9.0);
    assert_eq!(values(&eval_pad(&[-2], &[-1], &[1], &x, &nine).unwrap()), [2.0, 9.0]);
    assert_eq!(values(&eval_pad(&[-1], &[-1], &[1], &x, &nine).unwrap()), [9.0, 2.0, 9.0]);
    assert_eq!(values(&eval_pad(&[-3], &[1], &[0], &x, &nine).unwrap()), [9.0]);
    let m = eval_pad(&[1, -1], &[0, 1], &[0, 0], &iota_f32(&[2, 2]), &nine).unwrap();
    assert_eq!((m.shape(), values(&m)), (&[3, 2][..], vec![9.0, 9.0, 1.0, 9.0, 3.0, 9.0]));
    let e = eval_pad(&[1], &[1], &[2], &iota_f32(&[0]), &nine).unwrap();
    assert_eq!(values(&e), [9.0, 9.0]);
    assert!(eval_pad(&[-5], &[0], &[0], &x, &nine).is_err());
}

#[test]
fn concatenate_with_empty_operand() {
    let a = iota_f32(&[2, 1]);
    let b = iota_f32(&[2, 0]);
    let c = f32s(&[2, 2], &[7.0, 8.0, 9.0, 10.0]);
    let y = eval_concatenate(1, &[&a, &b, &c]).unwrap();
    assert_eq!((y.shape(), values(&y)), (&[2, 3][..], vec![0.0, 7.0, 8.0, 1.0, 9.0, 10.0]));
    let z = eval_concatenate(0, &[&a, &a]).unwrap();
    assert_eq!(values(&z), [0.0, 1.0, 0.0, 1.0]);
    assert!(eval_concatenate(0, &[&a, &c]).is_err());
}

#[test]
fn iota_and_constant() {
    let i = eval_iota(DType::I32, &[2, 3], 1).unwrap();
    assert_eq!(i.as_i32().unwrap(), &[0, 1, 2, 0, 1, 2]);
    let j = eval_iota(DType::F64, &[2, 3], 0).unwrap();
    assert_eq!(j.as_f64().unwrap(), &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    assert_eq!(eval_iota(DType::F32, &[0, 3], 1).unwrap().len(), 0);
    assert!(eval_iota(DType::Bool, &[2], 0).is_err());
    let c = eval_constant(&Array::scalar_bool(true), &[2, 2]).unwrap();
    assert_eq!(c.as_bool().unwrap(), &[true; 4]);
    let full = iota_f32(&[2]);
    assert_eq!(eval_constant(&full, &[2]).unwrap(), full);
    assert!(eval_constant(&full, &[3]).is_err());
}
