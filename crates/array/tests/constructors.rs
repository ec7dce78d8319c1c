//! Array constructors generic over the element type, conversions back to vectors,
//! approximate equality, and (feature `ndarray`) conversion to and from `ndarray`.

use ferrax_array::{Array, DType, Error};

#[test]
fn from_vec_takes_every_element_type_and_checks_the_length() {
    let f = Array::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    assert_eq!((f.dtype(), f.shape()), (DType::F32, &[2, 3][..]));
    assert_eq!(Array::from_vec(&[2], vec![1.0f64, 2.0]).unwrap().dtype(), DType::F64);
    assert_eq!(Array::from_vec(&[1, 2], vec![7, 8]).unwrap().as_i32(), Some(&[7, 8][..]));
    assert_eq!(Array::from_vec(&[], vec![true]).unwrap().as_bool(), Some(&[true][..]));
    assert_eq!(Array::from_vec(&[0, 5], Vec::<f32>::new()).unwrap().len(), 0);
    let err = Array::from_vec(&[2, 2], vec![1i32; 3]).unwrap_err();
    assert_eq!(err, Error::LengthMismatch { expected: 4, actual: 3 });
    let err = Array::from_vec(&[usize::MAX, 2], vec![0.0f64]).unwrap_err();
    assert!(matches!(err, Error::Overflow { .. }), "{err}");
}

#[test]
fn scalars_and_fills() {
    assert_eq!(Array::scalar(2.5f32), Array::scalar_f32(2.5));
    assert_eq!(Array::scalar(2.5f64), Array::scalar_f64(2.5));
    assert_eq!(Array::scalar(-3), Array::scalar_i32(-3));
    assert_eq!(Array::scalar(false), Array::scalar_bool(false));
    assert_eq!(Array::scalar(1.0f32).rank(), 0);

    let ones = Array::ones(DType::F64, &[2, 2]).unwrap();
    assert_eq!(ones.to_vec::<f64>(), Some(vec![1.0; 4]));
    assert_eq!(Array::ones(DType::Bool, &[3]).unwrap().as_bool(), Some(&[true; 3][..]));
    assert_eq!(Array::ones(DType::I32, &[]).unwrap(), Array::scalar(1));
    assert_eq!(Array::full(&[2], 0.5f32).unwrap().as_f32(), Some(&[0.5, 0.5][..]));
    assert!(Array::full(&[0], 9).unwrap().is_empty());
}

#[test]
fn sizes_are_checked_before_allocating() {
    let err = Array::ones(DType::F32, &[usize::MAX, 2]).unwrap_err();
    assert!(matches!(err, Error::Overflow { .. }), "{err}");
    // Counts fine, but far past any budget (and past what could be allocated).
    let err = Array::full(&[1 << 40, 1 << 20], 1.0f64).unwrap_err();
    assert!(matches!(err, Error::OverBudget { .. }), "{err}");
    assert!(err.to_string().starts_with("an array f64[1099511627776,1048576] needs"), "{err}");
    let err = Array::arange(0.0, 1e300, 1e-300).unwrap_err();
    assert!(matches!(err, Error::Overflow { .. } | Error::OverBudget { .. }), "{err}");
    let err = Array::linspace(0.0f32, 1.0, usize::MAX).unwrap_err();
    assert!(matches!(err, Error::Overflow { .. } | Error::OverBudget { .. }), "{err}");
}

#[test]
fn arange_counts_like_numpy() {
    let i = |a: Array| a.to_vec::<i32>().unwrap();
    assert_eq!(i(Array::arange(0, 5, 1).unwrap()), [0, 1, 2, 3, 4]);
    assert_eq!(i(Array::arange(0, 10, 3).unwrap()), [0, 3, 6, 9]);
    assert_eq!(i(Array::arange(0, 9, 3).unwrap()), [0, 3, 6]);
    assert_eq!(i(Array::arange(-3, 3, 2).unwrap()), [-3, -1, 1]);
    assert_eq!(i(Array::arange(5, 0, -2).unwrap()), [5, 3, 1]);
    assert_eq!(i(Array::arange(5, -1, -3).unwrap()), [5, 2]);
    assert!(i(Array::arange(3, 3, 1).unwrap()).is_empty());
    assert!(i(Array::arange(3, 0, 1).unwrap()).is_empty());
    assert!(i(Array::arange(0, 3, -1).unwrap()).is_empty());
    // Extremes of i32 do not overflow the count.
    let wide = Array::arange(i32::MIN, i32::MAX, i32::MAX).unwrap();
    assert_eq!(i(wide), [i32::MIN, -1, i32::MAX - 1]);

    let tenths = Array::arange(0.0f64, 1.0, 0.1).unwrap();
    assert_eq!(tenths.shape(), [10]);
    assert_eq!(tenths.as_f64().unwrap()[3], 3.0 * 0.1);
    let quarters = Array::arange(0.0f32, 1.0, 0.25).unwrap();
    assert_eq!(quarters.to_vec::<f32>(), Some(vec![0.0, 0.25, 0.5, 0.75]));
    let down = Array::arange(1.0f32, -1.0, -0.5).unwrap();
    assert_eq!(down.to_vec::<f32>(), Some(vec![1.0, 0.5, 0.0, -0.5]));
    // ceil((1.3 - 1.0) / 0.1) is 4 in binary floating point, as NumPy also counts.
    assert_eq!(Array::arange(1.0f64, 1.3, 0.1).unwrap().len(), 4);

    for bad in [Array::arange(0, 5, 0), Array::arange(0.0f32, 1.0, 0.0)] {
        let err = bad.unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{err}");
        assert!(err.to_string().contains("non-zero step"), "{err}");
    }
    assert!(Array::arange(0.0, f64::INFINITY, 1.0).is_err());
    assert!(Array::arange(f64::NAN, 1.0, 1.0).is_err());
    assert!(Array::arange(0.0, 1.0, f64::NAN).is_err());
}

#[test]
fn linspace_includes_both_ends() {
    let a = Array::linspace(0.0f64, 1.0, 5).unwrap();
    assert_eq!(a.as_f64(), Some(&[0.0, 0.25, 0.5, 0.75, 1.0][..]));
    let b = Array::linspace(1.0f32, -1.0, 3).unwrap();
    assert_eq!(b.to_vec::<f32>(), Some(vec![1.0, 0.0, -1.0]));
    // The last element is exactly `stop`, even where start + (n-1)·step rounds.
    let c = Array::linspace(0.0f64, 0.3, 4).unwrap();
    assert_eq!(c.as_f64().unwrap()[3], 0.3);
    assert_eq!(Array::linspace(2.0f32, 5.0, 1).unwrap().to_vec::<f32>(), Some(vec![2.0]));
    assert!(Array::linspace(2.0f32, 5.0, 0).unwrap().is_empty());
    assert_eq!(Array::linspace(0.0f32, 1.0, 3).unwrap().dtype(), DType::F32);
}

#[test]
fn to_vec_and_as_slice_check_the_dtype() {
    let a = Array::from_vec(&[3], vec![1, 2, 3]).unwrap();
    assert_eq!(a.to_vec::<i32>(), Some(vec![1, 2, 3]));
    assert_eq!(a.to_vec::<f32>(), None);
    assert_eq!(a.as_slice::<i32>(), Some(&[1, 2, 3][..]));
    assert_eq!(a.as_slice::<bool>(), None);
}

#[test]
fn allclose_follows_numpy() {
    let v = |x: Vec<f64>| Array::from_vec(&[x.len()], x).unwrap();
    let reference = v(vec![1.0, 100.0, 0.0]);
    assert!(v(vec![1.0, 100.0, 0.0]).allclose(&reference, 0.0, 0.0));
    assert!(v(vec![1.0 + 1e-9, 100.0 + 1e-6, 1e-9]).allclose(&reference, 1e-7, 1e-8));
    assert!(!v(vec![1.0, 100.1, 0.0]).allclose(&reference, 1e-7, 1e-8));
    // rtol scales with the reference (the second array), atol alone governs zeros.
    assert!(v(vec![1.0, 101.0, 0.0]).allclose(&reference, 0.01, 0.0));
    assert!(!v(vec![1.0, 100.0, 1e-3]).allclose(&reference, 0.5, 1e-4));

    let special = v(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    assert!(special.allclose(&special.clone(), 0.0, 0.0), "NaN is close to NaN");
    assert!(!special.allclose(&v(vec![f64::NAN, f64::INFINITY, 1e308]), 1.0, 1.0));
    assert!(!v(vec![1.0]).allclose(&v(vec![f64::INFINITY]), 1.0, 1.0), "no finite value is close to inf");
    assert!(!v(vec![f64::NAN]).allclose(&v(vec![0.0]), 1.0, 1.0));

    // Dtypes and shapes must agree.
    assert!(!Array::scalar(1.0f32).allclose(&Array::scalar(1.0f64), 1.0, 1.0));
    assert!(!v(vec![1.0, 2.0]).allclose(&v(vec![1.0, 2.0]).reshaped(&[2, 1]).unwrap(), 1.0, 1.0));
    let ints = Array::arange(0, 4, 1).unwrap();
    assert!(ints.allclose(&Array::from_vec(&[4], vec![0, 1, 2, 3]).unwrap(), 0.0, 0.0));
    assert!(!ints.allclose(&Array::from_vec(&[4], vec![0, 1, 2, 4]).unwrap(), 0.0, 0.5));
}

#[test]
fn assert_close_names_the_first_difference() {
    let got = Array::from_vec(&[2, 3], vec![0.0f32, 1.0, 2.0, 3.0, 4.25, f32::NAN]).unwrap();
    let want = Array::from_vec(&[2, 3], vec![0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
    assert_eq!(
        got.assert_close(&want, 0.0, 0.1).unwrap_err(),
        "2 of 6 elements differ (rtol 0.0, atol 0.1); the first at [1, 1]: 4.25 against 4.0 (difference 0.25)"
    );
    assert_eq!(got.assert_close(&got, 0.0, 0.0), Ok(()));
    assert_eq!(
        got.assert_close(&Array::ones(DType::F64, &[2, 3]).unwrap(), 0.0, 0.0).unwrap_err(),
        "dtypes differ: f32 against f64"
    );
    assert_eq!(
        got.assert_close(&Array::ones(DType::F32, &[3, 2]).unwrap(), 0.0, 0.0).unwrap_err(),
        "shapes differ: [2,3] against [3,2]"
    );
    let flags = Array::from_vec(&[2], vec![true, false]).unwrap();
    let message = flags.assert_close(&Array::ones(DType::Bool, &[2]).unwrap(), 0.0, 0.0).unwrap_err();
    assert_eq!(
        message,
        "1 of 2 elements differ (rtol 0.0, atol 0.0); the first at [1]: false against true (difference 1.0)"
    );
}

#[cfg(feature = "ndarray")]
mod ndarray_conversions {
    use super::*;
    use ndarray::{ArrayD, IxDyn, s};

    #[test]
    fn round_trips_every_element_type() {
        let a = Array::arange(0.0f32, 6.0, 1.0).unwrap().reshaped(&[2, 3]).unwrap();
        let nd: ArrayD<f32> = a.to_ndarray().unwrap();
        assert_eq!(nd.shape(), [2, 3]);
        assert_eq!(nd[[1, 0]], 3.0);
        assert_eq!(Array::from(nd), a);
        assert_eq!(a.to_ndarray::<f64>(), None);

        let b = ArrayD::from_shape_vec(IxDyn(&[2]), vec![1.5f64, -2.0]).unwrap();
        assert_eq!(Array::from(b), Array::from_vec(&[2], vec![1.5f64, -2.0]).unwrap());
        let c = ArrayD::from_elem(IxDyn(&[]), 7i32);
        assert_eq!(Array::from(c), Array::scalar(7));
        let d = ArrayD::from_shape_vec(IxDyn(&[1, 2]), vec![true, false]).unwrap();
        let flags = Array::from(d.clone());
        assert_eq!(flags.to_ndarray::<bool>(), Some(d));
        let empty = ArrayD::<f32>::zeros(IxDyn(&[0, 3]));
        assert_eq!(Array::from(empty).shape(), [0, 3]);
    }

    #[test]
    fn views_and_transposes_come_out_in_c_order() {
        let nd = ArrayD::from_shape_vec(IxDyn(&[2, 3]), (0..6).collect::<Vec<i32>>()).unwrap();
        let transposed = Array::from(nd.clone().reversed_axes());
        assert_eq!(transposed.shape(), [3, 2]);
        assert_eq!(transposed.as_i32(), Some(&[0, 3, 1, 4, 2, 5][..]));
        // An owned, sliced array: contiguous, but not from the start of its buffer.
        let tail = nd.slice_move(s![1.., ..]).into_dyn();
        assert_eq!(Array::from(tail).as_i32(), Some(&[3, 4, 5][..]));
    }
}
