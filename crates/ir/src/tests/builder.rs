use super::*;
use crate::prim::{BinaryOp, UnaryOp};
use crate::verify;
use ferrax_array::DType;

#[test]
fn builds_verified_funcs_and_reports_type_errors() {
    let mut b = Builder::new("f");
    let x = b.param(Type::new(DType::F32, &[3]));
    let y = b.param(Type::new(DType::F32, &[3]));
    let s = b.eqn1(Prim::Binary(BinaryOp::Add), &[x, y]).unwrap();
    let t = b.eqn1(Prim::Unary(UnaryOp::Tanh), &[s]).unwrap();
    let z = b.param(Type::new(DType::F32, &[2]));
    let err = b.eqn1(Prim::Binary(BinaryOp::Mul), &[t, z]).unwrap_err();
    assert_eq!(err.to_string(), "in @f, equation 2 (mul): operand types differ: f32[3] vs f32[2]");
    let func = b.finish(&[t]);
    let mut module = Module::new();
    module.push(func);
    verify(&module).unwrap();
}
