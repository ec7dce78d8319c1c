//! The batching rules of the elementwise, reduction and `dot_general` families, checked
//! one primitive at a time against a loop over examples.
//!
//! A case is a primitive and the operand types of one example. For every assignment of
//! batch axes (each operand unbatched, or batched at any of its `rank + 1` positions;
//! at least one batched) and every batch size in 0, 1 and 3, `Prim::batch` is applied
//! to fresh parameters, the outputs are moved to axis 0, and the result on random
//! inputs must equal, bit for bit, the primitive applied to each example (sliced on the
//! host) stacked along axis 0. Further tests pin down what the rules emit (a matrix
//! times a batch of vectors is one `dot_general`, with no transpose) and that impossible
//! states are errors, not panics.

use ferrax_ir::array::Data;
use ferrax_ir::prim::batch::{BatchContext, BatchFunc};
use ferrax_ir::prim::unary::UnaryDomain;
use ferrax_ir::prim::{ArgOp, BinaryOp, CompareOp, DotDims, ReduceOp, UnaryOp};
use ferrax_ir::prim::{LinalgOp, ReductionOp, ShapeOp, TernaryOp};
use ferrax_ir::testing::{Rng, random_array};
use ferrax_ir::{
    Array, DType, Emitter, EvalOptions, Func, Module, Prim, PrintOptions, Type, Value, eval, print_func, verify,
};

/// A context for the primitives of these families, which have no bodies.
struct NoBodies {
    module: Module,
    size: usize,
}

impl NoBodies {
    fn new(size: usize) -> NoBodies {
        NoBodies { module: Module::new(), size }
    }
}

impl BatchContext for NoBodies {
    fn module(&self) -> &Module {
        &self.module
    }

    fn axis_size(&self) -> usize {
        self.size
    }

    fn batch_func(&mut self, name: &str, _in_batched: &[bool], _force_out: &[bool]) -> Result<BatchFunc, String> {
        Err(format!("these tests have no bodies to batch (asked for @{name})"))
    }

    fn add_func(&mut self, func: Func) -> String {
        panic!("these tests have no helper Funcs (a rule added @{})", func.name)
    }
}

/// `ty` with a batch axis of `size` inserted at `dim` (unchanged for `None`).
fn batched_type(ty: &Type, dim: Option<usize>, size: usize) -> Type {
    let mut shape = ty.shape.clone();
    if let Some(d) = dim {
        shape.insert(d, size);
    }
    Type { dtype: ty.dtype, shape }
}

/// Applies `prim.batch` to parameters of the example types batched at `dims`.
fn apply_rule(
    prim: &Prim,
    example: &[Type],
    dims: &[Option<usize>],
    size: usize,
) -> Result<(Emitter, Vec<Value>, Vec<Option<usize>>), String> {
    let mut em = Emitter::new("batched");
    let params: Vec<Value> = example.iter().zip(dims).map(|(ty, &d)| em.param(batched_type(ty, d, size))).collect();
    let (outs, out_dims) = prim.batch(&mut em, &mut NoBodies::new(size), &params, dims)?;
    Ok((em, outs, out_dims))
}

/// The batched Func: parameters batched at `dims`, every output batched at axis 0.
fn batched_func(prim: &Prim, example: &[Type], dims: &[Option<usize>], size: usize) -> Func {
    let what = format!("{} batched at {dims:?}, size {size}", prim.name());
    let (mut em, outs, out_dims) = apply_rule(prim, example, dims, size).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(outs.len(), out_dims.len(), "{what}: one batch axis per output");
    let results: Vec<Value> = outs.iter().zip(&out_dims).map(|(&o, &d)| em.batch_at(o, d, size, 0).unwrap()).collect();
    em.finish(&results)
}

/// The Func of one example: `prim` applied to its parameters.
fn example_func(prim: &Prim, example: &[Type]) -> Func {
    let mut em = Emitter::new("example");
    let params: Vec<Value> = example.iter().map(|ty| em.param(ty.clone())).collect();
    let outs = em.eqn(&Module::new(), prim.clone(), &params).unwrap_or_else(|e| panic!("example: {e}"));
    em.finish(&outs)
}

/// A module holding `func` alone.
fn module_of(func: Func) -> Module {
    let mut module = Module::new();
    module.push(func);
    module
}

/// Runs the only Func of `module`.
fn run(module: &Module, name: &str, args: &[Array]) -> Vec<Array> {
    eval(module, name, args, &EvalOptions::default()).unwrap_or_else(|e| panic!("eval of @{name}: {e}"))
}

/// Slice `i` of `x` along `axis` (the axis removed).
fn take(x: &Array, axis: usize, i: usize) -> Array {
    let shape = x.shape();
    let (outer, n, inner): (usize, usize, usize) =
        (shape[..axis].iter().product(), shape[axis], shape[axis + 1..].iter().product());
    let indices = (0..outer).flat_map(move |o| (0..inner).map(move |j| (o * n + i) * inner + j));
    let mut sliced = shape.to_vec();
    sliced.remove(axis);
    Array::new(sliced, x.data().gather(indices)).unwrap()
}

/// Stacks `parts` (each of type `example`) along a new leading axis of `size`.
fn stack(parts: &[Array], example: &Type, size: usize) -> Array {
    let mut shape = vec![size];
    shape.extend(example.shape.iter().copied());
    let datas: Vec<&Data> = parts.iter().map(Array::data).collect();
    let data = Data::concat(&datas).unwrap_or_else(|| Data::zeros(example.dtype, 0));
    Array::new(shape, data).unwrap()
}

/// The elements of `x` as bit patterns, every NaN alike (so that equality is bit for
/// bit, with signed zeros told apart).
fn bits(x: &Array) -> Vec<u64> {
    const NAN: u64 = u64::MAX;
    match x.data() {
        Data::Bool(v) => v.iter().map(|&b| u64::from(b)).collect(),
        Data::I32(v) => v.iter().map(|&a| u64::from(a as u32)).collect(),
        Data::F32(v) => v.iter().map(|a| if a.is_nan() { NAN } else { u64::from(a.to_bits()) }).collect(),
        Data::F64(v) => v.iter().map(|a| if a.is_nan() { NAN } else { a.to_bits() }).collect(),
        Data::BF16(v) => v.iter().map(|a| if a.is_nan() { NAN } else { u64::from(a.to_bits()) }).collect(),
        Data::F16(v) => v.iter().map(|a| if a.is_nan() { NAN } else { u64::from(a.to_bits()) }).collect(),
    }
}

/// Every assignment of batch axes to operands of ranks `ranks` (unbatched, or any of
/// the `rank + 1` positions) but the one with nothing batched.
fn batch_axis_choices(ranks: &[usize]) -> Vec<Vec<Option<usize>>> {
    let mut all: Vec<Vec<Option<usize>>> = vec![vec![]];
    for &rank in ranks {
        let options: Vec<Option<usize>> = std::iter::once(None).chain((0..=rank).map(Some)).collect();
        all = all.iter().flat_map(|prefix| options.iter().map(move |&o| [prefix.clone(), vec![o]].concat())).collect();
    }
    all.retain(|dims| dims.iter().any(Option::is_some));
    all
}

/// Checks the batching rule of `prim` on operands of the `example` types against the
/// loop over examples, for every choice of batch axes and batch sizes 0, 1 and 3.
fn check(prim: &Prim, example: &[Type], rng: &mut Rng) {
    let reference = module_of(example_func(prim, example));
    let out_types = reference.funcs[0].result_types.clone();
    let ranks: Vec<usize> = example.iter().map(Type::rank).collect();
    for dims in batch_axis_choices(&ranks) {
        for size in [0, 1, 3] {
            let what = format!("{} on {example:?} batched at {dims:?}, size {size}", prim.name());
            let batched = module_of(batched_func(prim, example, &dims, size));
            verify(&batched).unwrap_or_else(|e| panic!("{what}: the batched Func does not verify: {e}"));
            let args: Vec<Array> =
                example.iter().zip(&dims).map(|(ty, &d)| random_array(&batched_type(ty, d, size), rng, true)).collect();
            let got = run(&batched, "batched", &args);
            let mut per_example: Vec<Vec<Array>> = vec![Vec::new(); out_types.len()];
            for i in 0..size {
                let slices: Vec<Array> =
                    args.iter().zip(&dims).map(|(x, &d)| d.map_or_else(|| x.clone(), |d| take(x, d, i))).collect();
                for (k, out) in run(&reference, "example", &slices).into_iter().enumerate() {
                    per_example[k].push(out);
                }
            }
            assert_eq!(got.len(), out_types.len(), "{what}: number of outputs");
            for (k, ((got, parts), ty)) in got.iter().zip(&per_example).zip(&out_types).enumerate() {
                let want = stack(parts, ty, size);
                assert_eq!(got.dtype(), want.dtype(), "{what}: dtype of output {k}");
                assert_eq!(got.shape(), want.shape(), "{what}: shape of output {k}");
                assert_eq!(bits(got), bits(&want), "{what}: output {k}\n got {got:?}\nwant {want:?}");
            }
        }
    }
}

fn t(dtype: DType, shape: &[usize]) -> Type {
    Type::new(dtype, shape)
}

/// The dtypes of these tests a domain accepts.
fn dtypes_of(domain: UnaryDomain) -> Vec<DType> {
    [DType::Bool, DType::I32, DType::F32, DType::F64].into_iter().filter(|&d| domain.accepts(d)).collect()
}

// ---- elementwise ----

#[test]
fn unary_ops_batch_like_a_loop() {
    let mut rng = Rng::new(1);
    for op in UnaryOp::MATH {
        for dtype in dtypes_of(op.domain()) {
            check(&Prim::Unary(op), &[t(dtype, &[2, 3])], &mut rng);
        }
    }
    check(&Prim::Unary(UnaryOp::Exp), &[t(DType::F32, &[])], &mut rng);
    check(&Prim::Unary(UnaryOp::Neg), &[t(DType::I32, &[0, 2])], &mut rng);
}

#[test]
fn integer_pow_convert_and_identities_batch_like_a_loop() {
    let mut rng = Rng::new(2);
    for y in [3, -2, 0] {
        for dtype in [DType::I32, DType::F32] {
            check(&Prim::Unary(UnaryOp::IntegerPow { y }), &[t(dtype, &[2, 3])], &mut rng);
        }
    }
    for (from, to) in [
        (DType::F32, DType::I32),
        (DType::I32, DType::F64),
        (DType::Bool, DType::F32),
        (DType::F64, DType::Bool),
        (DType::F32, DType::F32),
    ] {
        check(&Prim::Unary(UnaryOp::Convert { dtype: to }), &[t(from, &[2, 3])], &mut rng);
    }
    check(&Prim::Unary(UnaryOp::StopGradient), &[t(DType::F32, &[2, 3])], &mut rng);
    check(&Prim::Name { name: "h".into() }, &[t(DType::F64, &[3])], &mut rng);
}

#[test]
fn binary_ops_batch_like_a_loop() {
    let mut rng = Rng::new(3);
    for op in BinaryOp::ALL {
        for dtype in dtypes_of(op.domain()) {
            check(&Prim::Binary(op), &[t(dtype, &[2, 3]), t(dtype, &[2, 3])], &mut rng);
        }
    }
    check(&Prim::Binary(BinaryOp::Add), &[t(DType::F32, &[]), t(DType::F32, &[])], &mut rng);
    check(&Prim::Binary(BinaryOp::Mul), &[t(DType::F32, &[0, 2]), t(DType::F32, &[0, 2])], &mut rng);
}

#[test]
fn comparisons_batch_like_a_loop() {
    let mut rng = Rng::new(4);
    for op in CompareOp::ALL {
        for dtype in [DType::F32, DType::I32] {
            check(&Prim::Compare(op), &[t(dtype, &[2, 3]), t(dtype, &[2, 3])], &mut rng);
        }
    }
    check(&Prim::Compare(CompareOp::Eq), &[t(DType::Bool, &[3]), t(DType::Bool, &[3])], &mut rng);
}

#[test]
fn select_and_clamp_batch_like_a_loop() {
    let mut rng = Rng::new(5);
    check(
        &Prim::Ternary(TernaryOp::Select),
        &[t(DType::Bool, &[2, 3]), t(DType::F32, &[2, 3]), t(DType::F32, &[2, 3])],
        &mut rng,
    );
    check(&Prim::Ternary(TernaryOp::Select), &[t(DType::Bool, &[]), t(DType::I32, &[]), t(DType::I32, &[])], &mut rng);
    check(
        &Prim::Ternary(TernaryOp::Clamp),
        &[t(DType::F32, &[2, 3]), t(DType::F32, &[2, 3]), t(DType::F32, &[2, 3])],
        &mut rng,
    );
    check(&Prim::Ternary(TernaryOp::Clamp), &[t(DType::I32, &[3]), t(DType::I32, &[3]), t(DType::I32, &[3])], &mut rng);
}

// ---- reductions ----

#[test]
fn reductions_batch_like_a_loop() {
    let mut rng = Rng::new(6);
    let axes_sets: [&[usize]; 8] = [&[], &[0], &[1], &[2], &[0, 2], &[2, 0], &[1, 2], &[0, 1, 2]];
    for op in ReduceOp::ALL {
        for axes in axes_sets {
            check(
                &Prim::Reduction(ReductionOp::Reduce { op, axes: axes.to_vec() }),
                &[t(DType::F32, &[2, 3, 4])],
                &mut rng,
            );
        }
        check(&Prim::Reduction(ReductionOp::Reduce { op, axes: vec![1] }), &[t(DType::I32, &[2, 3])], &mut rng);
        check(&Prim::Reduction(ReductionOp::Reduce { op, axes: vec![1] }), &[t(DType::F64, &[2, 0, 3])], &mut rng);
        check(&Prim::Reduction(ReductionOp::Reduce { op, axes: vec![] }), &[t(DType::F32, &[])], &mut rng);
    }
}

#[test]
fn arg_reductions_batch_like_a_loop() {
    let mut rng = Rng::new(7);
    for op in [ArgOp::Argmax, ArgOp::Argmin] {
        for axis in 0..3 {
            for dtype in [DType::F32, DType::I32] {
                let prim = Prim::Reduction(ReductionOp::ArgReduce { op, axis, index_dtype: DType::I32 });
                check(&prim, &[t(dtype, &[2, 3, 4])], &mut rng);
            }
        }
        check(
            &Prim::Reduction(ReductionOp::ArgReduce { op, axis: 0, index_dtype: DType::I32 }),
            &[t(DType::F64, &[5])],
            &mut rng,
        );
    }
}

#[test]
fn cumsum_batches_like_a_loop() {
    let mut rng = Rng::new(8);
    for axis in 0..3 {
        for reverse in [false, true] {
            check(&Prim::Reduction(ReductionOp::Cumsum { axis, reverse }), &[t(DType::F32, &[2, 3, 4])], &mut rng);
        }
    }
    check(&Prim::Reduction(ReductionOp::Cumsum { axis: 0, reverse: false }), &[t(DType::I32, &[4])], &mut rng);
}

// ---- dot_general ----

fn dot(lhs_contract: &[usize], rhs_contract: &[usize], lhs_batch: &[usize], rhs_batch: &[usize]) -> Prim {
    Prim::Linalg(LinalgOp::DotGeneral(DotDims {
        lhs_contract: lhs_contract.to_vec(),
        rhs_contract: rhs_contract.to_vec(),
        lhs_batch: lhs_batch.to_vec(),
        rhs_batch: rhs_batch.to_vec(),
        preferred: None,
    }))
}

#[test]
fn dot_general_batches_like_a_loop() {
    let mut rng = Rng::new(9);
    let f = |shape: &[usize]| t(DType::F32, shape);
    let cases: Vec<(Prim, Type, Type)> = vec![
        // matrix-matrix, matrix-vector, vector-matrix, inner and outer products
        (dot(&[1], &[0], &[], &[]), f(&[2, 3]), f(&[3, 4])),
        (dot(&[1], &[0], &[], &[]), f(&[2, 3]), f(&[3])),
        (dot(&[0], &[0], &[], &[]), f(&[3]), f(&[3, 4])),
        (dot(&[0], &[0], &[], &[]), f(&[3]), f(&[3])),
        (dot(&[], &[], &[], &[]), f(&[2]), f(&[4])),
        // contraction over the leading axis of the lhs and the trailing one of the rhs
        (dot(&[0], &[1], &[], &[]), f(&[3, 2]), f(&[4, 3])),
        // batch dimensions, leading, inner, and paired in swapped order
        (dot(&[2], &[1], &[0], &[0]), f(&[2, 3, 4]), f(&[2, 4, 5])),
        (dot(&[2], &[0], &[1], &[1]), f(&[3, 2, 4]), f(&[4, 2])),
        (dot(&[2], &[2], &[0, 1], &[1, 0]), f(&[2, 3, 4]), f(&[3, 2, 4])),
        // two contracting axes, paired in swapped order
        (dot(&[1, 2], &[1, 0], &[], &[]), f(&[2, 3, 4]), f(&[4, 3])),
        // an empty contraction
        (dot(&[1], &[0], &[], &[]), f(&[2, 0]), f(&[0, 3])),
        (dot(&[1], &[0], &[], &[]), t(DType::I32, &[2, 3]), t(DType::I32, &[3, 2])),
        (dot(&[1], &[0], &[], &[]), t(DType::F64, &[2, 3]), t(DType::F64, &[3])),
    ];
    for (prim, lhs, rhs) in cases {
        check(&prim, &[lhs, rhs], &mut rng);
    }
}

/// The equations of the Func a rule emitted for `prim` batched at `dims`, printed.
fn emitted(prim: &Prim, example: &[Type], dims: &[Option<usize>], size: usize) -> (Func, Vec<Option<usize>>) {
    let (em, outs, out_dims) = apply_rule(prim, example, dims, size).unwrap();
    (em.finish(&outs), out_dims)
}

#[test]
fn matvec_over_a_batch_of_vectors_is_one_dot_general() {
    let matrix = t(DType::F32, &[4, 3]);
    let vector = t(DType::F32, &[3]);
    let matvec = dot(&[1], &[0], &[], &[]);
    // The vectors stacked as rows (batch axis 0) or as columns (batch axis 1).
    for (dim, contract, out_dim) in [(0, 1, 1), (1, 0, 1)] {
        let (func, out_dims) = emitted(&matvec, &[matrix.clone(), vector.clone()], &[None, Some(dim)], 5);
        assert_eq!(out_dims, [Some(out_dim)]);
        assert_eq!(func.eqns.len(), 1, "{}", print_func(&func, &PrintOptions::default()));
        assert_eq!(func.eqns[0].prim, dot(&[1], &[contract], &[], &[]));
        assert!(func.eqns.iter().all(|e| !matches!(e.prim, Prim::Shape(ShapeOp::Transpose { .. }))));
    }
    let (func, _) = emitted(&matvec, &[matrix.clone(), vector.clone()], &[None, Some(0)], 5);
    let want = "\
func @batched(%0: f32[4,3], %1: f32[5,3]) -> (f32[4,5]) {
  %2: f32[4,5] = dot_general[lhs_contract=[1], rhs_contract=[1], lhs_batch=[], rhs_batch=[], preferred=none](%0, %1)
  return %2
}";
    assert_eq!(print_func(&func, &PrintOptions::default()).trim_end(), want);
    // A batch of matrices times one vector keeps the vector as it is, too.
    let (func, out_dims) = emitted(&matvec, &[matrix, vector], &[Some(2), None], 5);
    assert_eq!(out_dims, [Some(1)]);
    assert_eq!(func.eqns.len(), 1);
    assert_eq!(func.eqns[0].prim, dot(&[1], &[0], &[], &[]));
}

#[test]
fn dot_general_with_both_operands_batched_adds_a_leading_batch_pair() {
    let (func, out_dims) =
        emitted(&dot(&[1], &[0], &[], &[]), &[t(DType::F32, &[2, 3]), t(DType::F32, &[3, 4])], &[Some(1), Some(2)], 5);
    assert_eq!(out_dims, [Some(0)]);
    assert_eq!(func.eqns.len(), 1);
    assert_eq!(func.eqns[0].prim, dot(&[2], &[0], &[1], &[2]));
}

#[test]
fn elementwise_rules_broadcast_only_unbatched_operands_and_move_only_mismatched_axes() {
    let x = t(DType::F32, &[2, 3]);
    let add = Prim::Binary(BinaryOp::Add);
    let names = |func: &Func| func.eqns.iter().map(|e| e.prim.name()).collect::<Vec<_>>();
    let (func, out_dims) = emitted(&add, &[x.clone(), x.clone()], &[Some(1), Some(1)], 4);
    assert_eq!((names(&func), out_dims), (vec!["add"], vec![Some(1)]));
    let (func, out_dims) = emitted(&add, &[x.clone(), x.clone()], &[None, Some(2)], 4);
    assert_eq!((names(&func), out_dims), (vec!["broadcast_in_dim", "add"], vec![Some(2)]));
    let (func, out_dims) = emitted(&add, &[x.clone(), x.clone()], &[Some(0), Some(2)], 4);
    assert_eq!((names(&func), out_dims), (vec!["transpose", "add"], vec![Some(0)]));
    let (func, out_dims) = emitted(&Prim::Unary(UnaryOp::Tanh), &[x], &[Some(2)], 4);
    assert_eq!((names(&func), out_dims), (vec!["tanh"], vec![Some(2)]));
}

#[test]
fn reduction_rules_renumber_axes_without_moving_data() {
    let x = t(DType::F32, &[2, 3, 4]);
    let sum = Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum, axes: vec![2, 0] });
    let (func, out_dims) = emitted(&sum, std::slice::from_ref(&x), &[Some(1)], 5);
    assert_eq!(out_dims, [Some(0)]);
    assert_eq!(func.eqns.len(), 1);
    assert_eq!(func.eqns[0].prim, Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum, axes: vec![3, 0] }));
    let argmax = Prim::Reduction(ReductionOp::ArgReduce { op: ArgOp::Argmax, axis: 1, index_dtype: DType::I32 });
    let (func, out_dims) = emitted(&argmax, std::slice::from_ref(&x), &[Some(3)], 5);
    assert_eq!(out_dims, [Some(2)]);
    assert_eq!(func.eqns[0].prim, argmax);
    let (func, out_dims) =
        emitted(&Prim::Reduction(ReductionOp::Cumsum { axis: 1, reverse: true }), &[x], &[Some(0)], 5);
    assert_eq!(out_dims, [Some(0)]);
    assert_eq!(func.eqns[0].prim, Prim::Reduction(ReductionOp::Cumsum { axis: 2, reverse: true }));
}

// ---- impossible states are errors ----

/// The rule of `prim` on parameters of the given (already batched) types.
fn rule_on(prim: &Prim, types: &[Type], dims: &[Option<usize>], size: usize) -> Result<(), String> {
    let mut em = Emitter::new("bad");
    let params: Vec<Value> = types.iter().map(|ty| em.param(ty.clone())).collect();
    prim.batch(&mut em, &mut NoBodies::new(size), &params, dims).map(|_| ())
}

#[test]
fn impossible_states_are_errors() {
    let x = t(DType::F32, &[3, 2]);
    let add = Prim::Binary(BinaryOp::Add);
    let bad: Vec<(&str, Prim, Vec<Type>, Vec<Option<usize>>)> = vec![
        ("fewer batch axes than operands", add.clone(), vec![x.clone(), x.clone()], vec![Some(0)]),
        ("nothing batched", add.clone(), vec![x.clone(), x.clone()], vec![None, None]),
        ("batch axis out of range", add.clone(), vec![x.clone(), x.clone()], vec![Some(2), None]),
        ("batch axis of the wrong size", add.clone(), vec![x.clone(), x.clone()], vec![Some(1), None]),
        ("ranks differ", add.clone(), vec![x.clone(), t(DType::F32, &[2, 2])], vec![Some(0), None]),
        ("types differ", add, vec![x.clone(), t(DType::I32, &[3, 2])], vec![Some(0), Some(0)]),
        (
            "reduction of two operands",
            Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum, axes: vec![0] }),
            vec![x.clone(), x.clone()],
            vec![Some(0), Some(0)],
        ),
        (
            "unbatched reduction",
            Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum, axes: vec![0] }),
            vec![x.clone()],
            vec![None],
        ),
        (
            "repeated axes",
            Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Max, axes: vec![0, 0] }),
            vec![x.clone()],
            vec![Some(0)],
        ),
        (
            "axis out of range",
            Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Min, axes: vec![1] }),
            vec![x.clone()],
            vec![Some(0)],
        ),
        (
            "argmax axis out of range",
            Prim::Reduction(ReductionOp::ArgReduce { op: ArgOp::Argmax, axis: 1, index_dtype: DType::I32 }),
            vec![x.clone()],
            vec![Some(0)],
        ),
        (
            "cumsum axis out of range",
            Prim::Reduction(ReductionOp::Cumsum { axis: 5, reverse: false }),
            vec![x.clone()],
            vec![Some(0)],
        ),
        ("dot_general of one operand", dot(&[0], &[0], &[], &[]), vec![x.clone()], vec![Some(0)]),
        ("dot_general unbatched", dot(&[1], &[1], &[], &[]), vec![x.clone(), x.clone()], vec![None, None]),
        ("dot_general axis out of range", dot(&[1], &[0], &[], &[]), vec![x.clone(), x.clone()], vec![Some(0), None]),
        ("dot_general sizes differ", dot(&[0], &[0], &[], &[]), vec![x.clone(), x.clone()], vec![Some(0), None]),
        (
            "dot_general batch axes of different sizes",
            dot(&[], &[], &[], &[]),
            vec![x.clone(), t(DType::F32, &[2, 3])],
            vec![Some(0), Some(0)],
        ),
    ];
    for (what, prim, types, dims) in bad {
        let result = rule_on(&prim, &types, &dims, 3);
        assert!(result.is_err(), "{what}: expected an error, got {result:?}");
    }
}
