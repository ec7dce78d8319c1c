//! The op surface of `Tensor`: every operation traced on small arrays and evaluated
//! against values worked out by hand, snapshots of the IR where its form matters
//! (batched matmul, slicing), and one test per kind of user mistake, each checking
//! that the error names the caller's line and the operands' types.

use ferrax::ops::compare::where_;
use ferrax::ops::create::{arange, iota};
use ferrax::ops::index::{Idx, i, s};
use ferrax::ops::shape::{concat, stack};
use ferrax::{Array, DType, Tensor, Type, eval, trace};

fn f32a(shape: &[usize], values: &[f32]) -> Array {
    Array::from_f32(shape, values.to_vec()).unwrap()
}

fn i32a(shape: &[usize], values: &[i32]) -> Array {
    Array::from_i32(shape, values.to_vec()).unwrap()
}

fn bools(shape: &[usize], values: &[bool]) -> Array {
    Array::from_bool(shape, values.to_vec()).unwrap()
}

fn f32t(shape: &[usize]) -> Type {
    Type::new(DType::F32, shape)
}

/// `f(x)` evaluated.
fn run1(f: impl FnOnce(Tensor) -> Tensor, x: &Array) -> Array {
    eval(f, x).unwrap()
}

/// `f(a, b)` evaluated.
fn run2(f: impl FnOnce((Tensor, Tensor)) -> Tensor, a: &Array, b: &Array) -> Array {
    eval(f, &(a.clone(), b.clone())).unwrap()
}

fn ir(module: &ferrax::Module) -> String {
    ferrax::ir::print(module)
}

/// The reference `a @ b` of row-major matrices `[n, k] x [k, m]`.
fn matmul_ref(a: &[f32], b: &[f32], n: usize, k: usize, m: usize) -> Vec<f32> {
    let mut out = vec![0.0; n * m];
    for row in 0..n {
        for col in 0..m {
            out[row * m + col] = (0..k).map(|j| a[row * k + j] * b[j * m + col]).sum();
        }
    }
    out
}

fn counting(n: usize) -> Vec<f32> {
    (0..n).map(|v| v as f32).collect()
}

// ---- elementwise math ----

#[test]
fn pow_takes_tensor_and_scalar_exponents_and_floats_integers() {
    let x = f32a(&[3], &[4.0, 2.0, 9.0]);
    let y = f32a(&[3], &[2.0, 3.0, 0.5]);
    assert_eq!(run2(|(x, y)| x.pow(&y), &x, &y).as_f32().unwrap(), &[16.0, 8.0, 3.0]);
    assert_eq!(run1(|x| x.pow(2.0), &x).as_f32().unwrap(), &[16.0, 4.0, 81.0]);
    let ints = i32a(&[2], &[2, 3]);
    assert_eq!(run1(|x| x.pow(2), &ints).as_f32().unwrap(), &[4.0, 9.0]);
}

#[test]
fn atan2_rem_max_min() {
    let y = f32a(&[2], &[1.0, -1.0]);
    let x = f32a(&[2], &[1.0, 1.0]);
    let angles = run2(|(y, x)| y.atan2(&x), &y, &x);
    assert_eq!(angles.as_f32().unwrap(), &[1.0f32.atan2(1.0), (-1.0f32).atan2(1.0)]);
    let r = f32a(&[2], &[5.5, -5.5]);
    assert_eq!(run1(|r| r.rem(2.0), &r).as_f32().unwrap(), &[1.5, -1.5]);
    assert_eq!(run1(|k| k.rem(3), &i32a(&[2], &[7, -7])).as_i32().unwrap(), &[1, -1]);
    let a = f32a(&[3], &[1.0, 5.0, f32::NAN]);
    let b = f32a(&[3], &[3.0, 2.0, 0.0]);
    let max = run2(|(a, b)| a.maximum(&b), &a, &b);
    assert_eq!(&max.as_f32().unwrap()[..2], &[3.0, 5.0]);
    assert!(max.as_f32().unwrap()[2].is_nan());
    assert_eq!(&run2(|(a, b)| a.minimum(&b), &a, &b).as_f32().unwrap()[..2], &[1.0, 2.0]);
    assert_eq!(&run1(|a| a.minimum(2.0), &a).as_f32().unwrap()[..2], &[1.0, 2.0]);
}

#[test]
fn clamp_relu_and_logic() {
    let x = f32a(&[4], &[-1.0, 0.5, 2.0, 0.0]);
    assert_eq!(run1(|x| x.clamp(0.0, 1.0), &x).as_f32().unwrap(), &[0.0, 0.5, 1.0, 0.0]);
    let lo = f32a(&[4], &[0.0, 0.75, 0.0, -1.0]);
    assert_eq!(run2(|(x, lo)| x.clamp(&lo, 1.5), &x, &lo).as_f32().unwrap(), &[0.0, 0.75, 1.5, 0.0]);
    assert_eq!(run1(|x| x.relu(), &x).as_f32().unwrap(), &[0.0, 0.5, 2.0, 0.0]);
    let p = bools(&[4], &[true, true, false, false]);
    let q = bools(&[4], &[true, false, true, false]);
    assert_eq!(run2(|(p, q)| p.and(&q), &p, &q).as_bool().unwrap(), &[true, false, false, false]);
    assert_eq!(run2(|(p, q)| p.or(&q), &p, &q).as_bool().unwrap(), &[true, true, true, false]);
    assert_eq!(run1(|p| p.and(true), &p).as_bool().unwrap(), &[true, true, false, false]);
}

#[test]
fn stop_gradient_and_name_are_identities_in_the_ir() {
    let x = f32a(&[2], &[1.0, -2.0]);
    assert_eq!(run1(|x| x.stop_gradient().name("h"), &x), x);
    let module = trace(|x: Tensor| x.stop_gradient().name("h"), &f32t(&[2])).unwrap();
    let text = ir(&module);
    assert!(text.contains("stop_gradient(%0)") && text.contains("name[name=\"h\"](%1)"), "{text}");
}

// ---- comparisons and where_ ----

#[test]
fn comparisons_promote_and_broadcast() {
    let x = f32a(&[3], &[1.0, 2.0, 3.0]);
    let y = f32a(&[3], &[2.0, 2.0, 2.0]);
    assert_eq!(run2(|(x, y)| x.lt(&y), &x, &y).as_bool().unwrap(), &[true, false, false]);
    assert_eq!(run2(|(x, y)| x.le(&y), &x, &y).as_bool().unwrap(), &[true, true, false]);
    assert_eq!(run2(|(x, y)| x.gt(&y), &x, &y).as_bool().unwrap(), &[false, false, true]);
    assert_eq!(run2(|(x, y)| x.ge(&y), &x, &y).as_bool().unwrap(), &[false, true, true]);
    assert_eq!(run2(|(x, y)| x.eq_(&y), &x, &y).as_bool().unwrap(), &[false, true, false]);
    assert_eq!(run2(|(x, y)| x.ne_(&y), &x, &y).as_bool().unwrap(), &[true, false, true]);
    // An i32 tensor against a float scalar compares in f32.
    assert_eq!(run1(|k| k.lt(2.5), &i32a(&[3], &[1, 2, 3])).as_bool().unwrap(), &[true, true, false]);
    // [2,1] against [3] broadcasts to [2,3].
    let column = f32a(&[2, 1], &[1.5, 2.5]);
    let out = run2(|(c, x)| c.lt(&x), &column, &x);
    assert_eq!(out.shape(), &[2, 3]);
    assert_eq!(out.as_bool().unwrap(), &[false, true, true, false, false, true]);
}

#[test]
fn where_selects_and_broadcasts_all_three() {
    let cond = bools(&[3], &[true, false, true]);
    let a = f32a(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let out = eval(|(c, a): (Tensor, Tensor)| where_(&c, &a, 0.0), &(cond.clone(), a)).unwrap();
    assert_eq!(out.as_f32().unwrap(), &[1.0, 0.0, 3.0, 4.0, 0.0, 6.0]);
    // An i32 branch and an f32 branch promote to f32; two scalars follow the condition's shape.
    let k = i32a(&[3], &[7, 8, 9]);
    let mixed = eval(|(c, k): (Tensor, Tensor)| where_(&c, &k, 0.5), &(cond.clone(), k)).unwrap();
    assert_eq!(mixed.as_f32().unwrap(), &[7.0, 0.5, 9.0]);
    assert_eq!(run1(|c| where_(&c, 1, -1), &cond).as_i32().unwrap(), &[1, -1, 1]);
}

// ---- reductions ----

#[test]
fn reductions_with_and_without_keepdims() {
    let x = f32a(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let sum = run1(|x| x.sum_axes([1], true), &x);
    assert_eq!((sum.shape(), sum.as_f32().unwrap()), (&[2, 1][..], &[6.0, 15.0][..]));
    assert_eq!(run1(|x| x.sum_axes([0], false), &x).as_f32().unwrap(), &[5.0, 7.0, 9.0]);
    assert_eq!(run1(|x| x.sum_all(), &x).as_f32().unwrap(), &[21.0]);
    let mean = run1(|x| x.mean([0], true), &x);
    assert_eq!((mean.shape(), mean.as_f32().unwrap()), (&[1, 3][..], &[2.5, 3.5, 4.5][..]));
    assert_eq!(run1(|x| x.mean_all(), &x).as_f32().unwrap(), &[3.5]);
    assert_eq!(run1(|x| x.max_axes([1], false), &x).as_f32().unwrap(), &[3.0, 6.0]);
    assert_eq!(run1(|x| x.min_axes([0, 1], false), &x).as_f32().unwrap(), &[1.0]);
    assert_eq!(run1(|x| x.prod_axes([1], true), &x).as_f32().unwrap(), &[6.0, 120.0]);
}

#[test]
fn integer_and_bool_reductions() {
    let k = i32a(&[4], &[1, 2, 3, 4]);
    let mean = run1(|k| k.mean([0], false), &k);
    assert_eq!((mean.dtype(), mean.as_f32().unwrap()), (DType::F32, &[2.5][..]));
    let mask = bools(&[4], &[true, false, true, true]);
    assert_eq!(run1(|m| m.sum_all(), &mask).as_i32().unwrap(), &[3]);
    assert_eq!(run1(|m| m.max_axes([0], false), &mask).as_bool().unwrap(), &[true]);
    assert_eq!(run1(|m| m.cumsum(0, false), &mask).as_i32().unwrap(), &[1, 1, 2, 3]);
}

#[test]
fn argmax_argmin_take_the_first_extreme_and_cumsum_runs_both_ways() {
    let x = f32a(&[2, 3], &[1.0, 3.0, 3.0, 0.0, -2.0, -2.0]);
    let am = run1(|x| x.argmax(1), &x);
    assert_eq!((am.dtype(), am.as_i32().unwrap()), (DType::I32, &[1, 0][..]));
    assert_eq!(run1(|x| x.argmin(1), &x).as_i32().unwrap(), &[0, 1]);
    assert_eq!(run1(|x| x.argmax(0), &x).as_i32().unwrap(), &[0, 0, 0]);
    let v = f32a(&[4], &[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(run1(|v| v.cumsum(0, false), &v).as_f32().unwrap(), &[1.0, 3.0, 6.0, 10.0]);
    assert_eq!(run1(|v| v.cumsum(0, true), &v).as_f32().unwrap(), &[10.0, 9.0, 7.0, 4.0]);
}

#[test]
fn cummax_and_cummin_run_both_ways_and_their_gradient_follows_the_record() {
    let v = f32a(&[5], &[2.0, 1.0, 4.0, 3.0, 5.0]);
    assert_eq!(run1(|v| v.cummax(0, false), &v).as_f32().unwrap(), &[2.0, 2.0, 4.0, 4.0, 5.0]);
    assert_eq!(run1(|v| v.cummin(0, true), &v).as_f32().unwrap(), &[1.0, 1.0, 3.0, 3.0, 5.0]);
    let mask = Array::from_bool(&[3], vec![false, true, false]).unwrap();
    assert_eq!(run1(|m| m.cummax(0, false), &mask).as_i32().unwrap(), &[0, 1, 1]);
    // d/dv of sum(cummax(v)): each output counts the element it came from.
    let g = ferrax::grad(|v: Tensor| v.cummax(0, false).sum_all()).call(&v).unwrap();
    assert_eq!(g.as_f32().unwrap(), &[2.0, 0.0, 2.0, 0.0, 1.0]);
}

#[test]
fn sort_argsort_and_top_k_and_their_gradients_follow_the_permutation() {
    let v = f32a(&[5], &[2.0, -1.0, 4.0, f32::NAN, 0.5]);
    let sorted = run1(|v| v.sort(0), &v);
    let s = sorted.as_f32().unwrap();
    assert_eq!(&s[..4], &[-1.0, 0.5, 2.0, 4.0]);
    assert!(s[4].is_nan());
    assert_eq!(run1(|v| v.argsort(0), &v).as_i32().unwrap(), &[1, 4, 0, 2, 3]);
    let w = f32a(&[2, 3], &[3.0, 1.0, 2.0, 0.0, 5.0, 5.0]);
    assert_eq!(run1(|w| w.top_k(2).0, &w).as_f32().unwrap(), &[3.0, 2.0, 5.0, 5.0]);
    assert_eq!(run1(|w| w.top_k(2).1, &w).as_i32().unwrap(), &[0, 2, 1, 2]);
    // Two operands sorted by the first.
    let keys = f32a(&[3], &[3.0, 1.0, 2.0]);
    let vals = f32a(&[3], &[30.0, 10.0, 20.0]);
    let out = run2(|(k, x)| ferrax::ops::sort::sort(&[&k, &x], 0, 1).remove(1), &keys, &vals);
    assert_eq!(out.as_f32().unwrap(), &[10.0, 20.0, 30.0]);
    // d/dv of sum(sort(v) * [1, 2, 3]): each element gets the weight of its sorted place.
    let weights = f32a(&[3], &[1.0, 2.0, 3.0]);
    let g = ferrax::grad(move |k: Tensor| (k.sort(0) * ferrax::constant(&weights)).sum_all()).call(&keys);
    assert_eq!(g.unwrap().as_f32().unwrap(), &[3.0, 1.0, 2.0]);
    // d/dw of sum(top_k(w, 1).0): one at each row's maximum.
    let g = ferrax::grad(|w: Tensor| w.top_k(1).0.sum_all()).call(&w).unwrap();
    assert_eq!(g.as_f32().unwrap(), &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
}

// ---- matmul and dot ----

#[test]
fn matmul_of_matrices_and_vectors() {
    let a = f32a(&[2, 3], &counting(6));
    let b = f32a(&[3, 2], &[1.0, -1.0, 2.0, 0.5, 0.0, 3.0]);
    let expected = matmul_ref(&counting(6), b.as_f32().unwrap(), 2, 3, 2);
    assert_eq!(run2(|(a, b)| a.matmul(&b), &a, &b).as_f32().unwrap(), expected.as_slice());
    let v = f32a(&[3], &[1.0, 2.0, 3.0]);
    let w = f32a(&[2], &[1.0, -1.0]);
    // 1-D x 1-D: the inner product; matrix x vector; vector x matrix.
    assert_eq!(run2(|(v, u)| v.matmul(&u), &v, &v).as_f32().unwrap(), &[14.0]);
    assert_eq!(run2(|(a, v)| a.matmul(&v), &a, &v).as_f32().unwrap(), &[8.0, 26.0]);
    let vm = run2(|(w, a)| w.matmul(&a), &w, &a);
    assert_eq!((vm.shape(), vm.as_f32().unwrap()), (&[3][..], &[-3.0, -3.0, -3.0][..]));
}

#[test]
fn batched_matmul_matches_a_loop_over_the_batch() {
    let lhs: Vec<f32> = counting(12);
    let rhs: Vec<f32> = (0..12).map(|v| (v as f32) - 5.0).collect();
    let a = f32a(&[2, 2, 3], &lhs);
    let b = f32a(&[2, 3, 2], &rhs);
    let out = run2(|(a, b)| a.matmul(&b), &a, &b);
    let mut expected = matmul_ref(&lhs[..6], &rhs[..6], 2, 3, 2);
    expected.extend(matmul_ref(&lhs[6..], &rhs[6..], 2, 3, 2));
    assert_eq!((out.shape(), out.as_f32().unwrap()), (&[2, 2, 2][..], expected.as_slice()));
    // One shared matrix on either side: no batch dims, the same products.
    let shared = f32a(&[3, 2], &rhs[..6]);
    let left = run2(|(a, w)| a.matmul(&w), &a, &shared);
    let mut by_rows = matmul_ref(&lhs[..6], &rhs[..6], 2, 3, 2);
    by_rows.extend(matmul_ref(&lhs[6..], &rhs[..6], 2, 3, 2));
    assert_eq!(left.as_f32().unwrap(), by_rows.as_slice());
    let first = f32a(&[2, 3], &lhs[..6]);
    let right = run2(|(m, b)| m.matmul(&b), &first, &b);
    let mut per_batch = matmul_ref(&lhs[..6], &rhs[..6], 2, 3, 2);
    per_batch.extend(matmul_ref(&lhs[..6], &rhs[6..], 2, 3, 2));
    assert_eq!((right.shape(), right.as_f32().unwrap()), (&[2, 2, 2][..], per_batch.as_slice()));
    // A batch axis of size 1 broadcasts.
    let single = f32a(&[1, 2, 3], &lhs[..6]);
    assert_eq!(run2(|(s, b)| s.matmul(&b), &single, &b).as_f32().unwrap(), per_batch.as_slice());
}

#[test]
fn matmul_ir_uses_batch_dims_and_explicit_broadcasts() {
    let batched = trace(|(a, b): (Tensor, Tensor)| a.matmul(&b), &(f32t(&[4, 2, 3]), f32t(&[4, 3, 5]))).unwrap();
    insta::assert_snapshot!("matmul_batch_dims", ir(&batched));
    let broadcast = trace(|(a, b): (Tensor, Tensor)| a.matmul(&b), &(f32t(&[1, 2, 3]), f32t(&[4, 3, 5]))).unwrap();
    insta::assert_snapshot!("matmul_broadcast_batch", ir(&broadcast));
    let shared_lhs =
        trace(|(a, b): (Tensor, Tensor)| a.matmul(&b), &(f32t(&[2, 3]), Type::new(DType::F64, &[4, 3, 5]))).unwrap();
    insta::assert_snapshot!("matmul_shared_lhs", ir(&shared_lhs));
}

#[test]
fn dot_follows_numpy() {
    let v = f32a(&[3], &[1.0, 2.0, 3.0]);
    assert_eq!(run2(|(v, u)| v.dot(&u), &v, &v).as_f32().unwrap(), &[14.0]);
    let a = f32a(&[2, 3], &counting(6));
    assert_eq!(run2(|(a, v)| a.dot(&v), &a, &v).as_f32().unwrap(), &[8.0, 26.0]);
    // N-D . M-D sums over the last axis of a and the second-to-last of b.
    let module = trace(|(a, b): (Tensor, Tensor)| a.dot(&b), &(f32t(&[2, 3, 4]), f32t(&[5, 4, 6]))).unwrap();
    assert_eq!(module.entry().unwrap().result_types, [f32t(&[2, 3, 5, 6])]);
    let two = Array::scalar_f32(2.0);
    assert_eq!(run2(|(t, v)| t.dot(&v), &two, &v).as_f32().unwrap(), &[2.0, 4.0, 6.0]);
}

// ---- shapes ----

#[test]
fn reshape_transpose_permute_expand_squeeze() {
    let x = f32a(&[2, 3], &counting(6));
    let r = run1(|x| x.reshape(&[3, 2]), &x);
    assert_eq!((r.shape(), r.as_f32().unwrap()), (&[3, 2][..], counting(6).as_slice()));
    let t = run1(|x| x.transpose(), &x);
    assert_eq!((t.shape(), t.as_f32().unwrap()), (&[3, 2][..], &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0][..]));
    let cube = f32a(&[2, 3, 4], &counting(24));
    let p = run1(|c| c.permute(&[2, 0, 1]), &cube);
    assert_eq!(p.shape(), &[4, 2, 3]);
    // p[k, i, j] = cube[i, j, k]: p[1, 1, 2] = cube[1, 2, 1] = 12 + 8 + 1.
    assert_eq!(p.as_f32().unwrap()[6 + 3 + 2], 21.0);
    assert_eq!(run1(|c| c.swap_axes(0, 2), &cube).shape(), &[4, 3, 2]);
    assert_eq!(run1(|x| x.expand_dims(1), &x).shape(), &[2, 1, 3]);
    assert_eq!(run1(|x| x.expand_dims(2), &x).shape(), &[2, 3, 1]);
    let column = f32a(&[3, 1], &[1.0, 2.0, 3.0]);
    assert_eq!(run1(|c| c.squeeze(1), &column).shape(), &[3]);
}

#[test]
fn rev_and_pad() {
    let x = f32a(&[2, 3], &counting(6));
    assert_eq!(run1(|x| x.rev(&[1]), &x).as_f32().unwrap(), &[2.0, 1.0, 0.0, 5.0, 4.0, 3.0]);
    let v = f32a(&[3], &[1.0, 2.0, 3.0]);
    let padded = run1(|v| v.pad(&[1], &[2], &[1], -1.0), &v);
    assert_eq!(padded.as_f32().unwrap(), &[-1.0, 1.0, -1.0, 2.0, -1.0, 3.0, -1.0, -1.0]);
    assert_eq!(run1(|v| v.pad(&[-1], &[0], &[0], 0.0), &v).as_f32().unwrap(), &[2.0, 3.0]);
    // The padding value may be a rank-0 tensor; it takes the operand's dtype.
    let k = i32a(&[2], &[5, 6]);
    let out = eval(|(k, p): (Tensor, Tensor)| k.pad(&[1], &[0], &[0], &p), &(k, Array::scalar_f32(9.7))).unwrap();
    assert_eq!(out.as_i32().unwrap(), &[9, 5, 6]);
}

#[test]
fn concat_and_stack_promote() {
    let a = f32a(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let b = i32a(&[2, 1], &[5, 6]);
    let joined = eval(|(a, b): (Tensor, Tensor)| concat(&[a, b], 1), &(a.clone(), b)).unwrap();
    assert_eq!(joined.shape(), &[2, 3]);
    assert_eq!(joined.as_f32().unwrap(), &[1.0, 2.0, 5.0, 3.0, 4.0, 6.0]);
    let c = f32a(&[2, 2], &[5.0, 6.0, 7.0, 8.0]);
    let rows = eval(|(a, c): (Tensor, Tensor)| stack(&[a, c], 0), &(a.clone(), c.clone())).unwrap();
    assert_eq!((rows.shape(), rows.as_f32().unwrap()), (&[2, 2, 2][..], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0][..]));
    let inner = eval(|(a, c): (Tensor, Tensor)| stack(&[a, c], 2), &(a, c)).unwrap();
    assert_eq!(
        (inner.shape(), inner.as_f32().unwrap()),
        (&[2, 2, 2][..], &[1.0, 5.0, 2.0, 6.0, 3.0, 7.0, 4.0, 8.0][..])
    );
}

#[test]
fn constructors_make_constants_and_counters() {
    let x = f32a(&[2], &[0.5, 1.5]);
    let out = eval(
        |x: Tensor| {
            let counts = iota(DType::I32, &[2, 3], 1);
            let steps = arange(DType::F32, 3);
            let filled = Tensor::full(DType::F64, &[2], 2.5);
            let table = Tensor::constant(&Array::from_i32(&[2], vec![7, 8]).unwrap());
            (
                counts,
                steps,
                Tensor::zeros(DType::Bool, &[2]),
                Tensor::ones(DType::I32, &[2]),
                filled,
                table,
                x.ones_like(),
            )
        },
        &x,
    )
    .unwrap();
    assert_eq!(out.0.as_i32().unwrap(), &[0, 1, 2, 0, 1, 2]);
    assert_eq!(out.1.as_f32().unwrap(), &[0.0, 1.0, 2.0]);
    assert_eq!(out.2.as_bool().unwrap(), &[false, false]);
    assert_eq!(out.3.as_i32().unwrap(), &[1, 1]);
    assert_eq!(out.4.as_f64().unwrap(), &[2.5, 2.5]);
    assert_eq!(out.5.as_i32().unwrap(), &[7, 8]);
    assert_eq!(out.6.as_f32().unwrap(), &[1.0, 1.0]);
}

// ---- slicing and indexing ----

#[test]
fn slice_with_ranges_indices_and_steps() {
    let x = f32a(&[3, 4], &counting(12));
    let corner = run1(|x| x.slice(&[s(0..2), s(1..3)]), &x);
    assert_eq!((corner.shape(), corner.as_f32().unwrap()), (&[2, 2][..], &[1.0, 2.0, 5.0, 6.0][..]));
    let row = run1(|x| x.slice(&[i(-1)]), &x);
    assert_eq!((row.shape(), row.as_f32().unwrap()), (&[4][..], &[8.0, 9.0, 10.0, 11.0][..]));
    let column = run1(|x| x.slice(&[s(..), i(2)]), &x);
    assert_eq!(column.as_f32().unwrap(), &[2.0, 6.0, 10.0]);
    let element = run1(|x| x.slice(&[i(1), i(-2)]), &x);
    assert_eq!((element.shape(), element.as_f32().unwrap()), (&[][..], &[6.0][..]));
    let strided = run1(|x| x.slice(&[s(..).step(2), s(1..).step(2)]), &x);
    assert_eq!(strided.as_f32().unwrap(), &[1.0, 3.0, 9.0, 11.0]);
    // Bounds clamp to the axis, as in NumPy.
    assert_eq!(run1(|x| x.slice(&[s(-10..1), s(2..99)]), &x).as_f32().unwrap(), &[2.0, 3.0]);
    assert_eq!(run1(|x| x.slice(&[Idx::Range { start: Some(2), stop: Some(1), step: 1 }]), &x).shape(), &[0, 4]);
}

#[test]
fn slice_with_negative_steps_reverses() {
    let v = f32a(&[6], &counting(6));
    assert_eq!(run1(|v| v.slice(&[s(..).step(-1)]), &v).as_f32().unwrap(), &[5.0, 4.0, 3.0, 2.0, 1.0, 0.0]);
    assert_eq!(run1(|v| v.slice(&[s(..).step(-2)]), &v).as_f32().unwrap(), &[5.0, 3.0, 1.0]);
    assert_eq!(
        run1(|v| v.slice(&[Idx::Range { start: Some(4), stop: Some(0), step: -3 }]), &v).as_f32().unwrap(),
        &[4.0, 1.0]
    );
    assert_eq!(run1(|v| v.slice(&[s(..=-1)]), &v).as_f32().unwrap(), counting(6).as_slice());
    assert_eq!(run1(|v| v.slice(&[Idx::Full.step(-4)]), &v).as_f32().unwrap(), &[5.0, 1.0]);
    assert_eq!(run1(|v| v.slice(&[s(1..3).step(-1)]), &v).shape(), &[0]);
}

#[test]
fn slicing_ir_is_one_slice_then_rev_then_reshape() {
    let module = trace(|x: Tensor| x.slice(&[s(..).step(-2), i(3), s(0..4).step(3)]), &f32t(&[5, 6, 7])).unwrap();
    insta::assert_snapshot!("slice_index_and_negative_step", ir(&module));
    let whole = trace(|x: Tensor| x.slice(&[s(..)]), &f32t(&[5, 6])).unwrap();
    assert_eq!(whole.entry().unwrap().eqns.len(), 0);
}

#[test]
fn indexing_by_integer_tensors_gathers() {
    let table = f32a(&[3, 2], &counting(6));
    let rows = i32a(&[2, 2], &[2, 0, 1, 1]);
    let picked = run2(|(t, r)| t.index_select(0, &r), &table, &rows);
    assert_eq!(picked.shape(), &[2, 2, 2]);
    assert_eq!(picked.as_f32().unwrap(), &[4.0, 5.0, 0.0, 1.0, 2.0, 3.0, 2.0, 3.0]);
    let columns = i32a(&[1], &[1]);
    assert_eq!(run2(|(t, c)| t.index_select(1, &c), &table, &columns).as_f32().unwrap(), &[1.0, 3.0, 5.0]);
    // Out-of-range indices clamp.
    let wild = i32a(&[2], &[-4, 9]);
    assert_eq!(run2(|(t, w)| t.index_select(0, &w), &table, &wild).as_f32().unwrap(), &[0.0, 1.0, 4.0, 5.0]);
}

#[test]
fn take_along_axis_picks_per_row_and_per_column() {
    let x = f32a(&[2, 3], &[10.0, 11.0, 12.0, 20.0, 21.0, 22.0]);
    let per_row = i32a(&[2, 1], &[2, 0]);
    let out = run2(|(x, k)| x.take_along_axis(1, &k), &x, &per_row);
    assert_eq!((out.shape(), out.as_f32().unwrap()), (&[2, 1][..], &[12.0, 20.0][..]));
    let per_column = i32a(&[1, 3], &[1, 0, 1]);
    let out = run2(|(x, k)| x.take_along_axis(0, &k), &x, &per_column);
    assert_eq!((out.shape(), out.as_f32().unwrap()), (&[1, 3][..], &[20.0, 11.0, 22.0][..]));
}

#[test]
fn dynamic_slices_clamp_their_starts() {
    let x = f32a(&[3, 4], &counting(12));
    let args = (x.clone(), Array::scalar_i32(1), Array::scalar_i32(3));
    let out = eval(|(x, r, c): (Tensor, Tensor, Tensor)| x.dynamic_slice(&[r, c], &[2, 2]), &args).unwrap();
    // Column start 3 is clamped to 2 so that the box fits.
    assert_eq!(out.as_f32().unwrap(), &[6.0, 7.0, 10.0, 11.0]);
    let update = i32a(&[1, 2], &[-1, -2]);
    let args = (x, update, Array::scalar_i32(2), Array::scalar_i32(0));
    let out =
        eval(|(x, u, r, c): (Tensor, Tensor, Tensor, Tensor)| x.dynamic_update_slice(&u, &[r, c]), &args).unwrap();
    assert_eq!(&out.as_f32().unwrap()[7..], &[7.0, -1.0, -2.0, 10.0, 11.0]);
}

// ---- user mistakes: recorded at the caller's line, naming the operands ----

/// Asserts that `result` failed at `line` of this file with a message containing every
/// fragment.
#[track_caller]
fn assert_error_at<T: std::fmt::Debug>(result: Result<T, ferrax::Error>, line: u32, fragments: &[&str]) {
    let message = result.unwrap_err().to_string();
    assert!(message.starts_with(&format!("crates/ferrax/tests/ops.rs:{line}:")), "{message}");
    for fragment in fragments {
        assert!(message.contains(fragment), "{message} lacks {fragment}");
    }
}

#[test]
fn shape_mismatch_names_both_operands() {
    let types = (f32t(&[2, 3]), f32t(&[4]));
    let line = line!() + 1;
    let result = trace(|(a, b): (Tensor, Tensor)| a.maximum(&b), &types);
    assert_error_at(result, line, &["max: cannot broadcast f32[2,3] with f32[4]"]);
    let line = line!() + 1;
    let result = trace(|(a, b): (Tensor, Tensor)| a.lt(&b), &types);
    assert_error_at(result, line, &["lt: cannot broadcast f32[2,3] with f32[4]"]);
}

#[test]
fn matmul_rank_mismatch_names_both_operands() {
    let types = (f32t(&[2, 3, 4]), f32t(&[5]));
    let line = line!() + 1;
    let result = trace(|(a, b): (Tensor, Tensor)| a.matmul(&b), &types);
    assert_error_at(result, line, &["matmul: f32[2,3,4] x f32[5]: contracting dims 4 vs 5"]);
}

#[test]
fn matmul_contracting_mismatch_names_both_operands() {
    let types = (f32t(&[128, 784]), f32t(&[512, 784]));
    let line = line!() + 1;
    let result = trace(|(x, w): (Tensor, Tensor)| x.matmul(&w), &types);
    assert_error_at(result, line, &["matmul: f32[128,784] x f32[512,784]: contracting dims 784 vs 512"]);
}

#[test]
fn bad_axis_names_the_operand() {
    let line = line!() + 1;
    let result = trace(|x: Tensor| x.sum_axes([5], false), &f32t(&[2, 3]));
    assert_error_at(result, line, &["reduce_sum: f32[2,3]: axis 5 is out of range for rank 2"]);
}

#[test]
fn bad_reshape_names_both_types() {
    let line = line!() + 1;
    let result = trace(|x: Tensor| x.reshape(&[4]), &f32t(&[2, 3]));
    assert_error_at(result, line, &["reshape: f32[2,3]: element counts differ: f32[2,3] has 6 but f32[4] has 4"]);
}

#[test]
fn non_boolean_condition_is_an_error_not_a_conversion() {
    let types = (f32t(&[3]), f32t(&[3]), f32t(&[]));
    let line = line!() + 1;
    let result = trace(|(c, a, b): (Tensor, Tensor, Tensor)| where_(&c, &a, &b), &types);
    assert_error_at(result, line, &["where_: f32[3] x f32[3] x f32[]: the condition must be bool, got f32[3]"]);
}

/// A traced function with a mistake in it.
type Mistake = Box<dyn FnOnce(Tensor) -> Tensor>;

#[test]
fn convenience_mistakes_are_errors_not_panics() {
    let x = f32t(&[2, 3]);
    let cases: Vec<(Mistake, &str)> = vec![
        (Box::new(|x| x.slice(&[i(2)])), "slice: f32[2,3]: axis 0: index 2 is out of range for size 2"),
        (Box::new(|x| x.slice(&[s(..), s(..), s(..)])), "slice: f32[2,3]: 3 indices for 2 axes"),
        (Box::new(|x| x.slice(&[s(..).step(0)])), "slice: f32[2,3]: axis 0: step must not be 0"),
        (Box::new(|x| x.squeeze(0)), "squeeze: f32[2,3]: axis 0 is not an axis of size 1"),
        (Box::new(|x| x.expand_dims(3)), "expand_dims: f32[2,3]: axis 3 is out of range 0..=2"),
        (Box::new(|x| x.swap_axes(0, 2)), "swap_axes: f32[2,3]: axes 0 and 2 must be < the rank 2"),
        (Box::new(|x| x.permute(&[0, 0])), "transpose: f32[2,3]: perm entry 0 is repeated"),
        (Box::new(|x| x.argmax(2)), "argmax: f32[2,3]: axis 2 is out of range for rank 2"),
        (Box::new(|x| x.mean([1, 1], true)), "reduce_sum: f32[2,3]: axis 1 is repeated"),
        (Box::new(|x| x.matmul(&x)), "matmul: f32[2,3] x f32[2,3]: contracting dims 3 vs 2"),
        (Box::new(|x| x.gt(true).matmul(&x.gt(0.0))), "matmul: bool[2,3] x bool[2,3]: operands must be numeric"),
        (Box::new(|x| x.sum_all().matmul(&x)), "matmul: f32[] x f32[2,3]: operands must have rank >= 1"),
        (Box::new(|x| x.index_select(0, &x)), "gather: f32[2,3] x f32[2,3]: indices must be i32"),
        (Box::new(|x| x.pad(&[0, 0], &[0, 0], &[0, 0], &x)), "pad: f32[2,3] x f32[2,3]: padding value must be"),
        (Box::new(|x| x.pad(&[0], &[0], &[0], 0.0)), "pad: f32[2,3] x f32[]: 'low' has 1 entries"),
        (Box::new(|x| concat(&[x.clone(), x.reshape(&[3, 2])], 0)), "concatenate: f32[2,3] x f32[3,2]: operand 1"),
        (Box::new(|x| stack(&[x.clone(), x.reshape(&[3, 2])], 0)), "stack: f32[2,3] x f32[3,2]: shapes differ"),
        (Box::new(|_| concat(&[], 0)), "concat: no tensors to join"),
        (Box::new(|x| x.dynamic_slice(&[x.sum_all()], &[1, 1])), "dynamic_slice: f32[2,3] x f32[]: expects 2 start"),
        (Box::new(|x| x.take_along_axis(1, &x.argmax(1))), "take_along_axis: f32[2,3] x i32[2]: needs indices"),
        (Box::new(|x| x.broadcast_to(&[3, 3])), "broadcast_to: cannot broadcast f32[2,3] to f32[3,3]"),
    ];
    for (f, fragment) in cases {
        let message = trace(f, &x).unwrap_err().to_string();
        assert!(message.contains(fragment), "{message} lacks {fragment}");
        assert!(message.starts_with("crates/ferrax/tests/ops.rs:"), "{message}");
    }
    let batches = (f32t(&[2, 2, 3]), f32t(&[3, 3, 2]));
    let message = trace(|(a, b): (Tensor, Tensor)| a.matmul(&b), &batches).unwrap_err().to_string();
    assert!(message.contains("matmul: f32[2,2,3] x f32[3,3,2]: batch dims [2] and [3] do not broadcast"), "{message}");
}

#[test]
fn only_the_first_error_is_reported_and_later_operations_carry_on() {
    let line = line!() + 3;
    let result = trace(
        |x: Tensor| {
            let bad = x.reshape(&[4]);
            bad.sum_axes([0], true).exp().matmul(&x)
        },
        &f32t(&[2, 3]),
    );
    assert_error_at(result, line, &["reshape"]);
}

#[test]
fn reductions_take_axes_as_jnp_does() {
    let x = Array::from_f64(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let all = ferrax::eval(|x: Tensor| x.sum(..), &x).unwrap();
    assert_eq!((all.shape(), all.to_f64_vec()), (&[][..], vec![21.0]));
    let rows = ferrax::eval(|x: Tensor| x.sum([1]), &x).unwrap();
    assert_eq!(rows.to_f64_vec(), [6.0, 15.0]);
    let axes = vec![0];
    let cols = ferrax::eval(|x: Tensor| x.sum(&axes), &x).unwrap();
    assert_eq!(cols.to_f64_vec(), [5.0, 7.0, 9.0]);
    let peak = ferrax::eval(|x: Tensor| x.max_axes(.., false), &x).unwrap();
    assert_eq!(peak.to_f64_vec(), [6.0]);
    let mean = ferrax::eval(|x: Tensor| x.mean([0], true), &x).unwrap();
    assert_eq!((mean.shape(), mean.to_f64_vec()), (&[1, 3][..], vec![2.5, 3.5, 4.5]));
    // Elementwise extremes are maximum/minimum, as jnp's.
    let clipped = ferrax::eval(|x: Tensor| x.maximum(3.0f64).minimum(5.0f64), &x).unwrap();
    assert_eq!(clipped.to_f64_vec(), [3.0, 3.0, 3.0, 4.0, 5.0, 5.0]);
}

#[test]
fn unsuffixed_float_literals_are_weak_scalars_wherever_they_appear() {
    // A literal on the right of an operator needs no suffix, even when a method is
    // called on the result at once; the tensor's dtype wins (f32 stays f32).
    let f = |[w, x]: [Tensor; 2]| {
        let e = &w * &x - 1.0;
        (e.powi(2).sum_all() * 0.5).sqrt()
    };
    let args = [Array::from(vec![2.0f32, 1.0]), Array::from(vec![1.0f32, 2.0])];
    let out = ferrax::eval(f, &args).unwrap();
    assert_eq!((out.dtype(), out.to_f64_vec()), (ferrax::DType::F32, vec![1.0]));
    let g = |x: Tensor| (x.maximum(0.0) / 2.0 + 1).sum_all();
    let out = ferrax::eval(g, &Array::from(vec![-1.0f64, 4.0])).unwrap();
    assert_eq!((out.dtype(), out.to_f64_vec()), (ferrax::DType::F64, vec![4.0]));
}
