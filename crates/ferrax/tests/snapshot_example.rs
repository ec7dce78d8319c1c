//! The snapshot test that `crates/ferrax/examples/snapshot.rs` shows how to write: the IR of the
//! gradient of a small loss, pinned with `insta`.

use ferrax::{DType, Tensor, Type, grad, make_ir};

fn loss([w, x]: [Tensor; 2]) -> Tensor {
    (&w * &x).tanh().sum_all()
}

#[test]
fn gradient_ir() {
    let spec = [Type::new(DType::F32, &[3]), Type::new(DType::F32, &[3])];
    let ir = make_ir(|p: [Tensor; 2]| grad(loss).apply(&p), &spec).unwrap();
    insta::assert_snapshot!(ir);
}
