use super::*;
use crate::prim::ControlOp;
use crate::prim::{BinaryOp, UnaryOp};
use crate::{DType, Prim, Type};
use smallvec::smallvec;
use std::sync::Arc;

fn eqn(prim: Prim, inputs: &[Value], outputs: &[Value], loc: Option<&str>) -> Eqn {
    Eqn { prim, inputs: inputs.into(), outputs: outputs.into(), loc: loc.map(Arc::from) }
}

/// `@f(a: f32[2], b: f32[2]) -> (f32[2])`, with values created out of order so
/// that renumbering shows.
fn sample() -> Func {
    let mut f = Func::new("f");
    let t = Type::new(DType::F32, &[2]);
    let sum = f.new_value(t.clone());
    let b = f.new_value(t.clone());
    let a = f.new_value(t.clone());
    f.params = vec![a, b];
    f.eqns.push(eqn(Prim::Binary(BinaryOp::Add), &[a, b], &[sum], Some("m.rs:1:2")));
    f.eqns.push(eqn(Prim::Control(ControlOp::Call { func: "g".to_string() }), &[sum], &[], None));
    f.result_types = vec![t];
    f.results = vec![sum];
    f
}

#[test]
fn renumbers_in_definition_order() {
    let text = print_func(&sample(), &PrintOptions::default());
    let expected = "func @f(%0: f32[2], %1: f32[2]) -> (f32[2]) {
  %2: f32[2] = add(%0, %1)
  = call[func=@g](%2)
  return %2
}
";
    assert_eq!(text, expected);
}

#[test]
fn locs_only_when_asked() {
    let text = print_func(&sample(), &PrintOptions { locs: true });
    assert!(text.contains("  %2: f32[2] = add(%0, %1) loc(\"m.rs:1:2\")\n"), "{text}");
    assert!(text.contains("  = call[func=@g](%2)\n"), "{text}");
}

#[test]
fn modules_separate_funcs_by_a_blank_line() {
    let mut module = Module::new();
    assert_eq!(print(&module), "");
    let mut g = Func::new("g");
    g.attrs.push(("kind".to_string(), AttrValue::Str("fu\"sion".to_string())));
    g.attrs.push(("residuals".to_string(), AttrValue::Int(2)));
    module.push(sample());
    module.push(g);
    let text = print(&module);
    assert!(text.ends_with("}\n\nfunc @g[kind=\"fu\\\"sion\", residuals=2]() -> () {\n  return\n}\n"), "{text}");
}

#[test]
fn malformed_funcs_still_print() {
    let mut f = Func::new("bad");
    let x = f.new_value(Type::scalar(DType::F32));
    let y = f.new_value(Type::scalar(DType::F32));
    f.eqns.push(Eqn { prim: Prim::Unary(UnaryOp::Neg), inputs: smallvec![y], outputs: smallvec![x], loc: None });
    f.results = vec![Value(9), x];
    f.params = vec![Value(7)];
    let text = print_func(&f, &PrintOptions::default());
    let expected = "func @bad(%undef.7: ?) -> () {\n  %0: f32[] = neg(%undef.1)\n  return %undef.9, %0\n}\n";
    assert_eq!(text, expected);
}
