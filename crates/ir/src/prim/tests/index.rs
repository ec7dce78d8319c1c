//! Unit tests of the index family's rules.

use super::*;

fn iota_f32(shape: &[usize]) -> Array {
    let n = ferrax_array::element_count(shape).unwrap();
    Array::from_f32(shape, (0..n).map(|i| i as f32).collect()).unwrap()
}

fn i32s(shape: &[usize], values: &[i32]) -> Array {
    Array::from_i32(shape, values.to_vec()).unwrap()
}

fn at(i: i32) -> Array {
    Array::scalar_i32(i)
}

#[test]
fn dynamic_slice_clamps_at_both_ends() {
    let x = iota_f32(&[4, 5]);
    let mid = eval_dynamic_slice(&[2, 2], &x, &[&at(1), &at(2)]).unwrap();
    assert_eq!(mid.to_f64_vec(), [7.0, 8.0, 12.0, 13.0]);
    let high = eval_dynamic_slice(&[2, 2], &x, &[&at(100), &at(4)]).unwrap();
    assert_eq!(high.to_f64_vec(), [13.0, 14.0, 18.0, 19.0]);
    let low = eval_dynamic_slice(&[2, 2], &x, &[&at(-3), &at(i32::MIN)]).unwrap();
    assert_eq!(low.to_f64_vec(), [0.0, 1.0, 5.0, 6.0]);
    assert_eq!(eval_dynamic_slice(&[0, 5], &x, &[&at(9), &at(9)]).unwrap().shape(), &[0, 5]);
    assert!(eval_dynamic_slice(&[2, 2], &x, &[&at(0)]).is_err());
}

#[test]
fn dynamic_update_slice_clamps() {
    let x = Array::from_i32(&[5], vec![0; 5]).unwrap();
    let u = i32s(&[2], &[7, 8]);
    assert_eq!(eval_dynamic_update_slice(&x, &u, &[&at(1)]).unwrap().as_i32().unwrap(), &[0, 7, 8, 0, 0]);
    assert_eq!(eval_dynamic_update_slice(&x, &u, &[&at(4)]).unwrap().as_i32().unwrap(), &[0, 0, 0, 7, 8]);
    assert_eq!(eval_dynamic_update_slice(&x, &u, &[&at(-1)]).unwrap().as_i32().unwrap(), &[7, 8, 0, 0, 0]);
    let m = iota_f32(&[3, 3]);
    let patch = Array::from_f32(&[1, 2], vec![-1.0, -2.0]).unwrap();
    let y = eval_dynamic_update_slice(&m, &patch, &[&at(2), &at(2)]).unwrap();
    assert_eq!(y.to_f64_vec(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -1.0, -2.0]);
    assert!(eval_dynamic_update_slice(&patch, &m, &[&at(0), &at(0)]).is_err());
}

#[test]
fn gather_takes_along_axis_with_clamping() {
    let x = iota_f32(&[3, 4]);
    let rows = eval_gather(0, 0, &x, &i32s(&[2], &[2, 0])).unwrap();
    assert_eq!(rows.to_f64_vec(), [8.0, 9.0, 10.0, 11.0, 0.0, 1.0, 2.0, 3.0]);
    // axis > 0, a 2-D index array, out-of-range and negative indices clamped.
    let cols = eval_gather(1, 0, &x, &i32s(&[2, 2], &[3, 99, -5, 1])).unwrap();
    assert_eq!(cols.shape(), &[3, 2, 2]);
    assert_eq!(cols.to_f64_vec()[..4], [3.0, 3.0, 0.0, 1.0]);
    assert_eq!(cols.to_f64_vec()[8..], [11.0, 11.0, 8.0, 9.0]);
    let scalar = eval_gather(0, 0, &x, &at(1)).unwrap();
    assert_eq!((scalar.shape(), scalar.to_f64_vec()), (&[4][..], vec![4.0, 5.0, 6.0, 7.0]));
}

#[test]
fn gather_with_batch_dims() {
    // Per row b of x[2, 3, 2], take along axis 1 at idx[b, :].
    let x = iota_f32(&[2, 3, 2]);
    let y = eval_gather(1, 1, &x, &i32s(&[2, 2], &[2, 0, 1, 7])).unwrap();
    assert_eq!(y.shape(), &[2, 2, 2]);
    assert_eq!(y.to_f64_vec(), [4.0, 5.0, 0.0, 1.0, 8.0, 9.0, 10.0, 11.0]);
    assert!(eval_gather(1, 1, &x, &i32s(&[3, 1], &[0, 0, 0])).is_err());
}

#[test]
fn gather_from_zero_size_axis_reads_nothing() {
    let x = Array::from_f32(&[2, 0], vec![]).unwrap();
    let y = eval_gather(1, 0, &x, &i32s(&[3], &[0, 5, -1])).unwrap();
    assert_eq!((y.shape(), y.to_f64_vec()), (&[2, 3][..], vec![0.0; 6]));
    let s = eval_scatter_add(1, 0, &x, &i32s(&[3], &[0, 5, -1]), &y).unwrap();
    assert_eq!(s, x);
    let none = eval_gather(0, 0, &iota_f32(&[3]), &i32s(&[0], &[])).unwrap();
    assert_eq!(none.shape(), &[0]);
}

#[test]
fn scatter_add_accumulates_duplicates() {
    let x = iota_f32(&[3, 2]);
    let idx = i32s(&[3], &[1, 1, 9]);
    let upd = Array::from_f32(&[3, 2], vec![1.0, 2.0, 10.0, 20.0, 100.0, 200.0]).unwrap();
    let y = eval_scatter_add(0, 0, &x, &idx, &upd).unwrap();
    assert_eq!(y.to_f64_vec(), [0.0, 1.0, 13.0, 25.0, 104.0, 205.0]);
    let xi = Array::from_i32(&[2, 2], vec![i32::MAX, 0, 0, 0]).unwrap();
    let yi = eval_scatter_add(1, 1, &xi, &i32s(&[2, 2], &[0, 0, 1, -3]), &i32s(&[2, 2], &[1, 1, 5, 6])).unwrap();
    assert_eq!(yi.as_i32().unwrap(), &[i32::MIN + 1, 0, 6, 5]);
    let b = Array::from_bool(&[2], vec![true, false]).unwrap();
    assert!(eval_scatter_add(0, 0, &b, &i32s(&[1], &[0]), &Array::from_bool(&[1], vec![true]).unwrap()).is_err());
    assert!(eval_scatter_add(0, 0, &x, &idx, &iota_f32(&[3, 3])).is_err());
}
