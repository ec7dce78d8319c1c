//! The vmap pass at the IR level: snapshots of the batched IR (reviewed by hand: no
//! loop, no broadcast of what does not vary, no transpose of an unbatched operand),
//! and compositions with the differentiation passes checked against loops over the
//! examples.

use ferrax_ir::prim::ReduceOp;
use ferrax_ir::prim::{LinalgOp, ReductionOp};
use ferrax_ir::{Array, Eqn, EvalOptions, Module, Prim, Type};
use ferrax_transform::{Wrt, dce, grad, hessian, hvp, jacfwd, jacrev, jvp, vmap};

/// Parses and verifies a module written for a test.
fn module(text: &str) -> Module {
    let module = ferrax_ir::parse(text).expect("the test module parses");
    ferrax_ir::verify(&module).expect("the test module verifies");
    module
}

/// `dce` of a transformed module; it must verify.
fn checked(result: Result<Module, ferrax_ir::Error>) -> Module {
    let module = dce(&result.expect("the transform succeeds"));
    if let Err(e) = ferrax_ir::verify(&module) {
        panic!("the transformed module does not verify: {e}\n{}", ferrax_ir::print(&module));
    }
    module
}

/// Every primitive name used by any Func of `module`.
fn prims(module: &Module) -> Vec<&'static str> {
    module.funcs.values().flat_map(|f| f.eqns.iter().map(|e| e.prim.name())).collect()
}

/// A matrix-vector product A v.
const MATVEC: &str = "\
func @mv(%a: f64[3,4], %v: f64[4]) -> (f64[3]) {
  %y: f64[3] = dot_general[lhs_contract=[1], rhs_contract=[0]](%a, %v)
  return %y
}
";

/// vmap over the vector only: one `dot_general` contracting A with the batch of
/// vectors, no loop, and A is used as it is (never transposed nor broadcast).
#[test]
fn matvec_over_the_vector_is_one_dot_general() {
    let m = module(MATVEC);
    let batched = checked(vmap(&m, &[None, Some(0)], &[0], 5));
    let names = prims(&batched);
    assert_eq!(names.iter().filter(|n| **n == "dot_general").count(), 1, "{names:?}");
    for looping in ["while", "scan", "call"] {
        assert!(!names.contains(&looping), "{looping} in {names:?}");
    }
    let entry = batched.entry().expect("an entry");
    let a = entry.params[0];
    for eqn in &entry.eqns {
        if eqn.inputs.contains(&a) {
            assert!(
                matches!(eqn.prim, Prim::Linalg(LinalgOp::DotGeneral(_))),
                "A goes through {} before the product",
                eqn.prim.name()
            );
        }
    }
    insta::assert_snapshot!("matvec_vmap_vector", ferrax_ir::print(&batched));
    // The batch axis last, in and out: still one product.
    let last = checked(vmap(&m, &[None, Some(-1)], &[-1], 5));
    assert_eq!(prims(&last).iter().filter(|n| **n == "dot_general").count(), 1);
    insta::assert_snapshot!("matvec_vmap_vector_last_axes", ferrax_ir::print(&last));
}

/// Both operands batched: the batch axis becomes a batch dimension of the product.
#[test]
fn matvec_over_both_is_a_batched_dot_general() {
    let m = module(MATVEC);
    let batched = checked(vmap(&m, &[Some(0), Some(0)], &[0], 5));
    assert_eq!(prims(&batched), vec!["dot_general"]);
    insta::assert_snapshot!("matvec_vmap_both", ferrax_ir::print(&batched));
}

/// Per-example gradients of a linear layer's loss: `vmap(grad(f))` over the examples,
/// with the weights shared, stays free of loops (and equals the per-example grads: see
/// the composition tests).
#[test]
fn per_example_gradient_ir() {
    let m = module(
        "func @loss(%w: f64[2,3], %x: f64[3]) -> (f64[]) {
  %y: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%w, %x)
  %t: f64[2] = tanh(%y)
  %s: f64[] = reduce_sum[axes=[0]](%t)
  return %s
}
",
    );
    let g = checked(grad(&m, &Wrt::Default, false));
    let batched = checked(vmap(&g, &[None, Some(0)], &[0], 4));
    let names = prims(&batched);
    assert!(!names.contains(&"while") && !names.contains(&"scan"), "{names:?}");
    insta::assert_snapshot!("per_example_gradient", ferrax_ir::print(&batched));
}

// ---- compositions, against loops over the examples ----

fn run(module: &Module, args: &[Array]) -> Vec<Array> {
    ferrax_ir::eval_entry(module, args, &EvalOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n{}", ferrax_ir::print(module)))
}

/// Slice `index` of `array` along `axis`.
fn take(array: &Array, axis: usize, index: usize) -> Array {
    let shape = array.shape();
    let outer: usize = shape[..axis].iter().product();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let flat = (0..outer).flat_map(|o| (0..inner).map(move |j| (o * n + index) * inner + j));
    let mut sliced = shape.to_vec();
    sliced.remove(axis);
    Array::new(sliced.as_slice(), array.data().gather(flat)).expect("a slice")
}

/// Deterministic f64 values in [-1, 1) of `shape`.
fn values(shape: &[usize], seed: u64) -> Array {
    let n: usize = shape.iter().product();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let data = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect();
    Array::from_f64(shape, data).expect("a valid shape")
}

fn assert_close(actual: &Array, expected: &Array, tol: f64, what: &str) {
    assert_eq!(actual.shape(), expected.shape(), "{what}");
    for (i, (a, e)) in actual.to_f64_vec().into_iter().zip(expected.to_f64_vec()).enumerate() {
        assert!((a - e).abs() <= tol * (1.0 + e.abs()), "{what}: element {i}: {a} vs {e}");
    }
}

/// Checks `batched` (a vmap of `module` with `in_axes`, outputs at axis 0) on `args`
/// against `module` run on each example.
fn against_loop(module: &Module, batched: &Module, in_axes: &[Option<usize>], args: &[Array], size: usize, what: &str) {
    let outs = run(batched, args);
    for b in 0..size {
        let example: Vec<Array> =
            args.iter().zip(in_axes).map(|(a, axis)| axis.map_or_else(|| a.clone(), |x| take(a, x, b))).collect();
        for (k, expected) in run(module, &example).iter().enumerate() {
            assert_close(&take(&outs[k], 0, b), expected, 1e-12, &format!("{what}: output {k}, example {b}"));
        }
    }
}

/// A scalar loss of shared weights `w` and one example `x`, with a data-dependent branch.
const LOSS: &str = "\
func @f(%w: f64[3], %x: f64[3]) -> (f64[]) {
  %a: f64[3] = mul(%w, %x)
  %t: f64[3] = tanh(%a)
  %s: f64[3] = sin(%w)
  %p: f64[3] = mul(%t, %s)
  %q: f64[3] = sub(%p, %x)
  %r: f64[] = reduce_sum[axes=[0]](%q)
  %z: f64[] = constant[value=0]()
  %pos: bool[] = gt(%r, %z)
  %y: f64[] = cond[branches=[@neg, @pos]](%pos, %r)
  return %y
}
func @neg(%r: f64[]) -> (f64[]) {
  %e: f64[] = exp(%r)
  return %e
}
func @pos(%r: f64[]) -> (f64[]) {
  %l: f64[] = log(%r)
  %o: f64[] = constant[value=1]()
  %y: f64[] = add(%l, %o)
  return %y
}
";

#[test]
fn vmap_of_grad_is_per_example_grad() {
    let f = module(LOSS);
    let g = checked(grad(&f, &Wrt::Default, false));
    let batched = checked(vmap(&g, &[None, Some(0)], &[0], 5));
    let args = [values(&[3], 1), values(&[5, 3], 2)];
    against_loop(&g, &batched, &[None, Some(0)], &args, 5, "vmap(grad(f))");
    // Batched over the weights as well (axis 1 of a [3, 5] array).
    let batched = checked(vmap(&g, &[Some(1), Some(0)], &[0], 5));
    let args = [values(&[3, 5], 3), values(&[5, 3], 4)];
    against_loop(&g, &batched, &[Some(1), Some(0)], &args, 5, "vmap(grad(f)) over both");
}

/// `module`'s entry with its single result `[B]` summed to a scalar.
fn summed(module: &Module) -> Module {
    let mut entry = module.entry().expect("an entry").clone();
    let ty = entry.result_types[0].clone();
    let total = entry.new_value(Type::new(ty.dtype, &[]));
    let sum = Prim::Reduction(ReductionOp::Reduce { op: ReduceOp::Sum, axes: (0..ty.rank()).collect() });
    entry.eqns.push(Eqn {
        prim: sum,
        inputs: [entry.results[0]].into_iter().collect(),
        outputs: [total].into_iter().collect(),
        loc: None,
    });
    entry.results = vec![total];
    entry.result_types = vec![Type::new(ty.dtype, &[])];
    let mut out = Module::new();
    out.push(entry);
    for other in module.funcs.values().skip(1) {
        out.push(other.clone());
    }
    ferrax_ir::verify(&out).expect("the summed module verifies");
    out
}

/// grad(sum ∘ vmap(f)) with respect to the shared weights is the sum of the per-example
/// gradients; no NaN of the branch a lane does not take (log of a negative) leaks in.
#[test]
fn grad_of_a_sum_over_vmap() {
    let f = module(LOSS);
    let total = summed(&checked(vmap(&f, &[None, Some(0)], &[0], 6)));
    let g = checked(grad(&total, &Wrt::Default, false));
    // Inputs under which the examples take both branches.
    let branch = |w: &Array, x: &Array| -> bool {
        w.to_f64_vec().iter().zip(x.to_f64_vec()).map(|(w, x)| (w * x).tanh() * w.sin() - x).sum::<f64>() > 0.0
    };
    let (w, xs) = (5..100)
        .map(|seed| (values(&[3], seed), values(&[6, 3], seed + 1000)))
        .find(|(w, xs)| {
            let taken: Vec<bool> = (0..6).map(|b| branch(w, &take(xs, 0, b))).collect();
            taken.contains(&true) && taken.contains(&false)
        })
        .expect("some seed mixes the branches");
    let per_example = checked(grad(&f, &Wrt::Default, false));
    let mut expected = vec![0.0; 3];
    let mut signs = (false, false);
    for b in 0..6 {
        let x = take(&xs, 0, b);
        signs = if branch(&w, &x) { (true, signs.1) } else { (signs.0, true) };
        for (e, v) in expected.iter_mut().zip(run(&per_example, &[w.clone(), x])[0].to_f64_vec()) {
            *e += v;
        }
    }
    let actual = run(&g, &[w, xs]);
    assert!(actual[0].to_f64_vec().iter().all(|v| v.is_finite()), "{:?}", actual[0]);
    assert_close(&actual[0], &Array::from_f64(&[3], expected).unwrap(), 1e-12, "grad of a sum over vmap");
    assert!(signs.0 && signs.1, "the examples should take both branches: {signs:?}");
}

#[test]
fn vmap_of_vmap() {
    let f = module(LOSS);
    let inner = checked(vmap(&f, &[None, Some(0)], &[0], 3));
    // The outer batch: weights at axis 0, examples' batches at axis 1.
    let outer = checked(vmap(&inner, &[Some(0), Some(1)], &[0], 2));
    let w = values(&[2, 3], 7);
    let xs = values(&[3, 2, 3], 8);
    let outs = run(&outer, &[w.clone(), xs.clone()]);
    assert_eq!(outs[0].shape(), &[2, 3]);
    for i in 0..2 {
        for j in 0..3 {
            let expected = run(&f, &[take(&w, 0, i), take(&take(&xs, 1, i), 0, j)]);
            assert_close(&take(&take(&outs[0], 0, i), 0, j), &expected[0], 1e-12, &format!("example ({i}, {j})"));
        }
    }
    against_loop(&inner, &outer, &[Some(0), Some(1)], &[w, xs], 2, "vmap(vmap(f))");
}

#[test]
fn jvp_of_vmap() {
    let f = module(LOSS);
    let batched = checked(vmap(&f, &[None, Some(0)], &[0], 4));
    let j = checked(jvp(&batched, &Wrt::Default));
    let (w, xs, tw, txs) = (values(&[3], 9), values(&[4, 3], 10), values(&[3], 11), values(&[4, 3], 12));
    let outs = run(&j, &[w.clone(), xs.clone(), tw.clone(), txs.clone()]);
    let per_example = checked(jvp(&f, &Wrt::Default));
    for b in 0..4 {
        let expected = run(&per_example, &[w.clone(), take(&xs, 0, b), tw.clone(), take(&txs, 0, b)]);
        assert_close(&take(&outs[0], 0, b), &expected[0], 1e-12, &format!("primal {b}"));
        assert_close(&take(&outs[1], 0, b), &expected[1], 1e-12, &format!("tangent {b}"));
    }
}

/// Batched Hessian-vector products: vmap of jvp(grad(f)) over the tangents; with the
/// basis as the batch, the Hessian itself, equal to `hessian(f)` and symmetric.
#[test]
fn vmap_of_hvp() {
    let f = module(LOSS);
    let h = checked(hvp(&f, &Wrt::Params(vec![0])));
    let entry = h.entry().unwrap();
    assert_eq!(entry.params.len(), 4, "{}", ferrax_ir::print(&h));
    let in_axes = [None, None, Some(0), Some(0)];
    let batched = checked(vmap(&h, &[None, None, Some(0), Some(0)], &[0], 3));
    let (w, x) = (values(&[3], 13), values(&[3], 14));
    let args = [w.clone(), x.clone(), values(&[3, 3], 15), values(&[3, 3], 16)];
    against_loop(&h, &batched, &in_axes, &args, 3, "vmap(hvp(f))");
    // The basis in w's tangents, zero in x's: the rows of the Hessian.
    let eye = Array::from_f64(&[3, 3], (0..9).map(|i| f64::from(i % 4 == 0)).collect()).unwrap();
    let zeros = Array::from_f64(&[3, 3], vec![0.0; 9]).unwrap();
    let rows = run(&batched, &[w.clone(), x.clone(), eye, zeros]);
    let full = run(&checked(hessian(&f, &Wrt::Params(vec![0]))), &[w, x]);
    assert_eq!(full[0].shape(), &[3, 3]);
    assert_close(&rows[1], &full[0], 1e-10, "H from batched HVPs vs hessian");
}

/// Random functions of two parameters with two outputs (one a matrix).
const RANDOM_FUNCTIONS: [&str; 3] = [
    "func @r(%x: f64[3], %y: f64[2]) -> (f64[2], f64[]) {
  %a: f64[2] = slice[start=[0], limit=[2]](%x)
  %b: f64[2] = mul(%a, %y)
  %c: f64[2] = sin(%b)
  %d: f64[] = reduce_sum[axes=[0]](%x)
  %e: f64[2] = broadcast_in_dim[shape=[2], dims=[]](%d)
  %g: f64[2] = mul(%c, %e)
  %h: f64[] = dot_general[lhs_contract=[0], rhs_contract=[0]](%y, %g)
  %k: f64[] = exp(%h)
  return %g, %k
}
",
    "func @r(%x: f64[2,2], %y: f64[2]) -> (f64[2,2], f64[2]) {
  %a: f64[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %x)
  %b: f64[2,2] = tanh(%a)
  %c: f64[2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%b, %y)
  %d: f64[2] = cumsum[axis=0, reverse=false](%c)
  %e: f64[2,2] = transpose[perm=[1,0]](%b)
  %f: f64[2,2] = mul(%e, %x)
  return %f, %d
}
",
    "func @r(%x: f64[3], %y: f64[]) -> (f64[3], f64[]) {
  %m: f64[] = reduce_max[axes=[0]](%x)
  %b: f64[3] = broadcast_in_dim[shape=[3], dims=[]](%y)
  %c: f64[3] = mul(%x, %b)
  %l: f64[3] = logistic(%c)
  %r: f64[3] = rev[axes=[0]](%l)
  %p: f64[3] = mul(%r, %x)
  %q: f64[] = reduce_prod[axes=[0]](%p)
  %s: f64[] = add(%q, %m)
  return %p, %s
}
",
];

#[test]
fn jacfwd_equals_jacrev_on_random_functions() {
    for (n, text) in RANDOM_FUNCTIONS.iter().enumerate() {
        let f = module(text);
        let wrt = Wrt::Params(vec![0, 1]);
        let fwd = checked(jacfwd(&f, &wrt));
        let rev = checked(jacrev(&f, &wrt));
        let entry = f.entry().unwrap();
        for seed in 0..3 {
            let args: Vec<Array> = entry
                .param_types()
                .iter()
                .enumerate()
                .map(|(i, t)| values(&t.shape, 100 * n as u64 + 10 * seed + i as u64))
                .collect();
            let (a, b) = (run(&fwd, &args), run(&rev, &args));
            assert_eq!(a.len(), 4);
            // JAX's layout: out.shape + param.shape, outputs outer.
            for (k, jac) in a.iter().enumerate() {
                let (o, p) = (k / 2, k % 2);
                let shape: Vec<usize> =
                    entry.result_types[o].shape.iter().chain(&*entry.param_types()[p].shape).copied().collect();
                assert_eq!(jac.shape(), shape.as_slice(), "function {n}, jacobian {k}");
                assert_close(jac, &b[k], 1e-12, &format!("function {n}, seed {seed}, jacobian {k}: jacfwd vs jacrev"));
            }
        }
    }
}

/// The Hessian is symmetric and its rows are central differences of the gradient.
#[test]
fn hessian_is_symmetric_and_matches_differences_of_the_gradient() {
    for text in [
        LOSS,
        "func @q(%x: f64[2,2]) -> (f64[]) {
  %a: f64[2,2] = dot_general[lhs_contract=[1], rhs_contract=[0]](%x, %x)
  %b: f64[2,2] = sin(%a)
  %c: f64[] = reduce_sum[axes=[0,1]](%b)
  return %c
}
",
    ] {
        let f = module(text);
        let entry = f.entry().unwrap();
        let shape = entry.param_types()[0].shape.to_vec();
        let n: usize = shape.iter().product();
        let h = checked(hessian(&f, &Wrt::Params(vec![0])));
        let g = checked(grad(&f, &Wrt::Params(vec![0]), false));
        let mut args: Vec<Array> =
            entry.param_types().iter().enumerate().map(|(i, t)| values(&t.shape, 40 + i as u64)).collect();
        let hess = run(&h, &args)[0].to_f64_vec();
        assert_eq!(run(&h, &args)[0].shape(), [shape.clone(), shape.clone()].concat().as_slice());
        for i in 0..n {
            for j in 0..n {
                assert!((hess[i * n + j] - hess[j * n + i]).abs() <= 1e-12, "H[{i},{j}] vs H[{j},{i}]");
            }
        }
        let x = args[0].to_f64_vec();
        let eps = 1e-5;
        for j in 0..n {
            let mut at = |delta: f64| {
                let mut moved = x.clone();
                moved[j] += delta;
                args[0] = Array::from_f64(&shape, moved).unwrap();
                run(&g, &args)[0].to_f64_vec()
            };
            let (plus, minus) = (at(eps), at(-eps));
            for i in 0..n {
                let fd = (plus[i] - minus[i]) / (2.0 * eps);
                assert!(
                    (hess[i * n + j] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                    "H[{i},{j}] = {} vs {fd}",
                    hess[i * n + j]
                );
            }
        }
    }
}
