//! The transpose rules of the linear primitives, checked by the adjoint identity.
//!
//! For an equation `y = prim(x..., r...)` linear in the inputs `x` (the residuals `r`
//! fixed), the map `L(x) = y` and the Func the rule emits for `Lᵀ` must satisfy
//! `<u, L v> = <Lᵀ u, v>` for every `u` and `v`. Each case builds both Funcs (the rule is
//! called through `Prim::transpose` on an `Emitter`), verifies them, evaluates them in
//! f64 with the reference interpreter on random `u` and `v`, and compares the two inner
//! products. The errors of non-linear uses and the all-zero-cotangent shortcut are
//! tested too.

use ferrax_ir::array::Budget;
use ferrax_ir::prim::ad::{LinearIn, TransposeContext};
use ferrax_ir::prim::{BinaryOp, DotDims, ReduceOp, UnaryOp};
use ferrax_ir::prim::{IndexOp, LinalgOp, ReductionOp, ShapeOp, TernaryOp};
use ferrax_ir::testing::{Rng, random_array};
use ferrax_ir::{Array, DType, Emitter, EvalOptions, Func, Module, Prim, PrintOptions, Type, Value};

/// A context for rules that never recurse into bodies.
struct NoBodies(Module);

impl TransposeContext for NoBodies {
    fn module(&self) -> &Module {
        &self.0
    }
}

/// An input of the equation under test.
enum In {
    /// Linear, of this type.
    Linear(Type),
    /// A residual with this value.
    Residual(Array),
}

/// A linear f64 input of `shape`.
fn lin(shape: &[usize]) -> In {
    In::Linear(Type::new(DType::F64, shape))
}

/// A residual f64 input of `shape` with values drawn from `seed`.
fn res(shape: &[usize], seed: u64) -> In {
    In::Residual(random_array(&Type::new(DType::F64, shape), &mut Rng::new(seed), false))
}

/// A residual i32 scalar (a start index).
fn start(i: i32) -> In {
    In::Residual(Array::scalar_i32(i))
}

/// A residual i32 array of indices.
fn indices(shape: &[usize], values: &[i32]) -> In {
    In::Residual(Array::from_i32(shape, values.to_vec()).unwrap())
}

impl In {
    /// The input's type.
    fn ty(&self) -> Type {
        match self {
            In::Linear(ty) => ty.clone(),
            In::Residual(a) => Type::new(a.dtype(), a.shape()),
        }
    }
}

/// Runs the only Func of a module holding `func`, after verifying it.
fn run(func: &Func, args: &[Array]) -> Vec<Array> {
    let mut module = Module::new();
    module.push(func.clone());
    let text = ferrax_ir::print(&module);
    ferrax_ir::verify(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
    ferrax_ir::eval(&module, &func.name, args, &EvalOptions::default()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The Func of `L`: every input is a parameter, in order.
fn forward_func(prim: &Prim, ins: &[In]) -> Func {
    let mut em = Emitter::new("linear");
    let params: Vec<Value> = ins.iter().map(|input| em.param(input.ty())).collect();
    let outputs = em.eqn(&Module::new(), prim.clone(), &params).unwrap_or_else(|e| panic!("forward: {e}"));
    em.finish(&outputs)
}

/// The transposed Func: residuals then one cotangent per output, returning the
/// cotangents of the linear inputs the rule gave (`None` in the second result where it
/// gave a symbolic zero).
fn transposed_func(prim: &Prim, ins: &[In], out_types: &[Type]) -> Result<(Func, Vec<Option<usize>>), String> {
    let mut em = Emitter::new("transposed");
    let mut linear_ins = Vec::new();
    for input in ins {
        linear_ins.push(match input {
            In::Linear(ty) => LinearIn::Linear(ty.clone()),
            In::Residual(a) => LinearIn::Residual(em.param(Type::new(a.dtype(), a.shape()))),
        });
    }
    let cts: Vec<Option<Value>> = out_types.iter().map(|ty| Some(em.param(ty.clone()))).collect();
    let mut cx = NoBodies(Module::new());
    let result = prim.transpose(&mut em, &mut cx, &linear_ins, &cts)?;
    assert_eq!(result.len(), ins.len(), "{}: one cotangent per input", prim.name());
    let mut returned = Vec::new();
    let mut which = Vec::new();
    for (input, ct) in ins.iter().zip(&result) {
        match (input, ct) {
            (In::Residual(_), None) => {}
            (In::Residual(_), Some(_)) => panic!("{}: a cotangent for a residual input", prim.name()),
            (In::Linear(ty), Some(ct)) => {
                assert_eq!(em.ty(*ct), ty, "{}: the cotangent has the wrong type", prim.name());
                which.push(Some(returned.len()));
                returned.push(*ct);
            }
            (In::Linear(_), None) => which.push(None),
        }
    }
    Ok((em.finish(&returned), which))
}

/// `<a, b>` and `sum |a_i b_i|` (the scale of its rounding error).
fn dot(a: &Array, b: &Array) -> (f64, f64) {
    assert_eq!(a.shape(), b.shape());
    let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
    a.iter().zip(&b).fold((0.0, 0.0), |(s, m), (x, y)| (s + x * y, m + (x * y).abs()))
}

/// Checks `<u, L v> = <Lᵀ u, v>` within `tol` (relative) on a few random `u`, `v`.
fn check_with(prim: Prim, ins: Vec<In>, tol: f64) {
    let forward = forward_func(&prim, &ins);
    let (transposed, which) = transposed_func(&prim, &ins, &forward.result_types)
        .unwrap_or_else(|e| panic!("{}: transpose failed: {e}", prim.name()));
    let listing = || {
        let options = PrintOptions::default();
        format!("{}\n{}", ferrax_ir::print_func(&forward, &options), ferrax_ir::print_func(&transposed, &options))
    };
    for seed in 0..3 {
        let mut rng = Rng::new(seed);
        let (mut args, mut zero_args) = (Vec::new(), Vec::new());
        let mut vs = Vec::new();
        let mut residuals = Vec::new();
        for input in &ins {
            match input {
                In::Linear(ty) => {
                    let v = random_array(ty, &mut rng, false);
                    vs.push(v.clone());
                    args.push(v);
                    zero_args.push(Array::zeros(ty.dtype, &ty.shape, &Budget::default()).unwrap());
                }
                In::Residual(a) => {
                    residuals.push(a.clone());
                    args.push(a.clone());
                    zero_args.push(a.clone());
                }
            }
        }
        let us: Vec<Array> = forward.result_types.iter().map(|ty| random_array(ty, &mut rng, false)).collect();
        // A residual added in (`x + r`, `pad(x, r)`, ...) makes the equation affine:
        // its linear part is L(v) - L(0).
        let (lv, l0) = (run(&forward, &args), run(&forward, &zero_args));
        let (mut lhs, mut scale) = (0.0, 0.0);
        for ((u, y), y0) in us.iter().zip(&lv).zip(&l0) {
            let (s, m) = dot(u, y);
            let (s0, m0) = dot(u, y0);
            lhs += s - s0;
            scale += m + m0;
        }
        let ltu = run(&transposed, &[residuals, us].concat());
        let mut rhs = 0.0;
        for (v, slot) in vs.iter().zip(&which) {
            if let Some(k) = slot {
                let (s, m) = dot(&ltu[*k], v);
                rhs += s;
                scale += m;
            }
        }
        assert!(
            (lhs - rhs).abs() <= tol * scale.max(1e-300),
            "{}: <u, Lv> = {lhs} but <Lt u, v> = {rhs} (seed {seed})\n{}",
            prim.name(),
            listing()
        );
    }
}

/// `check_with` at f64 precision.
fn check(prim: Prim, ins: Vec<In>) {
    check_with(prim, ins, 1e-12);
}

/// The error of transposing `prim` with these inputs.
fn transpose_error(prim: Prim, ins: Vec<In>) -> String {
    let forward = forward_func(&prim, &ins);
    match transposed_func(&prim, &ins, &forward.result_types) {
        Ok(_) => panic!("{}: transposed a non-linear use", prim.name()),
        Err(e) => e,
    }
}

// ---- elementwise ----

#[test]
fn neg() {
    for shape in [&[2, 3][..], &[], &[1]] {
        check(Prim::Unary(UnaryOp::Neg), vec![lin(shape)]);
    }
}

#[test]
fn convert_between_floats() {
    check(Prim::Unary(UnaryOp::Convert { dtype: DType::F64 }), vec![lin(&[2, 3])]);
    // f32 rounding of the cotangent or the operand limits the agreement.
    check_with(Prim::Unary(UnaryOp::Convert { dtype: DType::F32 }), vec![lin(&[4])], 1e-6);
    check_with(
        Prim::Unary(UnaryOp::Convert { dtype: DType::F64 }),
        vec![In::Linear(Type::new(DType::F32, &[3, 1]))],
        1e-6,
    );
}

#[test]
fn add_and_sub() {
    for op in [BinaryOp::Add, BinaryOp::Sub] {
        for shape in [&[2, 3][..], &[]] {
            check(Prim::Binary(op), vec![lin(shape), lin(shape)]);
            check(Prim::Binary(op), vec![lin(shape), res(shape, 1)]);
            check(Prim::Binary(op), vec![res(shape, 2), lin(shape)]);
        }
    }
}

#[test]
fn mul_with_one_residual() {
    for shape in [&[3, 2][..], &[], &[1, 1]] {
        check(Prim::Binary(BinaryOp::Mul), vec![lin(shape), res(shape, 3)]);
        check(Prim::Binary(BinaryOp::Mul), vec![res(shape, 4), lin(shape)]);
    }
}

#[test]
fn div_with_linear_numerator() {
    // Residual denominators away from zero.
    let denominator = Array::from_f64(&[2, 2], vec![1.5, -2.0, 0.75, 3.0]).unwrap();
    check(Prim::Binary(BinaryOp::Div), vec![lin(&[2, 2]), In::Residual(denominator)]);
    check(Prim::Binary(BinaryOp::Div), vec![lin(&[]), In::Residual(Array::scalar_f64(-1.25))]);
}

#[test]
fn select_with_residual_predicate() {
    let pred = Array::from_bool(&[2, 3], vec![true, false, false, true, true, false]).unwrap();
    check(Prim::Ternary(TernaryOp::Select), vec![In::Residual(pred.clone()), lin(&[2, 3]), lin(&[2, 3])]);
    check(Prim::Ternary(TernaryOp::Select), vec![In::Residual(pred.clone()), res(&[2, 3], 5), lin(&[2, 3])]);
    check(Prim::Ternary(TernaryOp::Select), vec![In::Residual(pred), lin(&[2, 3]), res(&[2, 3], 6)]);
    check(Prim::Ternary(TernaryOp::Select), vec![In::Residual(Array::scalar_bool(true)), lin(&[]), lin(&[])]);
}

// ---- structural ----

/// `broadcast_in_dim[shape, dims]`.
fn broadcast(shape: &[usize], dims: &[usize]) -> Prim {
    Prim::Shape(ShapeOp::BroadcastInDim { shape: shape.into(), dims: dims.to_vec() })
}

#[test]
fn broadcast_in_dim() {
    check(broadcast(&[2, 3], &[1]), vec![lin(&[3])]);
    check(broadcast(&[2, 3], &[]), vec![lin(&[])]);
    // Expanded size-1 axes.
    check(broadcast(&[3, 4], &[0, 1]), vec![lin(&[3, 1])]);
    check(broadcast(&[2, 4, 3, 5], &[0, 1, 2]), vec![lin(&[2, 1, 3])]);
    check(broadcast(&[1, 5, 2], &[0, 2]), vec![lin(&[1, 1])]);
    check(broadcast(&[4, 1, 2], &[0, 1]), vec![lin(&[1, 1])]);
    // The identity.
    check(broadcast(&[1], &[0]), vec![lin(&[1])]);
}

#[test]
fn reshape() {
    let prim = |shape: &[usize]| Prim::Shape(ShapeOp::Reshape { shape: shape.into() });
    check(prim(&[3, 2]), vec![lin(&[2, 3])]);
    check(prim(&[1, 6, 1]), vec![lin(&[6])]);
    check(prim(&[1, 1]), vec![lin(&[])]);
    check(prim(&[]), vec![lin(&[1])]);
}

#[test]
fn transpose() {
    let prim = |perm: &[usize]| Prim::Shape(ShapeOp::Transpose { perm: perm.to_vec() });
    check(prim(&[2, 0, 1]), vec![lin(&[2, 3, 4])]);
    check(prim(&[1, 2, 0]), vec![lin(&[2, 3, 4])]);
    check(prim(&[1, 0]), vec![lin(&[2, 1])]);
    check(prim(&[0, 1]), vec![lin(&[2, 3])]);
    check(prim(&[]), vec![lin(&[])]);
}

#[test]
fn rev() {
    let prim = |axes: &[usize]| Prim::Shape(ShapeOp::Rev { axes: axes.to_vec() });
    check(prim(&[0, 2]), vec![lin(&[2, 3, 4])]);
    check(prim(&[1]), vec![lin(&[3, 1])]);
    check(prim(&[]), vec![lin(&[3])]);
}

/// `slice[start, limit, strides]`.
fn slice(start: &[usize], limit: &[usize], strides: &[usize]) -> Prim {
    Prim::Shape(ShapeOp::Slice { start: start.to_vec(), limit: limit.to_vec(), strides: strides.to_vec() })
}

#[test]
fn slice_strided_and_empty() {
    check(slice(&[1, 0], &[7, 5], &[2, 3]), vec![lin(&[7, 5])]);
    check(slice(&[3, 1], &[9, 4], &[3, 2]), vec![lin(&[10, 4])]);
    check(slice(&[1], &[6], &[2]), vec![lin(&[6])]);
    check(slice(&[0, 2], &[1, 3], &[1, 1]), vec![lin(&[1, 4])]);
    check(slice(&[2], &[2], &[1]), vec![lin(&[5])]);
    check(slice(&[], &[], &[]), vec![lin(&[])]);
}

/// `pad[low, high, interior]`.
fn pad(low: &[i64], high: &[i64], interior: &[usize]) -> Prim {
    Prim::Shape(ShapeOp::Pad { low: low.to_vec(), high: high.to_vec(), interior: interior.to_vec() })
}

#[test]
fn pad_with_negative_and_interior_padding() {
    let cases = [
        (pad(&[1, -1], &[-2, 2], &[1, 2]), vec![3, 4]),
        (pad(&[-3], &[-1], &[1]), vec![4]),
        (pad(&[2, 0], &[1, 3], &[0, 0]), vec![2, 3]),
        (pad(&[-1, 2], &[0, -4], &[2, 1]), vec![3, 3]),
        (pad(&[3], &[-5], &[0]), vec![2]),
        (pad(&[2], &[1], &[3]), vec![0]),
        (pad(&[1], &[1], &[2]), vec![1]),
        (pad(&[], &[], &[]), vec![]),
    ];
    for (prim, shape) in cases {
        check(prim.clone(), vec![lin(&shape), lin(&[])]);
        check(prim.clone(), vec![lin(&shape), res(&[], 7)]);
        check(prim, vec![res(&shape, 8), lin(&[])]);
    }
}

#[test]
fn concatenate_of_three() {
    let prim = Prim::Shape(ShapeOp::Concatenate { axis: 1 });
    check(prim.clone(), vec![lin(&[2, 1]), lin(&[2, 3]), lin(&[2, 2])]);
    check(prim.clone(), vec![lin(&[2, 1]), res(&[2, 3], 9), lin(&[2, 2])]);
    check(prim, vec![res(&[2, 1], 10), lin(&[2, 0]), lin(&[2, 2])]);
    check(Prim::Shape(ShapeOp::Concatenate { axis: 0 }), vec![lin(&[1]), lin(&[4]), lin(&[2])]);
}

// ---- indexing ----

#[test]
fn dynamic_slice_at_clamped_positions() {
    let prim = Prim::Index(IndexOp::DynamicSlice { sizes: vec![2, 3] });
    for (i, j) in [(1, 2), (4, -3), (100, 100), (-1, 3)] {
        check(prim.clone(), vec![lin(&[5, 6]), start(i), start(j)]);
    }
    check(Prim::Index(IndexOp::DynamicSlice { sizes: vec![] }), vec![lin(&[])]);
    check(Prim::Index(IndexOp::DynamicSlice { sizes: vec![1] }), vec![lin(&[1]), start(7)]);
}

#[test]
fn dynamic_update_slice_at_clamped_positions() {
    let prim = Prim::Index(IndexOp::DynamicUpdateSlice);
    for (i, j) in [(1, 2), (4, 5), (-2, 100), (0, 0)] {
        check(prim.clone(), vec![lin(&[5, 6]), lin(&[2, 3]), start(i), start(j)]);
        check(prim.clone(), vec![lin(&[5, 6]), res(&[2, 3], 11), start(i), start(j)]);
        check(prim.clone(), vec![res(&[5, 6], 12), lin(&[2, 3]), start(i), start(j)]);
    }
    check(prim.clone(), vec![lin(&[4]), lin(&[4]), start(2)]);
    check(prim, vec![lin(&[]), lin(&[])]);
}

#[test]
fn gather_with_duplicate_and_clamped_indices() {
    let idx = || indices(&[6], &[1, 1, 3, 0, 7, -2]);
    check(Prim::Index(IndexOp::Gather { axis: 0, batch_dims: 0 }), vec![lin(&[4, 3]), idx()]);
    check(Prim::Index(IndexOp::Gather { axis: 1, batch_dims: 0 }), vec![lin(&[2, 4]), idx()]);
    check(Prim::Index(IndexOp::Gather { axis: 0, batch_dims: 0 }), vec![lin(&[4]), indices(&[], &[2])]);
    check(Prim::Index(IndexOp::Gather { axis: 0, batch_dims: 0 }), vec![lin(&[3, 2]), indices(&[2, 2], &[2, 2, 0, 2])]);
    // One batch axis: each batch row takes its own indices.
    let batched = indices(&[2, 5], &[0, 3, 3, 1, 3, 2, 2, 9, 0, 2]);
    check(Prim::Index(IndexOp::Gather { axis: 1, batch_dims: 1 }), vec![lin(&[2, 4, 3]), batched]);
    let batched = indices(&[2, 3], &[1, 1, 0, 0, 2, 0]);
    check(Prim::Index(IndexOp::Gather { axis: 2, batch_dims: 1 }), vec![lin(&[2, 2, 3]), batched]);
}

#[test]
fn scatter_add_with_duplicate_and_clamped_indices() {
    let idx = || indices(&[6], &[1, 1, 3, 0, 7, -2]);
    let prim = Prim::Index(IndexOp::ScatterAdd { axis: 0, batch_dims: 0 });
    check(prim.clone(), vec![lin(&[4, 3]), idx(), lin(&[6, 3])]);
    check(prim.clone(), vec![res(&[4, 3], 13), idx(), lin(&[6, 3])]);
    check(prim, vec![lin(&[4, 3]), idx(), res(&[6, 3], 14)]);
    let batched = || indices(&[2, 5], &[0, 3, 3, 1, 3, 2, 2, 9, 0, 2]);
    let prim = Prim::Index(IndexOp::ScatterAdd { axis: 1, batch_dims: 1 });
    check(prim.clone(), vec![lin(&[2, 4, 3]), batched(), lin(&[2, 5, 3])]);
    check(prim, vec![res(&[2, 4, 3], 15), batched(), lin(&[2, 5, 3])]);
}

// ---- reductions ----

#[test]
fn reduce_sum() {
    let prim = |axes: &[usize]| Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum, axes: axes.to_vec() });
    check(prim(&[0, 2]), vec![lin(&[2, 3, 4])]);
    check(prim(&[1]), vec![lin(&[2, 1])]);
    check(prim(&[0]), vec![lin(&[5])]);
    check(prim(&[]), vec![lin(&[2, 3])]);
    check(prim(&[]), vec![lin(&[])]);
}

#[test]
fn cumsum_both_directions() {
    for reverse in [false, true] {
        check(Prim::Reduction(ReductionOp::Cumsum { axis: 1, reverse }), vec![lin(&[3, 4])]);
        check(Prim::Reduction(ReductionOp::Cumsum { axis: 0, reverse }), vec![lin(&[5])]);
        check(Prim::Reduction(ReductionOp::Cumsum { axis: 0, reverse }), vec![lin(&[1, 2])]);
    }
}

// ---- dot_general ----

/// `dot_general` with these dimension numbers.
fn dot_general(lhs_contract: &[usize], rhs_contract: &[usize], lhs_batch: &[usize], rhs_batch: &[usize]) -> Prim {
    Prim::Linalg(LinalgOp::DotGeneral(DotDims {
        lhs_contract: lhs_contract.to_vec(),
        rhs_contract: rhs_contract.to_vec(),
        lhs_batch: lhs_batch.to_vec(),
        rhs_batch: rhs_batch.to_vec(),
        preferred: None,
    }))
}

/// Checks a `dot_general` with each side linear in turn.
fn check_dot(prim: Prim, lhs: &[usize], rhs: &[usize]) {
    check(prim.clone(), vec![lin(lhs), res(rhs, 16)]);
    check(prim, vec![res(lhs, 17), lin(rhs)]);
}

#[test]
fn dot_general_matrix_products() {
    check_dot(dot_general(&[1], &[0], &[], &[]), &[3, 4], &[4, 5]);
    // Transposed layouts.
    check_dot(dot_general(&[0], &[1], &[], &[]), &[4, 3], &[5, 4]);
    check_dot(dot_general(&[1], &[1], &[], &[]), &[3, 4], &[5, 4]);
    check_dot(dot_general(&[0], &[0], &[], &[]), &[4, 3], &[4, 5]);
    // Vector products, outer product, matrix-vector.
    check_dot(dot_general(&[0], &[0], &[], &[]), &[4], &[4]);
    check_dot(dot_general(&[], &[], &[], &[]), &[3], &[2]);
    check_dot(dot_general(&[], &[], &[], &[]), &[], &[2, 1]);
    check_dot(dot_general(&[0], &[1], &[], &[]), &[4], &[3, 4]);
}

#[test]
fn dot_general_with_batch_and_two_contracting_axes() {
    // Batch axis 0 of lhs with axis 1 of rhs; lhs axes 3 and 1 contract with rhs axes 0
    // and 3 (listed out of order); free axes lhs 2 and rhs 2.
    check_dot(dot_general(&[3, 1], &[0, 3], &[0], &[1]), &[2, 3, 4, 5], &[5, 2, 6, 3]);
    // Two batch axes listed in swapped order.
    check_dot(dot_general(&[2], &[2], &[1, 0], &[0, 1]), &[3, 2, 4], &[2, 3, 4]);
    // Batch axes in the middle and at the end, several free axes on each side.
    check_dot(dot_general(&[0, 3], &[4, 1], &[2], &[0]), &[3, 2, 4, 5, 1], &[4, 5, 2, 6, 3]);
    // Only batch axes (an elementwise product over them).
    check_dot(dot_general(&[], &[], &[0, 1], &[0, 1]), &[2, 3], &[2, 3]);
}

// ---- errors and zeros ----

#[test]
fn non_linear_uses_are_errors() {
    let both = transpose_error(Prim::Binary(BinaryOp::Mul), vec![lin(&[2]), lin(&[2])]);
    assert!(both.contains("not linear"), "{both}");
    let denominator = transpose_error(Prim::Binary(BinaryOp::Div), vec![res(&[2], 18), lin(&[2])]);
    assert!(denominator.contains("denominator"), "{denominator}");
    let dot = transpose_error(dot_general(&[1], &[0], &[], &[]), vec![lin(&[2, 3]), lin(&[3, 2])]);
    assert!(dot.contains("not linear"), "{dot}");
    let pred = In::Linear(Type::new(DType::Bool, &[2]));
    let select = transpose_error(Prim::Ternary(TernaryOp::Select), vec![pred, lin(&[2]), lin(&[2])]);
    assert!(select.contains("predicate"), "{select}");
    let exp = transpose_error(Prim::Unary(UnaryOp::Exp), vec![lin(&[2])]);
    assert!(exp.contains("exp is not linear"), "{exp}");
    let max = transpose_error(Prim::Binary(BinaryOp::Max), vec![lin(&[2]), res(&[2], 19)]);
    assert!(max.contains("max is not linear"), "{max}");
    let prod =
        transpose_error(Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Prod, axes: vec![0] }), vec![lin(&[2])]);
    assert!(prod.contains("reduce_prod is not linear"), "{prod}");
    let to_int = transpose_error(Prim::Unary(UnaryOp::Convert { dtype: DType::I32 }), vec![lin(&[2])]);
    assert!(to_int.contains("not linear"), "{to_int}");
    let idx = In::Linear(Type::new(DType::I32, &[2]));
    let gather = transpose_error(Prim::Index(IndexOp::Gather { axis: 0, batch_dims: 0 }), vec![lin(&[3]), idx]);
    assert!(gather.contains("indices"), "{gather}");
    let start = In::Linear(Type::scalar(DType::I32));
    let ds = transpose_error(Prim::Index(IndexOp::DynamicSlice { sizes: vec![1] }), vec![lin(&[3]), start]);
    assert!(ds.contains("start index 0"), "{ds}");
}

#[test]
fn zero_cotangents_emit_nothing() {
    let cases = vec![
        (Prim::Unary(UnaryOp::Neg), vec![lin(&[2])]),
        (Prim::Unary(UnaryOp::Convert { dtype: DType::F32 }), vec![lin(&[2])]),
        (Prim::Binary(BinaryOp::Sub), vec![lin(&[2]), lin(&[2])]),
        (Prim::Binary(BinaryOp::Mul), vec![lin(&[2]), res(&[2], 20)]),
        (Prim::Binary(BinaryOp::Div), vec![lin(&[2]), res(&[2], 21)]),
        (
            Prim::Ternary(TernaryOp::Select),
            vec![In::Residual(Array::from_bool(&[2], vec![true, false]).unwrap()), lin(&[2]), lin(&[2])],
        ),
        (broadcast(&[3, 2], &[1]), vec![lin(&[2])]),
        (Prim::Shape(ShapeOp::Reshape { shape: (&[2, 1][..]).into() }), vec![lin(&[2])]),
        (Prim::Shape(ShapeOp::Transpose { perm: vec![1, 0] }), vec![lin(&[2, 3])]),
        (Prim::Shape(ShapeOp::Rev { axes: vec![0] }), vec![lin(&[2])]),
        (slice(&[1], &[3], &[1]), vec![lin(&[4])]),
        (pad(&[1], &[-1], &[1]), vec![lin(&[3]), lin(&[])]),
        (Prim::Shape(ShapeOp::Concatenate { axis: 0 }), vec![lin(&[1]), lin(&[2]), res(&[3], 22)]),
        (Prim::Index(IndexOp::DynamicSlice { sizes: vec![2] }), vec![lin(&[4]), start(1)]),
        (Prim::Index(IndexOp::DynamicUpdateSlice), vec![lin(&[4]), lin(&[2]), start(1)]),
        (Prim::Index(IndexOp::Gather { axis: 0, batch_dims: 0 }), vec![lin(&[4]), indices(&[2], &[0, 0])]),
        (
            Prim::Index(IndexOp::ScatterAdd { axis: 0, batch_dims: 0 }),
            vec![lin(&[4]), indices(&[2], &[0, 0]), lin(&[2])],
        ),
        (Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum, axes: vec![0] }), vec![lin(&[3])]),
        (Prim::Reduction(ReductionOp::Cumsum { axis: 0, reverse: false }), vec![lin(&[3])]),
        (dot_general(&[1], &[0], &[], &[]), vec![lin(&[2, 3]), res(&[3, 2], 23)]),
        (dot_general(&[1], &[0], &[], &[]), vec![res(&[2, 3], 24), lin(&[3, 2])]),
    ];
    for (prim, ins) in cases {
        let mut em = Emitter::new("transposed");
        let linear_ins: Vec<LinearIn> = ins
            .iter()
            .map(|input| match input {
                In::Linear(ty) => LinearIn::Linear(ty.clone()),
                In::Residual(a) => LinearIn::Residual(em.param(Type::new(a.dtype(), a.shape()))),
            })
            .collect();
        let mut cx = NoBodies(Module::new());
        let cts = prim.transpose(&mut em, &mut cx, &linear_ins, &[None]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cts, vec![None; ins.len()], "{}: a zero cotangent gives zeros", prim.name());
        let emitted = em.func().eqns.len();
        assert_eq!(emitted, 0, "{}: emitted equations for a zero cotangent", prim.name());
    }
}
