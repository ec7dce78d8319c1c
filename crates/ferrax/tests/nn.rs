//! `ferrax::nn`: values against hand-computed ones (including the extreme inputs that
//! the stable formulations exist for), the traced IR of `softmax` and `one_hot`, and
//! errors at the caller's line.

use ferrax::nn::{cross_entropy, log_softmax, logsumexp, mse, one_hot, softmax};
use ferrax::{Array, DType, Tensor, Type, eval, trace};

fn f32a(shape: &[usize], values: &[f32]) -> Array {
    Array::from_f32(shape, values.to_vec()).unwrap()
}

fn ir(module: &ferrax::Module) -> String {
    ferrax::ir::print(module)
}

#[track_caller]
fn assert_close(actual: &Array, expected: &[f32]) {
    let actual = actual.as_f32().unwrap();
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() <= 1e-6 * e.abs().max(1.0), "{actual:?} vs {expected:?}");
    }
}

#[test]
fn softmax_normalises_along_its_axis() {
    let x = f32a(&[2, 2], &[1.0, 2.0, 3.0, 5.0]);
    let rows = eval(|x: Tensor| softmax(&x, 1), &x).unwrap();
    let (e1, e2) = (1.0f32.exp(), 2.0f32.exp());
    let (e3, e5) = (3.0f32.exp(), 5.0f32.exp());
    assert_close(&rows, &[e1 / (e1 + e2), e2 / (e1 + e2), e3 / (e3 + e5), e5 / (e3 + e5)]);
    let columns = eval(|x: Tensor| softmax(&x, 0), &x).unwrap();
    assert_close(&columns, &[e1 / (e1 + e3), e2 / (e2 + e5), e3 / (e1 + e3), e5 / (e2 + e5)]);
}

#[test]
fn softmax_and_log_softmax_are_stable_for_large_logits() {
    let big = f32a(&[3], &[1000.0, 1000.0, -1000.0]);
    assert_close(&eval(|x: Tensor| softmax(&x, 0), &big).unwrap(), &[0.5, 0.5, 0.0]);
    let spread = f32a(&[2], &[1000.0, 0.0]);
    assert_close(&eval(|x: Tensor| log_softmax(&x, 0), &spread).unwrap(), &[0.0, -1000.0]);
    let x = f32a(&[3], &[0.5, -1.0, 2.0]);
    let log_p = eval(|x: Tensor| log_softmax(&x, 0), &x).unwrap();
    let p = eval(|x: Tensor| softmax(&x, 0), &x).unwrap();
    let expected: Vec<f32> = p.as_f32().unwrap().iter().map(|v| v.ln()).collect();
    assert_close(&log_p, &expected);
}

#[test]
fn logsumexp_reduces_its_axes_stably() {
    let x = f32a(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let per_row = eval(|x: Tensor| logsumexp(&x, &[1]), &x).unwrap();
    assert_eq!(per_row.shape(), &[2]);
    assert_close(&per_row, &[(1.0f32.exp() + 2.0f32.exp()).ln(), (3.0f32.exp() + 4.0f32.exp()).ln()]);
    let total: f32 = [1.0f32, 2.0, 3.0, 4.0].iter().map(|v| v.exp()).sum::<f32>().ln();
    assert_close(&eval(|x: Tensor| logsumexp(&x, &[0, 1]), &x).unwrap(), &[total]);
    let big = f32a(&[2], &[1000.0, 1000.0]);
    assert_close(&eval(|x: Tensor| logsumexp(&x, &[0]), &big).unwrap(), &[1000.0 + 2.0f32.ln()]);
    // A row of -inf has logsumexp -inf (the shift does not turn it into NaN).
    let empty = f32a(&[2], &[f32::NEG_INFINITY, f32::NEG_INFINITY]);
    assert_eq!(eval(|x: Tensor| logsumexp(&x, &[0]), &empty).unwrap().as_f32().unwrap(), &[f32::NEG_INFINITY]);
}

#[test]
fn cross_entropy_is_the_batch_mean_of_the_label_weighted_log_loss() {
    let logits = f32a(&[2, 2], &[0.0, 0.0, 0.0, 3.0f32.ln()]);
    let labels = f32a(&[2, 2], &[1.0, 0.0, 0.0, 1.0]);
    let loss = eval(|(z, y): (Tensor, Tensor)| cross_entropy(&z, &y), &(logits, labels)).unwrap();
    // Row 0: -log(1/2); row 1: -log(3/4).
    assert_eq!(loss.shape(), &[] as &[usize]);
    assert_close(&loss, &[(2.0f32.ln() + (4.0f32 / 3.0).ln()) / 2.0]);
    let single = f32a(&[2], &[0.0, 0.0]);
    let label = f32a(&[2], &[0.0, 1.0]);
    assert_close(&eval(|(z, y): (Tensor, Tensor)| cross_entropy(&z, &y), &(single, label)).unwrap(), &[2.0f32.ln()]);
}

#[test]
fn mse_is_the_mean_of_squared_differences() {
    let a = f32a(&[3], &[1.0, 2.0, 3.0]);
    let b = f32a(&[3], &[1.0, 0.0, 0.0]);
    assert_close(&eval(|(a, b): (Tensor, Tensor)| mse(&a, &b), &(a, b)).unwrap(), &[13.0 / 3.0]);
}

#[test]
fn one_hot_marks_each_label_and_nothing_for_out_of_range_ones() {
    let labels = Array::from_i32(&[4], vec![2, 0, 5, -1]).unwrap();
    let hot = eval(|k: Tensor| one_hot(&k, 3, DType::F32), &labels).unwrap();
    assert_eq!(hot.shape(), &[4, 3]);
    assert_eq!(hot.as_f32().unwrap(), &[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let grid = Array::from_i32(&[2, 1], vec![1, 0]).unwrap();
    let mask = eval(|k: Tensor| one_hot(&k, 2, DType::Bool), &grid).unwrap();
    assert_eq!((mask.shape(), mask.as_bool().unwrap()), (&[2, 1, 2][..], &[false, true, true, false][..]));
}

#[test]
fn softmax_and_one_hot_trace_to_the_expected_ir() {
    let softmax_ir = trace(|x: Tensor| softmax(&x, 1), &Type::new(DType::F32, &[2, 3])).unwrap();
    insta::assert_snapshot!("softmax", ir(&softmax_ir));
    let one_hot_ir = trace(|k: Tensor| one_hot(&k, 4, DType::F32), &Type::new(DType::I32, &[3])).unwrap();
    insta::assert_snapshot!("one_hot", ir(&one_hot_ir));
}

#[test]
fn nn_errors_name_the_callers_line_and_operands() {
    let line = line!() + 1;
    let result = trace(|x: Tensor| one_hot(&x, 3, DType::F32), &Type::new(DType::F32, &[2]));
    let message = result.unwrap_err().to_string();
    assert!(message.starts_with(&format!("crates/ferrax/tests/nn.rs:{line}:")), "{message}");
    assert!(message.contains("one_hot: f32[2]: labels must be i32"), "{message}");
    let types = (Type::new(DType::F32, &[4, 10]), Type::new(DType::F32, &[4, 3]));
    let line = line!() + 1;
    let result = trace(|(z, y): (Tensor, Tensor)| cross_entropy(&z, &y), &types);
    let message = result.unwrap_err().to_string();
    assert!(message.starts_with(&format!("crates/ferrax/tests/nn.rs:{line}:")), "{message}");
    assert!(message.contains("cross_entropy: f32[4,10] x f32[4,3]: labels must broadcast"), "{message}");
    // A mistake inside an nn function is reported at the user's call, not inside nn.rs.
    let line = line!() + 1;
    let result = trace(|x: Tensor| softmax(&x, 2), &Type::new(DType::F32, &[4, 10]));
    let message = result.unwrap_err().to_string();
    assert!(message.starts_with(&format!("crates/ferrax/tests/nn.rs:{line}:")), "{message}");
    assert!(message.contains("reduce_max: f32[4,10]: axis 2 is out of range for rank 2"), "{message}");
}
