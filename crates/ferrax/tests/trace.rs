//! Tracing closures into IR: the textbook examples trace to the IR one would write by
//! hand (snapshots), and traced modules round-trip through text and evaluate.

use ferrax::{Array, DType, Tensor, Type, eval, make_ir, trace};

fn f32s() -> Type {
    Type::scalar(DType::F32)
}

fn ir(module: &ferrax::Module) -> String {
    ferrax::ir::print(module)
}

#[test]
fn textbook_examples_trace_to_the_expected_ir() {
    let f1 = trace(|[x1, x2]: [Tensor; 2]| (&x1 + &x2) * &x1, &[f32s(), f32s()]).unwrap();
    insta::assert_snapshot!("x1_plus_x2_times_x1", ir(&f1));
    let f2 = trace(|[x, y]: [Tensor; 2]| (&x + &y) * y.sin(), &[f32s(), f32s()]).unwrap();
    insta::assert_snapshot!("x_plus_y_times_sin_y", ir(&f2));
    let f3 = trace(|[x]: [Tensor; 1]| x.powi(2) + &x, &[f32s()]).unwrap();
    insta::assert_snapshot!("x_squared_plus_x", ir(&f3));
    let f4 = trace(|[x, y]: [Tensor; 2]| &x * &y + &x + &y, &[f32s(), f32s()]).unwrap();
    insta::assert_snapshot!("xy_plus_x_plus_y", ir(&f4));
}

#[test]
fn scalars_are_weakly_typed_and_tensors_promote() {
    let module = trace(
        |(x, i): (Tensor, Tensor)| (&x * 2.0, &i * 1.5, &x + &i, 3 - &i),
        &(Type::new(DType::F32, &[3]), Type::new(DType::I32, &[3])),
    )
    .unwrap();
    let entry = module.entry().unwrap();
    let dtypes: Vec<DType> = entry.result_types.iter().map(|t| t.dtype).collect();
    assert_eq!(dtypes, [DType::F32, DType::F32, DType::F32, DType::I32]);
    insta::assert_snapshot!("weak_scalars_and_promotion", ir(&module));
}

#[test]
fn broadcasting_is_explicit() {
    let module =
        trace(|(a, b): (Tensor, Tensor)| &a + &b, &(Type::new(DType::F32, &[2, 1, 3]), Type::new(DType::F64, &[4, 1])))
            .unwrap();
    assert_eq!(module.entry().unwrap().result_types, [Type::new(DType::F64, &[2, 4, 3])]);
    insta::assert_snapshot!("explicit_broadcast", ir(&module));
}

#[test]
fn equations_carry_the_callers_line() {
    let line = line!() + 1;
    let text = make_ir(|[x]: [Tensor; 1]| x.exp(), &[f32s()]).unwrap();
    assert!(text.contains(&format!("loc(\"crates/ferrax/tests/trace.rs:{line}:")), "{text}");
}

#[test]
fn shape_errors_name_the_callers_line_and_both_types() {
    let line = line!() + 2;
    let result =
        trace(|(a, b): (Tensor, Tensor)| &a + &b, &(Type::new(DType::F32, &[2, 3]), Type::new(DType::F32, &[4])));
    let message = result.unwrap_err().to_string();
    assert!(message.starts_with(&format!("crates/ferrax/tests/trace.rs:{line}:")), "{message}");
    assert!(message.contains("add: cannot broadcast f32[2,3] with f32[4]"), "{message}");
}

#[test]
fn a_tensor_used_after_its_trace_ended_is_an_error() {
    let mut leaked: Option<Tensor> = None;
    trace(
        |[x]: [Tensor; 1]| {
            leaked = Some(x.clone());
            x
        },
        &[f32s()],
    )
    .unwrap();
    let stale = leaked.unwrap();
    let err = trace(|[y]: [Tensor; 1]| &y + &stale, &[f32s()]).unwrap_err().to_string();
    assert!(err.contains("a tensor from a trace that has ended"), "{err}");
    // Outside any trace: a poisoned tensor carrying the error, no panic.
    let outside = stale.exp();
    assert!(outside.error().is_some_and(|e| e.message.contains("only be used inside a trace")));
}

#[test]
fn traced_modules_round_trip_and_evaluate() {
    let x = Array::from_f32(&[3], vec![0.5, -1.0, 2.0]).unwrap();
    let y = Array::from_f32(&[3], vec![1.5, 0.25, -3.0]).unwrap();
    let out = eval(|(x, y): (Tensor, Tensor)| (&x + &y) * y.sin(), &(x.clone(), y.clone())).unwrap();
    let expected: Vec<f32> =
        [(0.5f32, 1.5f32), (-1.0, 0.25), (2.0, -3.0)].iter().map(|(a, b)| (a + b) * b.sin()).collect();
    assert_eq!(out.as_f32().unwrap(), expected.as_slice());
    let module = trace(
        |(x, y): (Tensor, Tensor)| (&x + &y) * y.sin(),
        &(Type::new(DType::F32, &[3]), Type::new(DType::F32, &[3])),
    )
    .unwrap();
    let reparsed =
        ferrax::ir::parse(&ferrax::ir::print_with(&module, &ferrax::ir::PrintOptions { locs: true })).unwrap();
    ferrax::ir::verify(&reparsed).unwrap();
    let options = ferrax::ir::EvalOptions::default();
    let again = ferrax::ir::eval_entry(&reparsed, &[x, y], &options).unwrap();
    assert_eq!(again[0], out);
}

#[test]
fn captured_arrays_are_inlined_when_small_and_hoisted_when_large() {
    let small = Array::from_f32(&[3], vec![1.0, 2.0, 3.0]).unwrap();
    let large = Array::from_f32(&[100], (0..100).map(|i| i as f32).collect()).unwrap();
    let f = |[x]: [Tensor; 1]| {
        let inner = ferrax::cond(
            &x.sum_all().gt(0.0),
            |(y,): (Tensor,)| &y * &Tensor::constant(&large).sum_all(),
            |(y,): (Tensor,)| y,
            &(x.clone(),),
        );
        &inner + &Tensor::constant(&small).sum_all()
    };
    let spec = [Type::new(DType::F32, &[3])];
    let traced = ferrax::trace_with_consts(f, &spec).unwrap();
    assert_eq!(traced.consts, vec![large.clone()]);
    let text = ir(&traced.module);
    assert!(text.starts_with("func @main[consts=1](%0: f32[3], %1: f32[100])"), "{text}");
    assert!(text.contains("constant[value=[1.0,2.0,3.0]]"), "{text}");
    assert!(!text.contains("99.0"), "the large array must not be written into the IR:\n{text}");
    let out = eval(f, &[Array::from_f32(&[3], vec![1.0, 0.0, 1.0]).unwrap()]).unwrap();
    assert_eq!(out, Array::from_f32(&[3], vec![4956.0, 6.0, 4956.0]).unwrap());
}
