//! Plain Rust literals are JAX's weak scalars on either side of an operator: they take
//! the tensor's dtype, and a method call on the result needs no annotation.

use ferrax::{Array, DType, Tensor, eval};

#[test]
fn an_unsuffixed_literal_on_the_left_takes_the_tensors_dtype() {
    let f = |x: Tensor| (1.0 - &x).exp() + (2.0 * x.clone()).sin() - 0.5 / (&x + 1.0);
    let x = Array::from(vec![0.25f32, 1.5]);
    let y = eval(f, &x).unwrap();
    assert_eq!(y.dtype(), DType::F32);
    let want: Vec<f32> = [0.25f32, 1.5].iter().map(|&x| (1.0 - x).exp() + (2.0 * x).sin() - 0.5 / (x + 1.0)).collect();
    for (g, w) in y.to_f64_vec().iter().zip(&want) {
        assert!((g - *w as f64).abs() < 1e-6, "{g} vs {w}");
    }
    let doubled = eval(|k: Tensor| 3 * &k - 1, &Array::from(vec![1i32, 2])).unwrap();
    assert_eq!((doubled.dtype(), doubled.to_f64_vec()), (DType::I32, vec![2.0, 5.0]));
}
