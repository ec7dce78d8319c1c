//! The batching rules of the structural and indexing primitives, checked one
//! primitive at a time.
//!
//! Each case is one primitive with the types of its unbatched operands. For every
//! combination of batch axes (each operand unbatched or batched at any of its axes,
//! not all unbatched) and batch sizes 0, 1 and 3, the test draws one random operand
//! per example (or one shared operand when unbatched), stacks the examples on the host
//! at their batch axes, applies `Prim::batch` in an emitter, runs the batched Func with
//! the interpreter, and checks that the result, with its batch axis moved to the front
//! on the host, equals the examples' results of the primitive itself, stacked. Start
//! indices and gather indices are drawn from a range wider than the axes, negative
//! values and extremes included, so the clamping is exercised on every path.

use ferrax_ir::array::Data;
use ferrax_ir::prim::batch::{BatchContext, BatchFunc};
use ferrax_ir::prim::{IndexOp, ShapeOp};
use ferrax_ir::testing::{Rng, random_array};
use ferrax_ir::{Array, DType, Emitter, EvalOptions, Func, Module, Prim, Type, Value};

/// A context for single equations: no structured primitive, so no bodies.
struct NoBodies {
    module: Module,
    size: usize,
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
        panic!("these tests add no helper Funcs (a rule added @{})", func.name)
    }
}

/// A primitive applied to operands of `types`; the operands listed in `indices` are
/// i32 indices (drawn from a range wider than the axes).
struct Case {
    prim: Prim,
    types: Vec<Type>,
    indices: Vec<usize>,
}

fn ty(dtype: DType, shape: &[usize]) -> Type {
    Type::new(dtype, shape)
}

fn f32t(shape: &[usize]) -> Type {
    ty(DType::F32, shape)
}

fn i32t(shape: &[usize]) -> Type {
    ty(DType::I32, shape)
}

fn case(prim: Prim, types: Vec<Type>) -> Case {
    Case { prim, types, indices: vec![] }
}

fn indexed(prim: Prim, types: Vec<Type>, indices: impl IntoIterator<Item = usize>) -> Case {
    Case { prim, types, indices: indices.into_iter().collect() }
}

/// A random operand: indices in [-6, 6] with now and then an extreme, else `random_array`.
fn operand(ty: &Type, is_index: bool, rng: &mut Rng) -> Array {
    if !is_index {
        return random_array(ty, rng, false);
    }
    let n = ty.element_count().unwrap();
    let values = (0..n)
        .map(|_| match rng.below(12) {
            0 => i32::MIN,
            1 => i32::MAX,
            _ => rng.range(-6, 6) as i32,
        })
        .collect();
    Array::from_i32(&ty.shape, values).unwrap()
}

/// The strides of a C-order shape.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for a in (0..shape.len().saturating_sub(1)).rev() {
        s[a] = s[a + 1] * shape[a + 1];
    }
    s
}

/// `x` with axis `from` moved to position `to` (the others keep their order).
fn host_move_axis(x: &Array, from: usize, to: usize) -> Array {
    let mut order: Vec<usize> = (0..x.rank()).filter(|&a| a != from).collect();
    order.insert(to, from);
    let shape: Vec<usize> = order.iter().map(|&a| x.shape()[a]).collect();
    let (src, dst) = (strides(x.shape()), strides(&shape));
    let n: usize = shape.iter().product();
    let index =
        (0..n).map(|flat| order.iter().enumerate().map(|(i, &a)| (flat / dst[i]) % shape[i] * src[a]).sum::<usize>());
    Array::new(shape.as_slice(), x.data().gather(index)).unwrap()
}

/// The examples stacked along a new axis `at` (all of type `ty`; there may be none).
fn host_stack(examples: &[Array], ty: &Type, at: usize) -> Array {
    let mut shape = ty.shape.to_vec();
    shape.insert(0, examples.len());
    let datas: Vec<&Data> = examples.iter().map(Array::data).collect();
    let data = Data::concat(&datas).unwrap_or_else(|| Data::zeros(ty.dtype, 0));
    host_move_axis(&Array::new(shape.as_slice(), data).unwrap(), 0, at)
}

/// Every assignment of batch axes to operands of these ranks, not all unbatched.
fn all_dims(ranks: &[usize]) -> Vec<Vec<Option<usize>>> {
    let mut out: Vec<Vec<Option<usize>>> = vec![vec![]];
    for &rank in ranks {
        let choices: Vec<Option<usize>> = std::iter::once(None).chain((0..=rank).map(Some)).collect();
        out = out.into_iter().flat_map(|prefix| choices.iter().map(move |&c| [&prefix[..], &[c]].concat())).collect();
    }
    out.retain(|dims| dims.iter().any(Option::is_some));
    out
}

fn run(func: Func, args: &[Array]) -> Vec<Array> {
    let name = func.name.clone();
    let mut module = Module::new();
    module.push(func);
    ferrax_ir::verify(&module).unwrap_or_else(|e| panic!("the batched Func does not verify: {e}"));
    ferrax_ir::eval(&module, &name, args, &EvalOptions::default()).unwrap_or_else(|e| panic!("eval: {e}"))
}

/// The primitive applied to one example.
fn apply(prim: &Prim, types: &[Type], args: &[Array]) -> Array {
    let mut em = Emitter::new("one");
    let params: Vec<Value> = types.iter().map(|t| em.param(t.clone())).collect();
    let out = em.op(prim.clone(), &params).unwrap();
    let mut results = run(em.finish(&[out]), args);
    results.remove(0)
}

/// The batched equation on batched operands; returns the batched Func's result and
/// its batch axis.
fn apply_batched(prim: &Prim, types: &[Type], dims: &[Option<usize>], size: usize, args: &[Array]) -> (Array, usize) {
    let mut em = Emitter::new("batched");
    let params: Vec<Value> = types
        .iter()
        .zip(dims)
        .map(|(t, d)| {
            let mut shape = t.shape.to_vec();
            if let Some(d) = *d {
                shape.insert(d, size);
            }
            em.param(ty(t.dtype, &shape))
        })
        .collect();
    let mut cx = NoBodies { module: Module::new(), size };
    let (outs, out_dims) =
        prim.batch(&mut em, &mut cx, &params, dims).unwrap_or_else(|e| panic!("batch of {}: {e}", prim.name()));
    assert_eq!((outs.len(), out_dims.len()), (1, 1), "batch of {}: one result", prim.name());
    let d = out_dims[0].unwrap_or_else(|| panic!("batch of {}: the result is unbatched", prim.name()));
    let mut results = run(em.finish(&outs), args);
    (results.remove(0), d)
}

/// Checks a case for every combination of batch axes and batch sizes 0, 1 and 3.
fn check(case: &Case, seed: u64) {
    let mut rng = Rng::new(seed);
    let ranks: Vec<usize> = case.types.iter().map(Type::rank).collect();
    let out_ty = {
        let mut em = Emitter::new("infer");
        let params: Vec<Value> = case.types.iter().map(|t| em.param(t.clone())).collect();
        let out = em.op(case.prim.clone(), &params).unwrap();
        em.ty(out).clone()
    };
    for dims in all_dims(&ranks) {
        for size in [0, 1, 3] {
            // One operand per example where batched, one shared operand otherwise.
            let per_input: Vec<Vec<Array>> = case
                .types
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let count = if dims[k].is_some() { size } else { 1 };
                    (0..count).map(|_| operand(t, case.indices.contains(&k), &mut rng)).collect()
                })
                .collect();
            let args: Vec<Array> = per_input
                .iter()
                .zip(&case.types)
                .zip(&dims)
                .map(|((xs, t), d)| match d {
                    Some(d) => host_stack(xs, t, *d),
                    None => xs[0].clone(),
                })
                .collect();
            let expected: Vec<Array> = (0..size)
                .map(|n| {
                    let example: Vec<Array> = per_input
                        .iter()
                        .zip(&dims)
                        .map(|(xs, d)| xs[if d.is_some() { n } else { 0 }].clone())
                        .collect();
                    apply(&case.prim, &case.types, &example)
                })
                .collect();
            let expected = host_stack(&expected, &out_ty, 0);
            let (got, d) = apply_batched(&case.prim, &case.types, &dims, size, &args);
            let got = host_move_axis(&got, d, 0);
            assert_eq!(
                got,
                expected,
                "{} on {:?} with batch axes {dims:?}, size {size}, arguments {args:?}",
                case.prim.name(),
                case.types.iter().map(ToString::to_string).collect::<Vec<_>>()
            );
        }
    }
}

fn check_all(cases: &[Case]) {
    for (i, c) in cases.iter().enumerate() {
        check(c, 1000 + i as u64);
    }
}

fn broadcast(shape: &[usize], dims: &[usize]) -> Prim {
    Prim::Shape(ShapeOp::BroadcastInDim { shape: shape.into(), dims: dims.to_vec() })
}

fn pad(low: &[i64], high: &[i64], interior: &[usize]) -> Prim {
    Prim::Shape(ShapeOp::Pad { low: low.to_vec(), high: high.to_vec(), interior: interior.to_vec() })
}

fn dynamic_slice(sizes: &[usize]) -> Prim {
    Prim::Index(IndexOp::DynamicSlice { sizes: sizes.to_vec() })
}

fn gather(axis: usize, batch_dims: usize) -> Prim {
    Prim::Index(IndexOp::Gather { axis, batch_dims })
}

fn scatter_add(axis: usize, batch_dims: usize) -> Prim {
    Prim::Index(IndexOp::ScatterAdd { axis, batch_dims })
}

#[test]
fn broadcast_in_dim() {
    check_all(&[
        case(broadcast(&[2, 3, 4], &[1, 2]), vec![f32t(&[3, 1])]),
        case(broadcast(&[4, 3, 2], &[0, 2]), vec![ty(DType::I32, &[1, 2])]),
        case(broadcast(&[2], &[]), vec![f32t(&[])]),
        case(broadcast(&[2, 5], &[0]), vec![ty(DType::Bool, &[2])]),
        case(broadcast(&[0, 3], &[1]), vec![f32t(&[3])]),
    ]);
}

#[test]
fn reshape() {
    let reshape = |shape: &[usize]| Prim::Shape(ShapeOp::Reshape { shape: shape.into() });
    check_all(&[
        case(reshape(&[3, 2]), vec![f32t(&[2, 3])]),
        case(reshape(&[6]), vec![i32t(&[2, 3])]),
        case(reshape(&[1, 1]), vec![f32t(&[])]),
        case(reshape(&[3, 0]), vec![f32t(&[0, 3])]),
    ]);
}

#[test]
fn transpose() {
    let transpose = |perm: &[usize]| Prim::Shape(ShapeOp::Transpose { perm: perm.to_vec() });
    check_all(&[
        case(transpose(&[2, 0, 1]), vec![f32t(&[2, 3, 4])]),
        case(transpose(&[1, 0]), vec![ty(DType::Bool, &[2, 3])]),
        case(transpose(&[0]), vec![f32t(&[3])]),
    ]);
}

#[test]
fn rev() {
    let rev = |axes: &[usize]| Prim::Shape(ShapeOp::Rev { axes: axes.to_vec() });
    check_all(&[
        case(rev(&[1]), vec![f32t(&[2, 3])]),
        case(rev(&[0, 1]), vec![i32t(&[2, 3])]),
        case(rev(&[]), vec![f32t(&[2])]),
    ]);
}

#[test]
fn slice() {
    let slice = |start: &[usize], limit: &[usize], strides: &[usize]| {
        Prim::Shape(ShapeOp::Slice { start: start.to_vec(), limit: limit.to_vec(), strides: strides.to_vec() })
    };
    check_all(&[
        case(slice(&[1, 0], &[4, 5], &[2, 2]), vec![f32t(&[4, 5])]),
        case(slice(&[2, 1], &[2, 3], &[1, 1]), vec![f32t(&[4, 5])]),
        case(slice(&[], &[], &[]), vec![f32t(&[])]),
    ]);
}

#[test]
fn pad_with_batched_operand_and_padding_value() {
    check_all(&[
        case(pad(&[1], &[2], &[1]), vec![f32t(&[3]), f32t(&[])]),
        case(pad(&[1, -1], &[0, 1], &[0, 0]), vec![f32t(&[2, 2]), f32t(&[])]),
        case(pad(&[-2], &[-1], &[1]), vec![i32t(&[3]), i32t(&[])]),
        case(pad(&[-3], &[1], &[0]), vec![f32t(&[3]), f32t(&[])]),
        case(pad(&[1], &[1], &[2]), vec![f32t(&[0]), f32t(&[])]),
        case(pad(&[0, 1], &[1, 0], &[1, 0]), vec![ty(DType::Bool, &[2, 1]), ty(DType::Bool, &[])]),
        case(pad(&[], &[], &[]), vec![f32t(&[]), f32t(&[])]),
    ]);
}

#[test]
fn concatenate() {
    let concatenate = |axis| Prim::Shape(ShapeOp::Concatenate { axis });
    check_all(&[
        case(concatenate(1), vec![f32t(&[2, 1]), f32t(&[2, 0]), f32t(&[2, 2])]),
        case(concatenate(0), vec![i32t(&[1, 2]), i32t(&[3, 2])]),
        case(concatenate(0), vec![f32t(&[2])]),
    ]);
}

#[test]
fn iota_and_constant_are_never_batched() {
    let mut em = Emitter::new("f");
    let mut cx = NoBodies { module: Module::new(), size: 2 };
    let iota = Prim::Shape(ShapeOp::Iota { dtype: DType::I32, shape: [3].as_slice().into(), dim: 0 });
    let constant = Prim::Shape(ShapeOp::Constant { value: Array::scalar_f32(1.0), shape: [2].as_slice().into() });
    for prim in [iota, constant] {
        assert!(prim.batch(&mut em, &mut cx, &[], &[]).is_err(), "{}", prim.name());
    }
}

#[test]
fn dynamic_slice_with_batched_operand_or_indices() {
    let i = i32t(&[]);
    check_all(&[
        indexed(dynamic_slice(&[2, 3]), vec![f32t(&[4, 5]), i.clone(), i.clone()], [1, 2]),
        indexed(dynamic_slice(&[3, 1]), vec![i32t(&[3, 2]), i.clone(), i.clone()], [1, 2]),
        indexed(dynamic_slice(&[0]), vec![f32t(&[3]), i.clone()], [1]),
        indexed(dynamic_slice(&[1]), vec![ty(DType::Bool, &[2]), i.clone()], [1]),
        indexed(dynamic_slice(&[2, 0, 1]), vec![f32t(&[3, 2, 2]), i.clone(), i.clone(), i.clone()], [1, 2, 3]),
        indexed(dynamic_slice(&[]), vec![f32t(&[])], []),
    ]);
}

#[test]
fn dynamic_update_slice_with_batched_operand_update_or_indices() {
    let i = i32t(&[]);
    let dus = Prim::Index(IndexOp::DynamicUpdateSlice);
    check_all(&[
        indexed(dus.clone(), vec![f32t(&[4, 5]), f32t(&[2, 3]), i.clone(), i.clone()], [2, 3]),
        indexed(dus.clone(), vec![i32t(&[5]), i32t(&[2]), i.clone()], [2]),
        indexed(dus.clone(), vec![ty(DType::Bool, &[3, 2]), ty(DType::Bool, &[1, 2]), i.clone(), i.clone()], [2, 3]),
        indexed(dus.clone(), vec![f32t(&[3]), f32t(&[0]), i.clone()], [2]),
        indexed(dus.clone(), vec![f32t(&[2, 2]), f32t(&[2, 2]), i.clone(), i.clone()], [2, 3]),
        indexed(dus.clone(), vec![f32t(&[]), f32t(&[])], []),
    ]);
}

#[test]
fn dynamic_update_slice_keeps_infinities_exact() {
    // Writing over an infinite element must give the update, not inf - inf = NaN.
    let i = i32t(&[]);
    let types = vec![f32t(&[3]), f32t(&[1]), i.clone()];
    let dims = [Some(0), None, Some(0)];
    let x = Array::from_f32(&[2, 3], vec![f32::INFINITY, 1.0, 2.0, 3.0, f32::NEG_INFINITY, 5.0]).unwrap();
    let u = Array::from_f32(&[1], vec![7.0]).unwrap();
    let starts = Array::from_i32(&[2], vec![0, 1]).unwrap();
    let (got, d) = apply_batched(&Prim::Index(IndexOp::DynamicUpdateSlice), &types, &dims, 2, &[x, u, starts]);
    let got = host_move_axis(&got, d, 0);
    assert_eq!(got.as_f32().unwrap(), &[7.0, 1.0, 2.0, 3.0, 7.0, 5.0]);
}

#[test]
fn gather_with_batched_operand_or_indices() {
    check_all(&[
        indexed(gather(0, 0), vec![f32t(&[3, 4]), i32t(&[2])], [1]),
        indexed(gather(1, 0), vec![f32t(&[3, 4]), i32t(&[2, 2])], [1]),
        indexed(gather(1, 1), vec![f32t(&[2, 3, 2]), i32t(&[2, 2])], [1]),
        indexed(gather(1, 0), vec![i32t(&[2, 3]), i32t(&[])], [1]),
        indexed(gather(1, 0), vec![f32t(&[2, 0]), i32t(&[3])], [1]),
        indexed(gather(2, 1), vec![ty(DType::Bool, &[2, 3, 4]), i32t(&[2, 3])], [1]),
        indexed(gather(2, 2), vec![f32t(&[2, 1, 3]), i32t(&[2, 1])], [1]),
    ]);
}

#[test]
fn scatter_add_with_batched_operand_indices_or_updates() {
    check_all(&[
        indexed(scatter_add(0, 0), vec![f32t(&[3, 2]), i32t(&[3]), f32t(&[3, 2])], [1]),
        indexed(scatter_add(1, 1), vec![f32t(&[2, 3, 2]), i32t(&[2, 2]), f32t(&[2, 2, 2])], [1]),
        indexed(scatter_add(1, 0), vec![i32t(&[2, 3]), i32t(&[2, 2]), i32t(&[2, 2, 2])], [1]),
        indexed(scatter_add(0, 0), vec![f32t(&[2]), i32t(&[]), f32t(&[])], [1]),
    ]);
}

/// Counts the equations `prim.batch` emits for these operand types and batch axes.
fn equations(prim: &Prim, types: &[Type], dims: &[Option<usize>]) -> Vec<String> {
    let mut em = Emitter::new("f");
    let params: Vec<Value> = types
        .iter()
        .zip(dims)
        .map(|(t, d)| {
            let mut shape = t.shape.to_vec();
            if let Some(d) = *d {
                shape.insert(d, 3);
            }
            em.param(ty(t.dtype, &shape))
        })
        .collect();
    let mut cx = NoBodies { module: Module::new(), size: 3 };
    prim.batch(&mut em, &mut cx, &params, dims).unwrap();
    em.func().eqns.iter().map(|e| e.prim.name().to_string()).collect()
}

#[test]
fn unbatched_operands_stay_unbatched() {
    let i = i32t(&[]);
    // A batched operand of gather with shared indices, and shared x with batched
    // indices: one gather, nothing broadcast or moved.
    assert_eq!(equations(&gather(1, 0), &[f32t(&[3, 4]), i32t(&[2])], &[Some(2), None]), ["gather"]);
    assert_eq!(equations(&gather(1, 1), &[f32t(&[2, 3]), i32t(&[2, 4])], &[None, Some(2)]), ["gather"]);
    // dynamic_slice of a batched operand at shared indices stays a dynamic_slice.
    let ds = equations(&dynamic_slice(&[2]), &[f32t(&[4]), i.clone()], &[Some(1), None]);
    assert_eq!(ds, ["constant", "dynamic_slice"]);
    // broadcast_in_dim and transpose keep the batch axis where it is.
    assert_eq!(equations(&broadcast(&[2, 3], &[1]), &[f32t(&[3])], &[Some(0)]), ["broadcast_in_dim"]);
    assert_eq!(
        equations(&Prim::Shape(ShapeOp::Transpose { perm: vec![1, 0] }), &[f32t(&[2, 3])], &[Some(1)]),
        ["transpose"]
    );
    // Batched start indices become gathers, never a dynamic_slice per example.
    let batched = equations(&dynamic_slice(&[2, 3]), &[f32t(&[4, 5]), i.clone(), i.clone()], &[None, Some(0), None]);
    assert_eq!(batched.iter().filter(|p| *p == "gather").count(), 1);
    assert_eq!(batched.iter().filter(|p| *p == "dynamic_slice").count(), 1);
}

#[test]
fn impossible_batch_axes_are_errors() {
    let mut em = Emitter::new("f");
    let x = em.param(f32t(&[2, 3]));
    let i = em.param(i32t(&[]));
    let mut cx = NoBodies { module: Module::new(), size: 2 };
    let rev = Prim::Shape(ShapeOp::Rev { axes: vec![0] });
    // A batch axis past the value's rank, a count of batch axes that does not match the
    // inputs, and no batched input at all.
    assert!(rev.batch(&mut em, &mut cx, &[x], &[Some(2)]).is_err());
    assert!(rev.batch(&mut em, &mut cx, &[x], &[]).is_err());
    assert!(rev.batch(&mut em, &mut cx, &[x], &[None]).is_err());
    assert!(gather(0, 0).batch(&mut em, &mut cx, &[x, i], &[Some(0), Some(0)]).is_err());
    assert!(dynamic_slice(&[1, 1]).batch(&mut em, &mut cx, &[x, i], &[Some(0), None]).is_err());
    assert!(Prim::Index(IndexOp::DynamicUpdateSlice).batch(&mut em, &mut cx, &[x], &[Some(0)]).is_err());
    assert!(pad(&[0], &[0], &[0]).batch(&mut em, &mut cx, &[x, x], &[Some(0), Some(1)]).is_err());
    assert!(scatter_add(0, 0).batch(&mut em, &mut cx, &[x, i, x], &[Some(0), None, Some(0)]).is_err());
}
